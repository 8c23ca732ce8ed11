"""What a new arbiter reads from ``boardctl relay`` (issue 36 item 8), from a real relay process
on a real Mosquitto: a 404 that names the hall's own paths, a round name that can be no round
(a 404, where a round not started yet is an empty 200), a one-line plain text answer to DELETE
and to an unknown method (never http.server's HTML page), and no "broker lost ...
reconnecting" when the relay is stopped."""

from __future__ import annotations

import socket
import urllib.parse
from pathlib import Path

from support.hall_helpers import RelayProcess
from support.mqtt_broker import Mosquitto


def raw(url: str, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """One request by hand (any method), the connection closed after it."""
    where = urllib.parse.urlsplit(url)
    with socket.create_connection((where.hostname, where.port), timeout=10) as sock:
        sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                     .encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def test_the_relay_s_words_to_a_new_arbiter(mosquitto: Mosquitto, tmp_path: Path) -> None:
    relay = RelayProcess(mosquitto.url, "tartu", tmp_path).start()
    try:
        code, body = relay.get("/tartu/games.pdn")
        text = body.decode()
        assert code == 404 and text.count("\n") == 1
        assert "/tartu.pdn" in text and "/tartu/round/R.pdn" in text and "HALL" not in text
        assert relay.get("/tartu/round/3.pdn") == (200, b"")  # a round not started yet
        code, body = relay.get("/tartu/round/abc.pdn")
        assert code == 404 and "no game has Round 'abc'" in body.decode()
        code, headers, body = raw(relay.url, "DELETE", "/tartu.pdn")
        assert code == 405 and headers["Allow"] == "GET, HEAD, POST"
        assert headers["Content-Type"].startswith("text/plain") and body.count(b"\n") == 1
        assert b"DELETE is not allowed" in body
        code, headers, body = raw(relay.url, "FROB", "/tartu.pdn")
        assert code == 501 and headers["Content-Type"].startswith("text/plain")
        assert b"<" not in body and body.count(b"\n") == 1
    finally:
        assert relay.stop() == 0
    said = relay.stderr()
    assert "relay: following" in said
    assert "lost" not in said and "reconnecting" not in said, said
