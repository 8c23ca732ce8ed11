"""A hall broker that asks for TLS and a password (Mosquitto with a CA and a password file
made here): the board's link and the relay log in; a wrong password is refused with a line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hall_helpers import wait_for
from mqtt_broker import Mosquitto, require_mosquitto

from boardctl.broker import BoardLink, instance_id
from boardctl.hall_relay import HallFollower
from boardctl.mqtt import parse_broker


def make_certs(d: Path) -> None:
    def ssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=60)

    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=hall CA",
        "-keyout", "ca.key", "-out", "ca.pem")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", "server.key", "-out", "server.csr")
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "san.cnf", "-out", "server.pem")


def test_tls_and_password(tmp_path: Path) -> None:
    require_mosquitto()
    if not shutil.which("openssl") or not shutil.which("mosquitto_passwd"):
        pytest.fail("openssl and mosquitto_passwd come with the test dependencies")
    make_certs(tmp_path)
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwd), "b1", "s3cret"], check=True,
                   capture_output=True, timeout=30)
    passwd.chmod(0o600)
    broker = Mosquitto(tmp_path / "broker", anonymous=False, extra=(
        f"password_file {passwd}\ncafile {tmp_path}/ca.pem\n"
        f"certfile {tmp_path}/server.pem\nkeyfile {tmp_path}/server.key\n"))
    url = f"mqtts://127.0.0.1:{broker.port}"
    logs: list[str] = []
    with broker:
        good = parse_broker(url, username="b1", password="s3cret", ca_file=f"{tmp_path}/ca.pem")
        follower = HallFollower(good, "H", log=logs.append).start()
        link = BoardLink(good, "H", "b1", instance_id(tmp_path / "st"), log=logs.append,
                         backoff=(0.05, 0.2)).start()
        bad = BoardLink(parse_broker(url, username="b1", password="wrong",
                                     ca_file=f"{tmp_path}/ca.pem"),
                        "H", "b2", instance_id(tmp_path / "st2"), log=logs.append,
                        backoff=(0.05, 0.2)).start()
        try:
            wait_for(follower.subscribed.is_set, what="the relay over TLS")
            wait_for(lambda: link.state == "ready", what="the board over TLS")
            link.send("hello")
            wait_for(lambda: ("b1", b"hello") in follower.drain() or None, what="a line")
            wait_for(lambda: any("refused the connection" in x for x in logs),
                     what="the wrong password refused")
            assert bad.state != "ready"
        finally:
            link.close()
            bad.close()
            follower.close()
