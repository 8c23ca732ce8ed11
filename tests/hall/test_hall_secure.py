"""A hall broker that asks for TLS and a password (Mosquitto with a CA and a password file
made here): the board's link and the relay log in; a wrong password is refused with a line.
The CA and the broker's certificate are made by the commands docs/HALL.md gives; one made as
many tutorials make it (no key usage) is refused on every Python, with the reason."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support.hall_helpers import wait_for
from support.mqtt_broker import Mosquitto, require_mosquitto

from boardctl.hall.broker import BoardLink, instance_id
from boardctl.hall.mqtt import parse_broker
from boardctl.hall.publish import Broker, publish
from boardctl.relay.follower import HallFollower
from firmware.errors import BoardError

ROOT = Path(__file__).resolve().parents[2]


def docs_recipe() -> str:
    """The shell block docs/HALL.md gives for the hall's CA and the broker's certificate."""
    text = (ROOT / "docs" / "HALL.md").read_text()
    found = re.search(r"<!-- hall-tls-recipe[^>]*-->\n```sh\n(.*?)```", text, re.S)
    assert found, "docs/HALL.md lost its TLS recipe block"
    return found.group(1)


def make_certs(d: Path) -> None:
    """docs/HALL.md's commands, for a broker at 127.0.0.1: hall-ca.pem, broker.pem/.key."""
    script = docs_recipe().replace("192.168.1.10", "127.0.0.1")
    subprocess.run(["sh", "-e", "-c", script], cwd=d, check=True, capture_output=True,
                   timeout=120)


def make_tutorial_certs(d: Path) -> None:
    """A CA as many tutorials make it (``openssl req -x509``: no key usage extension) and a
    broker certificate it signs, with the right address: hall-ca.pem, broker.pem/.key."""
    def ssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=60)

    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=hall CA",
        "-keyout", "hall-ca.key", "-out", "hall-ca.pem")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", "broker.key", "-out", "broker.csr")
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    ssl("x509", "-req", "-in", "broker.csr", "-CA", "hall-ca.pem", "-CAkey", "hall-ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "san.cnf", "-out", "broker.pem")


def tls_broker(d: Path, extra: str = "") -> Mosquitto:
    return Mosquitto(d / "broker", anonymous=not extra, extra=(
        f"{extra}cafile {d}/hall-ca.pem\n"
        f"certfile {d}/broker.pem\nkeyfile {d}/broker.key\n"))


def test_tls_and_password(tmp_path: Path) -> None:
    require_mosquitto()
    if not shutil.which("openssl") or not shutil.which("mosquitto_passwd"):
        pytest.fail("openssl and mosquitto_passwd come with the test dependencies")
    make_certs(tmp_path)
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwd), "b1", "s3cret"], check=True,
                   capture_output=True, timeout=30)
    passwd.chmod(0o600)
    broker = tls_broker(tmp_path, extra=f"password_file {passwd}\n")
    url = f"mqtts://127.0.0.1:{broker.port}"
    logs: list[str] = []
    with broker:
        good = parse_broker(url, username="b1", password="s3cret",
                            ca_file=f"{tmp_path}/hall-ca.pem")
        follower = HallFollower(good, "H", log=logs.append).start()
        link = BoardLink(good, "H", "b1", instance_id(tmp_path / "st"), log=logs.append,
                         backoff=(0.05, 0.2)).start()
        bad = BoardLink(parse_broker(url, username="b1", password="wrong",
                                     ca_file=f"{tmp_path}/hall-ca.pem"),
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


def test_a_ca_without_key_usage_is_refused_with_the_reason(tmp_path: Path) -> None:
    """Python 3.13 refuses such a CA by default, 3.11 would take it: the board, the relay and
    start-round refuse it on every Python alike (a hall that works at the organizer's desk
    works on every board), each saying which check failed and where the recipe is."""
    require_mosquitto()
    make_tutorial_certs(tmp_path)
    broker = tls_broker(tmp_path)
    ca = f"{tmp_path}/hall-ca.pem"
    reason = "the broker's certificate is refused: CA cert does not include key usage extension"
    logs: list[str] = []
    with broker:
        config = parse_broker(f"mqtts://127.0.0.1:{broker.port}", ca_file=ca)
        follower = HallFollower(config, "H", log=logs.append).start()
        link = BoardLink(config, "H", "b1", instance_id(tmp_path / "st"), log=logs.append,
                         backoff=(0.05, 0.2)).start()
        try:
            wait_for(lambda: [x for x in logs if x.startswith("relay:")], what="the relay's line")
            wait_for(lambda: [x for x in logs if x.startswith("broker ")], what="the board's")
            with pytest.raises(BoardError) as refused:
                publish(Broker("127.0.0.1", broker.port, tls=True, cafile=ca), [("t", b"x")])
        finally:
            link.close()
            follower.close()
        assert not follower.subscribed.is_set() and link.state != "ready"
    relay = next(x for x in logs if x.startswith("relay:"))
    board = next(x for x in logs if x.startswith("broker "))
    assert relay.startswith(f"relay: broker {config.url}: cannot connect: {reason}"), relay
    assert relay.endswith("(retrying)") and "docs/HALL.md" in relay
    assert board.startswith(f"broker {config.url}: cannot connect: {reason}"), board
    assert reason in str(refused.value) and "docs/HALL.md" in str(refused.value)
