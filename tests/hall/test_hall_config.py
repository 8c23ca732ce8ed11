"""A board's hall settings: the [broker] section, the command line, broker URLs, and the
round setup message's checks (each bad input one clear line)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from boardctl.hall.board import HallBoard, broker_settings
from boardctl.hall.mqtt import board_of, parse_broker
from boardctl.hall.setup import SetupError, parse_setup
from boardctl.settings import load_config
from firmware.errors import BoardError, ConfigError


def args(**kw: object) -> argparse.Namespace:
    base = {"broker": None, "hall": None, "board": None, "broker_user": None,
            "broker_password_file": None, "broker_ca": None}
    return argparse.Namespace(**{**base, **kw})


def test_the_broker_section_names_the_board(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    path = tmp_path / "c.toml"
    path.write_text(f'[broker]\nurl = "mqtts://relay.local"\nhall = "open26"\nboard = "b12"\n'
                    f'username = "b12"\npassword_file = "{secret}"\nkeepalive = 5\n'
                    'reconnect_max = 0.5\n')
    config = load_config(path)
    settings = broker_settings(args(), config.broker, str(path))
    assert settings is not None
    assert (settings.hall, settings.board) == ("open26", "b12")
    assert settings.broker.tls and settings.broker.port == 8883
    assert (settings.broker.username, settings.broker.password) == ("b12", "s3cret")
    assert settings.reconnect_max == 0.5
    hall_board = HallBoard(settings, tmp_path)  # the link's backoff stops there
    assert (hall_board.link.backoff_min, hall_board.link.backoff_max) == (0.2, 0.5)
    hall_board.link.close()
    assert load_config(None).broker.reconnect_max == 5.0  # the default
    over = broker_settings(args(board="b13"), config.broker, str(path))
    assert over is not None and over.board == "b13"  # the command line wins


@pytest.mark.parametrize(("text", "expect"), [
    ('[broker]\nurl = "http://x"\n', "broker.url"),
    ('[broker]\nhall = "a/b"\n', "broker.hall"),
    ('[broker]\nboard = "+"\n', "broker.board"),
    ('[broker]\nkeepalive = 0\n', "broker.keepalive"),
    ('[broker]\nreconnect_max = 0\n', "broker.reconnect_max"),
    ('[broker]\nreconnect_max = "1"\n', "broker.reconnect_max"),
    ('[broker]\nhal = "x"\n', "did you mean 'hall'"),
])
def test_bad_broker_sections_are_named(tmp_path: Path, text: str, expect: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=expect.replace("+", r"\+")):
        load_config(path)


def test_no_name_from_the_hostname_alone(tmp_path: Path) -> None:
    section = load_config(None).broker
    with pytest.raises(BoardError, match="--board is needed"):
        broker_settings(args(broker="mqtt://h:1", hall="H"), section, "x")
    with pytest.raises(BoardError, match="--hall is needed"):
        broker_settings(args(broker="mqtt://h:1", board="b"), section, "x")
    with pytest.raises(BoardError, match="needs --broker"):
        broker_settings(args(hall="H"), section, "x")
    assert broker_settings(args(board="b1"), section, "x") is None  # a PDN tag only


@pytest.mark.parametrize("url", ["mqtt://", "tcp://h:1", "mqtt://h:99999", "mqtt://h:1/x"])
def test_bad_broker_urls(url: str) -> None:
    with pytest.raises(BoardError, match="--broker"):
        parse_broker(url)


def test_topics() -> None:
    assert board_of("H", "kabelaud/H/b1/feed", "feed") == "b1"
    assert board_of("H", "kabelaud/H/b 1/feed", "feed") is None
    assert board_of("H", "kabelaud/G/b1/feed", "feed") is None
    assert board_of("H", "kabelaud/H/b1/x/feed", "feed") is None


GOOD = {"type": "setup", "id": "H-r1-b1", "rules": "russian", "time_control": "300+5",
        "fen": None, "tags": {"White": "A", "Round": 1}, "extra": [1, 2]}


def test_a_good_setup_and_a_clear() -> None:
    setup = parse_setup(json.dumps(GOOD).encode())
    assert setup is not None and setup.tags == {"White": "A", "Round": "1"}
    request = setup.command("b1")
    assert request["cmd"] == "new" and request["tags"]["Board"] == "b1"
    assert parse_setup(b"") is None


@pytest.mark.parametrize(("change", "expect"), [
    ({"type": "move"}, '"type": "setup"'),
    ({"id": ""}, "'id'"),
    ({"rules": "chess"}, "chess"),
    ({"time_control": "soon"}, "H-r1-b1"),
    ({"tags": {"Bad Tag": "x"}}, "not a PDN tag"),
    ({"tags": {"White": "a\nb"}}, "White"),
    ({"tags": [1]}, "'tags'"),
])
def test_bad_setups_say_why(change: dict, expect: str) -> None:
    with pytest.raises(SetupError, match=expect):
        parse_setup(json.dumps({**GOOD, **change}).encode())


def test_hostile_setup_payloads() -> None:
    for payload in (b"[" * 10_000, b"\xff", b"x" * 20_000, b"null"):
        with pytest.raises(SetupError):
            parse_setup(payload)


def test_a_setup_applied_in_process_shows_the_pairing_on_the_faces(tmp_path: Path) -> None:
    """The applier on a simulated service (virtual clock): applied between games through the
    control path, reported on the feed, the pairing on the faces until the clock starts, and
    the same id never applied twice."""
    from support.service_helpers import sim_service

    from boardctl.hall.setup import SetupApplier
    from firmware.formats.feed import decode_line
    from firmware.rules.sets import Side

    lines: list[str] = []
    service, clock = sim_service(tmp_path / "st", lines=lines)
    service.boot()
    logs: list[str] = []
    applier = SetupApplier(tmp_path / "st", "b1", command=service.command,
                           call_soon=service.call_soon, emit=service.emit, log=logs.append,
                           show=lambda note: setattr(service, "face_note", note))
    first = service.status(0)["game"]
    payload = json.dumps({**GOOD, "rules": "international",
                          "tags": {"Round": "3", "Board": "12", "White": "A"}}).encode()
    applier.receive(payload)
    clock.now += 10_000_000
    service.step(clock.now)
    status = service.status(0)
    assert status["game"] != first and status["tags"]["Board"] == "12"
    faces = service.hw.faces
    assert (faces.shown(Side.WHITE).digits, faces.shown(Side.BLACK).digits) == ("r  3", "b 12")
    reports = [r for r in map(decode_line, lines) if r and r["type"] == "setup"]
    assert [(r["id"], r["status"]) for r in reports] == [("H-r1-b1", "applied")]
    applier.receive(payload)  # the retained message again (a reconnection)
    clock.now += 10_000_000
    service.step(clock.now)
    assert service.status(0)["game"] == status["game"]
    again = SetupApplier(tmp_path / "st", "b1", command=service.command,
                         call_soon=service.call_soon, emit=service.emit, log=logs.append)
    assert again.applied == "H-r1-b1"  # kept across a reboot
    service.close()
