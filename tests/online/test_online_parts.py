"""The link's pure parts: NDJSON framing with bounded lines, the token kept out of sight, the
options, lidraughts' variants and clocks, and which challenges the board takes."""

from __future__ import annotations

import logging
import pickle
from pathlib import Path

import pytest

from boardctl.online.errors import OnlineError, ProtocolError
from boardctl.online.ndjson import LineSplitter, Oversized, read_object
from boardctl.online.policy import ChallengePolicy, read_challenge
from boardctl.online.settings import OnlineSettings
from boardctl.online.streams import Backoff
from boardctl.online.token import Token
from boardctl.online.transport import Server, Transport
from boardctl.online.variants import (
    VARIANTS,
    ClockSetting,
    DeclineReason,
    rules_for,
    time_control,
    variant_key,
)

SECRET = "lip_S3cretT0ken99"


# -- framing -------------------------------------------------------------------------------------

def test_lines_are_cut_wherever_the_chunks_end() -> None:
    s = LineSplitter(64)
    data = b'{"type":"a"}\n\n{"type":"b"}\r\n'
    out: list[bytes | Oversized] = []
    for i in range(len(data)):
        out += s.feed(data[i:i + 1])
    assert out == [b'{"type":"a"}', b"", b'{"type":"b"}']


def test_an_oversized_line_is_dropped_as_it_arrives_and_named_once() -> None:
    s = LineSplitter(100)
    out = s.feed(b'{"type":"a"}\n' + b"x" * 60)
    for _ in range(1000):  # 1 MB more of the same line: nothing is kept
        out += s.feed(b"y" * 1000)
        assert len(s._buf) == 0
    out += s.feed(b'\n{"type":"b"}\n')
    assert out == [b'{"type":"a"}', Oversized(60 + 1_000_000), b'{"type":"b"}']


def test_a_line_of_exactly_the_bound_is_kept() -> None:
    assert LineSplitter(10).feed(b"0123456789\n01234567890\n") == [b"0123456789",
                                                                   Oversized(11)]


