"""The relay's HTTP over TLS (``--tls-cert``, ``--tls-key``): the desk's token travels inside
HTTPS; a plain-HTTP client gets nothing; a client stalled in its handshake holds no one else up;
certificate files that do not work are one line. The desk's own answers without a broker."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardctl.hall.mqtt import parse_broker
from boardctl.relay.desk import Desk, serve_tls
from boardctl.relay.http import PdnServer
from firmware.errors import BoardError

TOKEN = "desk-token-123"


@pytest.fixture
def https(tmp_path: Path) -> Iterator[tuple[PdnServer, ssl.SSLContext]]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server = PdnServer(("127.0.0.1", 0), hall="H")
    serve_tls(server, str(cert), str(key))
    desk = Desk(parse_broker("mqtt://127.0.0.1:1"), "H", b"k" * 32, TOKEN)  # never started
    server.extra_handlers.insert(0, desk.handle)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, ssl.create_default_context(cafile=str(cert))
    finally:
        server.shutdown()
        server.server_close()


def post(server: PdnServer, context: ssl.SSLContext, token: str | None, body: bytes
         ) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPSConnection("127.0.0.1", server.server_address[1], context=context,
                                       timeout=5)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    conn.request("POST", "/arbiter/b1", body=body, headers=headers)
    resp = conn.getresponse()
    answer = resp.status, json.loads(resp.read())
    conn.close()
    return answer


def test_the_desk_over_https(https: tuple[PdnServer, ssl.SSLContext]) -> None:
    server, context = https
    stalled = socket.create_connection(("127.0.0.1", server.server_address[1]))  # no hello
    try:
        assert post(server, context, None, b'{"cmd":"pause"}')[0] == 401
        assert post(server, context, "wrong-token-1", b'{"cmd":"pause"}')[0] == 403
        assert post(server, context, TOKEN, b"[]")[0] == 400
        code, answer = post(server, context, TOKEN, b'{"cmd":"pause"}')
        assert code == 503 and "not connected" in str(answer["error"])
        conn = http.client.HTTPSConnection("127.0.0.1", server.server_address[1],
                                           context=context, timeout=5)
        conn.request("GET", "/H.pdn")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        stalled.close()
    plain = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
    with pytest.raises((http.client.HTTPException, OSError)):
        plain.request("POST", "/arbiter/b1", body=b'{"cmd":"pause"}',
                      headers={"Authorization": f"Bearer {TOKEN}"})
        plain.getresponse().read()
    plain.close()


def test_certificate_files_that_do_not_work(tmp_path: Path) -> None:
    server = PdnServer(("127.0.0.1", 0), hall="H")
    try:
        (tmp_path / "c.pem").write_text("not a certificate\n")
        with pytest.raises(BoardError, match="cannot use them"):
            serve_tls(server, str(tmp_path / "c.pem"), str(tmp_path / "c.pem"))
        with pytest.raises(BoardError, match="cannot use them"):
            serve_tls(server, str(tmp_path / "missing.pem"), str(tmp_path / "missing.pem"))
    finally:
        server.server_close()
