"""Where the board's page listens and who may use it: ``--http HOST:PORT`` and
``--http-password-file FILE`` on ``boardctl run``, else the config's ``[http]`` (``listen``,
``password_file``, ``read``). The password file is read once, here, and its text never
logged nor put in a message."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.settings import LISTEN
from firmware.errors import BoardError

#: A password file is one line; anything bigger is not one.
MAX_PASSWORD_FILE = 4096


@dataclass(frozen=True, slots=True)
class PageSettings:
    """``host``, ``port``: where to listen; ``password``: what every change needs (None:
    nothing); ``read_open``: False when reading needs the password too."""

    host: str
    port: int
    password: bytes | None = None
    read_open: bool = True

    @property
    def listen(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_listen(text: str, what: str = "--http") -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); an IPv6 host without its brackets; BoardError."""
    m = LISTEN.fullmatch(text.strip())
    if m is None or not 0 <= int(m.group(2)) <= 65535:
        raise BoardError(f"{what} {text[:80]!r}: expected HOST:PORT, e.g. 0.0.0.0:8080")
    return m.group(1).strip("[]"), int(m.group(2))


def read_password(path: Path, what: str = "--http-password-file") -> bytes:
    """The password a file holds: its first line, surrounding blanks dropped; BoardError (that
    never quotes the file) when it cannot be read or holds none."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_PASSWORD_FILE + 1)
    except FileNotFoundError:
        raise BoardError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise BoardError(f"{what} {path}: is a directory, not a password file") from None
    except OSError as exc:
        raise BoardError(f"{what} {path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_PASSWORD_FILE:
        raise BoardError(f"{what} {path}: larger than {MAX_PASSWORD_FILE} bytes: not a "
                         "password file")
    lines = raw.splitlines()
    password = lines[0].strip() if lines else b""
    if not password:
        raise BoardError(f"{what} {path}: holds no password (the first line is empty)")
    return password


def page_settings(listen: str | None, password_file: Path | None,
                  section: Any) -> PageSettings | None:
    """The page's settings: the command line's, else ``section`` (the config's ``[http]``:
    ``listen``, ``password_file``, ``read``); None when neither says where to listen."""
    where = listen or getattr(section, "listen", "")
    if not where:
        if password_file is not None:
            raise BoardError("--http-password-file needs --http HOST:PORT (or [http] listen)")
        return None
    host, port = parse_listen(where, "--http" if listen else "[http] listen")
    if password_file is not None:
        password: bytes | None = read_password(password_file)
    elif getattr(section, "password_file", ""):
        password = read_password(Path(section.password_file), "[http] password_file")
    else:
        password = None
    read_open = getattr(section, "read", "open") != "password"
    if not read_open and password is None:
        raise BoardError("[http] read = \"password\" needs a password file "
                         "(--http-password-file or [http] password_file)")
    return PageSettings(host, port, password, read_open)