@pytest.mark.parametrize("line, why", [
    (b"\xff\xfe", "not UTF-8"),
    (b"not json", "not JSON"),
    (b"[" * 100_000, "not JSON"),
    (b"[1, 2]", "not an object"),
    (b'{"moves": ""}', "without its type"),
    (b'{"type": "a", "type": "b"', "not JSON"),
])
def test_garbage_lines_are_a_protocol_error(line: bytes, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        read_object(line)


# -- the token ------------------------------------------------------------------------------------

def test_the_token_is_read_once_and_never_shown(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "token"
    path.write_text(f"  {SECRET}\n")
    token = Token.read(path)
    assert token.authorization() == f"Bearer {SECRET}"
    path.unlink()  # read once: the file is not needed again
    assert token.authorization() == f"Bearer {SECRET}"
    shown = [repr(token), str(token), f"{token}", repr(Transport(Server.from_url(
        "http://127.0.0.1:9"), token))]
    assert all(SECRET not in text for text in shown) and str(path) in repr(token)
    with pytest.raises(TypeError):
        pickle.dumps(token)


@pytest.mark.parametrize("content, why", [
    (b"", "is empty"),
    (b"\n\n", "is empty"),
    (b"two words", "characters a token cannot"),
    (b"tok\xe9n", "not ASCII"),
    (b"x" * 600, "longer than"),
])
def test_a_bad_token_file_is_named_but_not_shown(tmp_path: Path, content: bytes,
                                                  why: str) -> None:
    path = tmp_path / "token"
    path.write_bytes(content)
    with pytest.raises(OnlineError, match=why) as err:
        Token.read(path)
    assert str(path) in str(err.value) and "two words" not in str(err.value)


def test_a_missing_token_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(OnlineError, match="cannot read the token file .*missing"):
        Token.read(tmp_path / "missing")


def test_plain_http_to_another_host_is_warned_of(caplog: pytest.LogCaptureFixture) -> None:
    token = Token(SECRET)
    with caplog.at_level(logging.WARNING):
        Transport(Server.from_url("http://127.0.0.1:8080"), token)
        assert not caplog.records
        Transport(Server.from_url("http://lidraughts.example:8080"), token)
    assert "unencrypted" in caplog.text and SECRET not in caplog.text


# -- options --------------------------------------------------------------------------------------

@pytest.fixture
def token_file(tmp_path: Path) -> str:
    path = tmp_path / "token"
    path.write_text(SECRET)
    return str(path)


def test_the_options_read(token_file: str) -> None:
    s = OnlineSettings.from_options(token_file, accept="Alice, bob", challenge="Carol",
                                    time_control="5+3", rules="russian")
    assert s.server == Server("https", "lidraughts.org", 443, "")
    assert s.policy.users == frozenset({"alice", "bob"}) and s.policy.board_size == 8
    assert s.challenge_user == "Carol" and s.clock == ClockSetting(300, 3)
    assert SECRET not in repr(s)


@pytest.mark.parametrize("options, why", [
    ({"challenge": "carol"}, "go together"),
    ({"time_control": "5+3"}, "go together"),
    ({"challenge": "c a", "time_control": "5+3"}, "not a lidraughts user name"),
    ({"challenge": "carol", "time_control": "7.5+3"}, "no clock of 7.5 minutes"),
    ({"challenge": "carol", "time_control": "5+200"}, "increment of 0-180"),
    ({"challenge": "carol", "time_control": "0+2"}, "needs a starting time"),
    ({"challenge": "carol", "time_control": "five"}, "cannot read the time control"),
    ({"challenge": "carol", "time_control": "5+3", "rules": "home"}, "no variant for"),
    ({"accept": "al ice"}, "cannot read --online-accept"),
    ({"accept": ","}, "cannot read --online-accept"),
    ({"url": "ftp://x"}, "is not http"),
    ({"url": "https://lidraughts.org:99999"}, "cannot read the URL"),
])
def test_options_that_cannot_be_used_are_one_line(token_file: str, options: dict[str, str],
                                                  why: str) -> None:
    with pytest.raises(OnlineError, match=why):
        OnlineSettings.from_options(token_file, **options)


# -- variants and clocks --------------------------------------------------------------------------

def test_variants_map_to_the_rule_sets() -> None:
    assert {k: (r.name if (r := rules_for(k)) else None) for k in VARIANTS} == {
        "standard": "international", "fromPosition": "international", "russian": "russian",
        "brazilian": "brazilian", "frisian": None, "frysk": None, "antidraughts": None,
        "breakthrough": None}
    assert [variant_key(n) for n in ("international", "russian", "brazilian")] == [
        "standard", "russian", "brazilian"]
    assert rules_for("chess") is None


def test_clocks_become_time_controls() -> None:
    assert str(time_control(300, 3)) == "300+3"
    assert str(time_control(180, 0)) == "180"
    assert str(time_control(15, 1.5)) == "15+1.5"
    assert str(ClockSetting.parse("0.5+0")) == "0.5+0" and ClockSetting.parse("0.5+0").limit_s \
        == 30
    assert str(ClockSetting.parse(" 90 + 30 ").control) == "5400+30"


def test_backoff_grows_to_its_cap() -> None:
    b = Backoff(first=0.5, factor=2, cap=4)
    assert [b.delay(n) for n in range(6)] == [0, 0.5, 1, 2, 4, 4]


# -- the challenge policy -------------------------------------------------------------------------

def challenge(**over: object) -> dict[str, object]:
    c: dict[str, object] = {
        "id": "Abcd1234", "status": "created", "rated": True,
        "challenger": {"id": "alice", "name": "Alice", "title": None, "rating": 1700},
        "variant": {"key": "standard", "name": "Standard", "short": "Std"},
        "timeControl": {"type": "clock", "limit": 300, "increment": 3, "show": "5+3"},
        "color": "random"}
    c.update(over)
    return {"type": "challenge", "challenge": c}


@pytest.mark.parametrize("over, accept, reason", [
    ({}, True, None),
    ({"challenger": {"id": "mallory", "name": "Mallory"}}, False, DeclineReason.GENERIC),
    ({"variant": {"key": "frisian"}}, False, DeclineReason.VARIANT),
    ({"variant": {"key": "russian"}}, False, DeclineReason.VARIANT),  # a 10x10 board
    ({"variant": {"key": "weird"}}, False, DeclineReason.VARIANT),
    ({"initialFen": "W:W31:B19"}, False, DeclineReason.VARIANT),
    ({"timeControl": {"type": "correspondence", "daysPerTurn": 2}}, False,
     DeclineReason.TIME_CONTROL),
    ({"timeControl": {"type": "clock", "limit": 0, "increment": 2}}, False,
     DeclineReason.TIME_CONTROL),
    ({"timeControl": {"type": "clock", "limit": 15, "increment": 0}}, False,
     DeclineReason.TOO_FAST),
    ({"timeControl": {"type": "unlimited"}}, True, None),
])
def test_challenges_are_taken_as_configured(over: dict[str, object], accept: bool,
                                            reason: DeclineReason | None) -> None:
    policy = ChallengePolicy.parse("alice,bob", board_size=10)
    decision = policy.decide(read_challenge(challenge(**over)), busy=False)
    assert (decision.accept, decision.reason) == (accept, reason)
    assert accept or decision.why


def test_anyone_may_challenge_a_free_board_only() -> None:
    policy = ChallengePolicy.parse("any")
    c = read_challenge(challenge(challenger={"id": "zed", "name": "Zed"}))
    assert policy.decide(c, busy=False).accept
    busy = policy.decide(c, busy=True)
    assert (busy.accept, busy.reason) == (False, DeclineReason.LATER)


@pytest.mark.parametrize("over", [{"id": "../../x"}, {"id": 5}, {"variant": "standard"},
                                  {"timeControl": {"type": "clock", "limit": "300"}},
                                  {"rated": "yes"}])
def test_a_hostile_challenge_is_a_protocol_error(over: dict[str, object]) -> None:
    with pytest.raises(ProtocolError):
        read_challenge(challenge(**over))
