"""The board page's parts on their own: the gate (passwords, sessions, the slowdown, on an
injected clock), the settings (listen address, password file, the config's [http]), the
state made from a real service's status, the new-game request, the games of a real state
directory."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from support.service_helpers import RealClock, sim_service

from boardctl.page import gate as gate_module
from boardctl.page.archive import GameArchive, replay_pdn, started_at, summary
from boardctl.page.gate import Gate
from boardctl.page.options import choices, new_request
from boardctl.page.replies import BadRequest
from boardctl.page.settings import page_settings, parse_listen, read_password
from boardctl.page.view import page_state
from boardctl.settings import load_config, parse_settings
from firmware.errors import BoardError


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_wrong_passwords_wait_longer_each_time_per_client() -> None:
    clock = Clock()
    gate = Gate(b"sesame", clock=clock)
    assert [gate.try_password(b"x", "10.0.0.5") is not None for _ in range(3)] == [True] * 3
    slowed = gate.try_password(b"sesame", "10.0.0.5")  # the right one, too early: not looked at
    assert slowed is not None and slowed.status == 429 and ("Retry-After", "1") in slowed.headers
    assert gate.try_password(b"sesame", "10.0.0.6") is None  # another client is not slowed
    waits = []
    for _ in range(8):
        clock.now += 1000
        gate.try_password(b"x", "10.0.0.5")
        refusal = gate.try_password(b"x", "10.0.0.5")
        assert refusal is not None and refusal.status == 429
        waits.append(int(dict(refusal.headers)["Retry-After"]))
    assert waits == sorted(waits) and waits[-1] == 60  # doubling, up to a minute
    clock.now += 61
    assert gate.try_password(b"sesame", "10.0.0.5") is None  # then the right one opens,
    assert gate.try_password(b"x", "10.0.0.5").status == 401  # and the count starts again


def test_the_gate_remembers_a_bounded_number_of_clients_and_sessions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate_module, "MAX_CLIENTS", 10)
    monkeypatch.setattr(gate_module, "MAX_SESSIONS", 3)
    gate = Gate(b"pw", clock=Clock())
    for i in range(50):
        for _ in range(4):
            gate.try_password(b"x", f"client{i}")
    assert len(gate._strikes) == 10  # the oldest forgotten
    tokens = [gate.sign_in() for _ in range(5)]
    assert len(gate._sessions) == 3
    assert not gate.session(f"board_session={tokens[0]}")
    assert gate.session(f"a=b; board_session={tokens[-1]}; c=d")


def test_sessions_expire_and_the_cookie_is_strict() -> None:
    clock = Clock()
    gate = Gate(b"pw", clock=clock)
    token = gate.sign_in()
    cookie = gate.cookie(token)
    assert cookie.startswith(f"board_session={token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert gate.admit({"Cookie": f"board_session={token}"}, "c", changing=True) is None
    clock.now += gate_module.SESSION_S + 1
    refusal = gate.admit({"Cookie": f"board_session={token}"}, "c", changing=True)
    assert refusal is not None and refusal.status == 401


def test_without_a_password_everything_is_open_and_reading_closes_only_with_one() -> None:
    open_gate = Gate(None)
    assert open_gate.admit({}, "c", changing=True) is None and not open_gate.protected
    closed = Gate(b"pw", read_open=False)
    assert closed.admit({}, "c", changing=False).status == 401
    assert Gate(b"pw").admit({}, "c", changing=False) is None


@pytest.mark.parametrize(("text", "host", "port"), [
    ("0.0.0.0:8080", "0.0.0.0", 8080), ("127.0.0.1:0", "127.0.0.1", 0),
    ("[::]:80", "::", 80), (":8080", "", 8080), ("boardpi.local:8000", "boardpi.local", 8000),
])
def test_listen_addresses(text: str, host: str, port: int) -> None:
    assert parse_listen(text) == (host, port)


@pytest.mark.parametrize("text", ["8080", "host:", "a b:80", "1.2.3.4:70000", "[zz]:80", ""])
def test_bad_listen_addresses_are_one_line(text: str) -> None:
    with pytest.raises(BoardError, match="expected HOST:PORT"):
        parse_listen(text)


def test_the_password_file_is_read_once_and_never_quoted(tmp_path: Path) -> None:
    good = tmp_path / "pw"
    good.write_bytes(b"  s3cret word \nsecond line ignored\n")
    assert read_password(good) == b"s3cret word"
    big = tmp_path / "big"
    big.write_bytes(b"x" * 5000)
    for path, says in ((tmp_path / "none", "no such file"), (tmp_path, "is a directory"),
                       (big, "larger than 4096"), (tmp_path / "empty", "holds no password")):
        if path.name == "empty":
            path.write_text("\n")
        with pytest.raises(BoardError, match=says) as err:
            read_password(path)
        assert "x" * 20 not in str(err.value)


def test_the_command_line_wins_over_the_config(tmp_path: Path) -> None:
    pw = tmp_path / "pw"
    pw.write_text("one")
    section = parse_settings({"http": {"listen": "0.0.0.0:8080", "password_file": str(pw),
                                     "read": "password"}}).http
    settings = page_settings(None, None, section)
    assert settings is not None and (settings.host, settings.port) == ("0.0.0.0", 8080)
    assert settings.password == b"one" and settings.read_open is False
    other = tmp_path / "other"
    other.write_text("two")
    mine = page_settings("127.0.0.1:9000", other, section)
    assert mine is not None and mine.listen == "127.0.0.1:9000" and mine.password == b"two"
    assert page_settings(None, None, parse_settings({}).http) is None
    with pytest.raises(BoardError, match="needs a password file"):
        page_settings("127.0.0.1:1", None, SimpleNamespace(listen="", password_file="",
                                                           read="password"))


def test_the_example_configs_page_section_reads_when_uncommented(tmp_path: Path) -> None:
    example = (Path(__file__).resolve().parents[2] / "hw" / "config.example.toml").read_text()
    start = example.index("# [http]")
    section = example[start:].split("\n\n", 1)[0]  # the section's lines, to its blank line
    block = [line[2:] for line in section.splitlines() if line.startswith("# ")
             and not line.startswith("#  ")]
    path = tmp_path / "c.toml"
    path.write_text(example[:start] + "\n".join(block) + "\n")
    http = load_config(path).http
    assert http.listen == "0.0.0.0:8080" and http.read == "open"
    assert http.password_file == "/etc/boardctl/page.password"


@pytest.mark.parametrize(("section", "says"), [
    ({"listen": "8080"}, "http.listen: '8080' is not HOST:PORT"),
    ({"read": "everyone"}, "http.read: 'everyone' is not one of open, password"),
    ({"passwd_file": "x"}, "did you mean 'password_file'"),
])
def test_bad_http_sections_name_the_key(section: dict[str, Any], says: str) -> None:
    with pytest.raises(BoardError, match=says):
        parse_settings({"http": section})


def test_a_new_game_request_as_the_control_socket_takes_it() -> None:
    assert new_request({"rules": "russian", "time_control": None, "white": " Ann ",
                        "black": "", "engine": None, "engine_side": "black",
                        "engine_level": "3", "fen": "W:W21:B1", "force": True}) == {
        "cmd": "new", "rules": "russian", "time_control": "none", "engine": None,
        "engine_side": "black", "engine_level": "3", "fen": "W:W21:B1", "force": True,
        "tags": {"White": "Ann"}}
    assert new_request({}) == {"cmd": "new"}
    for body, says in (({"rule": "x"}, "unknown key 'rule'"),
                       ({"black": 7}, "'black' must be a player's name"),
                       ({"white": "x" * 81}, "at most 80")):
        with pytest.raises(BadRequest, match=says):
            new_request(body)


def test_the_choices_are_the_boards_rule_sets_and_the_presets_with_sources() -> None:
    eight, ten = choices(8), choices(10)
    assert "russian" in eight["rules"] and "international" not in eight["rules"]
    assert ten["rules"] == ["international", "international1953"]
    blitz = next(p for p in ten["presets"] if p["name"] == "fmjd-blitz")
    assert blitz["control"] == "300+3@start" and "wcblitz2023" in blitz["source"]
    assert [lv["level"] for lv in ten["levels"]] == [str(n) for n in range(1, 11)]


def test_the_state_from_a_real_services_status(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path / "state", tc="300+5")
    service.boot()
    try:
        service.step(clock.now)
        status = service.command({"cmd": "status"})
        state = page_state(status)
        assert state["clock"] == {"white": 300_000, "black": 300_000, "running": None}
        assert state["sq"] == "b" * 20 + "." * 10 + "w" * 20 and state["last"] is None
        engine = {"name": "builtin", "side": "black", "level": "5", "move": {
            "ply": 2, "side": "black", "move": "19-23", "route": ["h6", "g5"],
            "captured": []}, "thinking": False, "pid": 42}
        with_engine = page_state({**status, "engine": engine, "moves": ["32-28"], "ply": 1,
                                  "turn": "black"})
        assert with_engine["opponent"] == {"kind": "engine", "side": "black", "level": "5",
                                           "name": "builtin"}
        assert with_engine["engine"]["move"]["move"] == "19-23" and "pid" not in \
            with_engine["engine"]
        assert with_engine["last"] == {"ply": 1, "side": "white", "move": "32-28",
                                       "hl": [32, 28]}
        remote = {"ply": 2, "side": "black", "move": "19-23", "route": ["h6", "g5"],
                  "captured": [], "source": "board:B7"}
        assert page_state(status, remote)["opponent"] == {"kind": "board", "side": "black",
                                                          "name": "B7"}
        lidraughts = page_state(status, {**remote, "source": "lidraughts"})
        assert lidraughts["opponent"]["kind"] == "lidraughts"
        assert page_state(status, {**remote, "source": "train"})["opponent"] is None
    finally:
        service.close()


def test_the_games_of_a_state_directory(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path / "state", tc=None)
    service.boot()
    first = service.header.id
    service.command({"cmd": "result", "result": "2-0", "reason": "arbiter"})
    service.command({"cmd": "new", "tags": {"White": "Ann"}})
    # the new game's journal is there once `new` is answered (it waited a second for the
    # last write's retry time, forever on a clock that stands still)
    assert (tmp_path / "state" / "games" / f"{service.header.id}.jsonl").is_file()
    service.close()
    archive = GameArchive(tmp_path / "state")
    games = archive.games()
    assert [g["id"] for g in games] == [service.header.id, first]
    assert games[1]["result"] == "2-0" and games[0]["white"] == "Ann"
    pdn = archive.pdn(first)
    assert pdn is not None and '[Result "2-0"]' in pdn
    assert replay_pdn(first, pdn)["moves"] == []
    assert archive.pdn("nope") is None and archive.pdn("../state") is None
    journal = tmp_path / "state" / "games" / f"{first}.jsonl"
    damaged = journal.read_bytes().replace(b'"2-0"', b'"2-1"')
    journal.write_bytes(damaged)
    entry = summary(journal, 0.0)
    assert "error" in entry  # named, not a wrong answer
    assert started_at("20260102T030405-abcdef", 0.0) == "2026-01-02T03:04:05Z"


def test_the_live_state_follows_a_real_service_on_its_threads(tmp_path: Path) -> None:
    """A move made by the simulated hand reaches the page's channel as a state with its FEN
    (the service on real time, the page's thread asking it)."""
    import threading

    from boardctl.page.live import FeedLines, PageLive
    from boardctl.terminal.play import Hand

    lines = FeedLines()
    service, _ = sim_service(tmp_path / "state", clock=RealClock(), sinks=[lines])
    stop = threading.Event()
    runner = threading.Thread(target=service.run, args=(stop,))
    runner.start()
    live = PageLive(service, lines, poll=0.2)
    try:
        while service.inbox.referee is None or service.session is None:
            stop.wait(0.01)
        live.channel.clients = 1  # someone watches
        live.start()
        hand = Hand(SimpleNamespace(ask=lambda cmd, **args: service.command({"cmd": cmd,
                                                                           **args})))
        service.command({"cmd": "start"})
        assert hand.line("32-28").endswith("made")
        fen = service.command({"cmd": "status"})["fen"]
        deadline = 200
        while deadline and fen not in live.state()[1]:
            stop.wait(0.05)
            deadline -= 1
        assert fen in live.state()[1] and live.published >= 2
        number, text = live.state()
        assert number == live.channel.last and '"ply":1' in text
    finally:
        live.close()
        stop.set()
        runner.join(timeout=20)


def test_the_live_state_reads_feed_lines_once_and_keeps_the_remote_move() -> None:
    """Feed lines as the service frames them, read through the one reader: a remote side's
    move kept until a move of its ply (or a new game, a takeback) comes, the last line's
    number kept, a damaged line skipped."""
    from boardctl.page.live import FeedLines, PageLive
    from firmware.formats.feed import frame
    from firmware.formats.records import GameRecord, MoveRecord, RemoteMoveRecord

    lines = FeedLines()
    live = PageLive(SimpleNamespace(command=lambda request: {"ok": False}), lines)
    remote = RemoteMoveRecord(2, "black", "19-23", ("h6", "g5"), (), "board:B2")
    lines.send(frame(MoveRecord(1, "white", "32-28"), 4, "g1"))
    lines.send(frame(remote, 5, "g1"))
    lines.send("{garbled\n")
    assert live.remote == {"ply": 2, "side": "black", "move": "19-23", "route": ["h6", "g5"],
                           "captured": [], "source": "board:B2"}
    assert live._seq == 5
    lines.send(frame(MoveRecord(2, "black", "19-23"), 6, "g1"))
    assert live.remote is None
    lines.send(frame(remote, 7, "g1"))
    lines.send(frame(GameRecord("international", None, None, {}), 8, "g2"))
    assert live.remote is None and live._seq == 8
    assert live.status() is None  # a service that refuses: nothing made
