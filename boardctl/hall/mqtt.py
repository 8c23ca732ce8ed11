"""What the boards and the relay of a hall share about the MQTT broker: its address and
credentials, the topic names, and a paho-mqtt client made from them.

Topics (docs/CONTRACT.md "Many boards over a network (MQTT)")::

    kabelaud/HALL/BOARD/feed     every feed line, QoS 1, in order (the line without its newline)
    kabelaud/HALL/BOARD/status   retained "online" / "offline" (the board's last will)
    kabelaud/HALL/BOARD/setup    the round's setup for the board (retained, docs/HALL.md)
    kabelaud/HALL/BOARD/claim    a board's "this name is mine" probe (docs/HALL.md)

HALL and BOARD match ``[A-Za-z0-9_-]+`` (:data:`NAME`), so that no name can reach into
another's topics (``+``, ``#`` and ``/`` are refused).
"""

from __future__ import annotations

import re
import socket
import ssl
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.errors import BoardError

NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
PREFIX = "kabelaud"
#: A feed line longer than this on a board topic is hostile or broken: dropped, counted.
MAX_PAYLOAD = 64 * 1024


def check_name(value: str, what: str) -> str:
    """``value`` if it is a hall or board name, else a BoardError naming ``what``."""
    if not isinstance(value, str) or NAME.fullmatch(value) is None:
        raise BoardError(f"{what}: {value!r} is not a name of 1-64 letters, digits, '-' or '_'")
    return value


def topic(hall: str, board: str, leaf: str) -> str:
    return f"{PREFIX}/{hall}/{board}/{leaf}"


def board_of(hall: str, name: str, leaf: str) -> str | None:
    """The BOARD of ``kabelaud/HALL/BOARD/leaf``, or None for any other topic."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != PREFIX or parts[1] != hall or parts[3] != leaf:
        return None
    return parts[2] if NAME.fullmatch(parts[2]) else None


@dataclass(frozen=True)
class BrokerConfig:
    """Where the broker is and how to log in (``mqtt://`` plain, ``mqtts://`` TLS)."""

    host: str
    port: int = 1883
    tls: bool = False
    ca_file: str | None = None
    username: str | None = None
    password: str | None = None
    keepalive: int = 10

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_broker(url: str, *, username: str | None = None, password: str | None = None,
                 ca_file: str | None = None, tls: bool | None = None,
                 keepalive: int = 10) -> BrokerConfig:
    """``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]`` (user:password@ allowed) -> config."""
    parsed = urllib.parse.urlsplit(url.strip())
    if parsed.scheme not in ("mqtt", "mqtts") or not parsed.hostname:
        raise BoardError(f"--broker {url!r}: expected mqtt://HOST:PORT or mqtts://HOST:PORT")
    try:
        port = parsed.port
    except ValueError:
        raise BoardError(f"--broker {url!r}: the port is not a number 1-65535") from None
    secure = parsed.scheme == "mqtts" if tls is None else tls
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise BoardError(f"--broker {url!r}: no path or query after HOST:PORT")
    if not 1 <= keepalive <= 3600:
        raise BoardError(f"broker keepalive must be 1-3600 seconds, not {keepalive}")
    return BrokerConfig(
        host=parsed.hostname,
        port=port or (8883 if secure else 1883),
        tls=secure,
        ca_file=ca_file,
        username=username if username is not None else (
            urllib.parse.unquote(parsed.username) if parsed.username else None),
        password=password if password is not None else (
            urllib.parse.unquote(parsed.password) if parsed.password else None),
        keepalive=keepalive,
    )


def make_client(config: BrokerConfig, client_id: str, *, clean: bool = True) -> Any:
    """A paho-mqtt (2.x) client for ``config``, not yet connected (MQTT 3.1.1)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         clean_session=clean, protocol=mqtt.MQTTv311)
    if config.username is not None:
        client.username_pw_set(config.username, config.password)
    if config.tls:
        client.tls_set_context(tls_context(config.ca_file))
    # Our own queues decide what waits while the broker is away; paho's only hold in flight.
    client.max_inflight_messages_set(100)
    return client


def add_login_options(group: Any) -> None:
    """The broker login options ``boardctl run`` and ``boardctl relay`` share."""
    group.add_argument("--broker-user", metavar="USER", help="broker user name (the password: "
                       "--broker-password-file or $BOARDCTL_BROKER_PASSWORD)")
    group.add_argument("--broker-password-file", type=Path, metavar="FILE",
                       help="file holding the broker password")
    group.add_argument("--broker-ca", metavar="FILE", help="CA file for a TLS broker (mqtts://)")


#: The longest password file read (a password is one short line; /dev/zero is not one).
MAX_SECRET = 4096


def read_secret(path: Path | str, what: str = "broker password file") -> str:
    """The first line of a password file, read with a bound (BoardError in one line for a
    file that cannot be read, is not UTF-8 text or is longer than :data:`MAX_SECRET`)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SECRET + 1)
    except OSError as exc:
        raise BoardError(f"{what} {path}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_SECRET:
        raise BoardError(f"{what} {path}: longer than {MAX_SECRET} bytes, not a password file")
    try:
        return data.decode("utf-8").split("\n", 1)[0].rstrip("\r")
    except UnicodeDecodeError:
        raise BoardError(f"{what} {path}: not UTF-8 text") from None


#: Where a hall's organizer reads how to make a CA and a broker certificate that pass.
TLS_HOWTO = "make the hall's CA and the broker's certificate as docs/HALL.md shows (TLS)"


def tls_context(ca_file: str | None) -> ssl.SSLContext:
    """The TLS context of every connection to a broker: the broker's certificate checked
    against ``ca_file`` (the hall's own CA) or the system's CAs, and its host name or address.

    Certificates are checked strictly (``VERIFY_X509_STRICT``: RFC 5280's rules, such as a
    CA certificate's key usage) on every Python, as Python 3.13 and later do by default: a
    hall whose certificates pass on the relay PC passes on every board, whatever Python its
    Raspberry Pi OS has (bookworm 3.11, trixie 3.13)."""
    try:
        context = ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise BoardError(f"broker TLS: cannot read CA file {ca_file}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    context.verify_flags |= ssl.VERIFY_X509_STRICT | ssl.VERIFY_X509_PARTIAL_CHAIN
    return context


def connect_error(exc: BaseException) -> str:
    """Why a connection failed, in one line; a certificate that is refused says which check
    it failed and how to make one that passes."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the broker's certificate is refused: {exc.verify_message} ({TLS_HOWTO})"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"
    return str(getattr(exc, "strerror", None) or exc)


def why_unreachable(config: BrokerConfig, timeout: float = 5.0) -> str | None:
    """Why the broker cannot be reached now: a connection (and for ``mqtts://`` the TLS
    handshake) tried once, for the message of a client that retries without saying why
    (paho's ``on_connect_fail``). None when it can be reached after all."""
    try:
        with socket.create_connection((config.host, config.port), timeout=timeout) as sock:
            if config.tls:
                with tls_context(config.ca_file).wrap_socket(sock,
                                                             server_hostname=config.host):
                    pass
    except BoardError as exc:
        return str(exc)
    except OSError as exc:  # ssl.SSLError is one
        return connect_error(exc)
    return None
