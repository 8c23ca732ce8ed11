"""Who may change and read through the board's page, against real ``boardctl run --sim --http``
processes: with ``--http-password-file`` every POST needs ``Authorization: Bearer`` or the
page's session cookie (HttpOnly, SameSite=Strict), 401 otherwise, and nothing changes; wrong
passwords are slowed down (429 with Retry-After); reading stays open unless the config's
``[http] read = "password"``; the password is never written to the log; a bad password file or
listen address stops the start with one line."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.page_helpers import BOARDCTL, PageBoard

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageBoard]:
    folder = tmp_path_factory.mktemp("page-password")
    secret = folder / "page.password"
    secret.write_text(PASSWORD + "\n")
    page = PageBoard(folder / "state", "--http-password-file", str(secret))
    try:
        yield page
    finally:
        page.stop()


def game(board: PageBoard) -> str:
    return str(board.get("/api/state").json()["game"])


def test_a_change_needs_the_password_reading_does_not(locked: PageBoard) -> None:
    before = game(locked)  # GET is open
    reply = locked.post("/api/new", {"force": True})
    assert reply.status == 401 and "password is needed" in reply.error
    assert reply.headers["WWW-Authenticate"].startswith("Bearer")
    assert game(locked) == before
    wrong = locked.post("/api/new", {"force": True}, headers={"Authorization": "Bearer nope"})
    assert wrong.status == 401 and wrong.error == "wrong password"
    basic = locked.post("/api/new", {}, headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert basic.status == 401 and game(locked) == before
    right = locked.post("/api/new", {"force": True},
                        headers={"Authorization": f"Bearer {PASSWORD}"})
    assert right.status == 200 and right.json()["game"] != before
    assert game(locked) == right.json()["game"]
    options = locked.get("/api/options").json()
    assert options["password"] is True and options["read_open"] is True
    assert options["signed_in"] is False


def test_the_page_signs_in_with_a_session_cookie(locked: PageBoard) -> None:
    wrong = locked.post("/api/login", {"password": "guess"})
    assert wrong.status == 401 and "Set-Cookie" not in wrong.headers
    reply = locked.post("/api/login", {"password": PASSWORD})
    assert reply.status == 200 and reply.json() == {"signed_in": True}
    cookie = reply.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    session = cookie.split(";")[0]
    assert PASSWORD not in cookie
    signed = locked.post("/api/new", {"force": True}, headers={"Cookie": session})
    assert signed.status == 200
    assert locked.get("/api/options", headers={"Cookie": session}).json()["signed_in"] is True
    forged = locked.post("/api/new", {"force": True},
                         headers={"Cookie": "board_session=" + "A" * 32})
    assert forged.status == 401
    out = locked.post("/api/logout", {}, headers={"Cookie": session})
    assert out.status == 200 and "Max-Age=0" in out.headers["Set-Cookie"]
    assert locked.post("/api/new", {"force": True}, headers={"Cookie": session}).status == 401


def test_wrong_passwords_are_slowed_down_then_even_the_right_one_waits(
        locked: PageBoard) -> None:
    statuses = [locked.post("/api/login", {"password": f"guess{i}"}).status for i in range(6)]
    assert statuses[:3] == [401, 401, 401]
    assert 429 in statuses[3:]  # the fourth try came before its wait was over
    slowed = locked.post("/api/new", {}, headers={"Authorization": f"Bearer {PASSWORD}"})
    assert slowed.status == 429 and "try again in" in slowed.error
    assert int(slowed.headers["Retry-After"]) >= 1


def test_the_password_is_never_logged(locked: PageBoard) -> None:
    locked.post("/api/new", {}, headers={"Authorization": "Bearer another-wrong-one"})
    assert PASSWORD not in locked.log.read_text()
    assert "another-wrong-one" not in locked.log.read_text()


def test_reading_closed_by_the_config(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text(PASSWORD)
    config = tmp_path / "board.toml"
    config.write_text(f'[http]\nlisten = "127.0.0.1:0"\npassword_file = "{secret}"\n'
                      'read = "password"\n')
    board = PageBoard(tmp_path / "state", "--config", str(config), listen=None)
    try:
        for path in ("/api/state", "/api/games", "/api/events"):
            reply = board.get(path)
            assert reply.status == 401 and "password" in reply.error, path
        assert board.get("/").status == 200  # the page itself: its sign-in form
        options = board.get("/api/options").json()
        assert options["read_open"] is False and options["signed_in"] is False
        bearer = {"Authorization": f"Bearer {PASSWORD}"}
        assert board.get("/api/state", headers=bearer).status == 200
        assert board.get("/api/games", headers=bearer).json()[0]["current"] is True
    finally:
        board.stop()


@pytest.mark.parametrize(("args", "says"), [
    (["--http", "nowhere"], "--http 'nowhere': expected HOST:PORT"),
    (["--http", "127.0.0.1:0", "--http-password-file", "/nonexistent/pw"],
     "--http-password-file /nonexistent/pw: no such file"),
    (["--http-password-file", "/etc/hostname"], "--http-password-file needs --http"),
    (["--http", "127.0.0.1:0", "--http-password-file", "EMPTY"], "holds no password"),
])
def test_a_bad_page_setting_stops_the_start_in_one_line(
        tmp_path: Path, args: list[str], says: str) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n\n")
    args = [str(empty) if a == "EMPTY" else a for a in args]
    done = subprocess.run([*BOARDCTL, "run", "--sim", "--state-dir", str(tmp_path / "s"), *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in done.stderr


def test_a_port_in_use_is_told_before_the_board_starts(tmp_path: Path,
                                                       locked: PageBoard) -> None:
    done = subprocess.run([*BOARDCTL, "run", "--sim", "--state-dir", str(tmp_path / "s"),
                           "--http", f"127.0.0.1:{locked.port}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "cannot listen there" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
