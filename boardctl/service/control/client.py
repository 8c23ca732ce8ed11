"""The control socket's client: where the socket is (:func:`default_socket`) and one request
sent to the running service (:func:`request`), as ``boardctl``'s commands, the terminal and the
tests use it."""

from __future__ import annotations

import errno
import json
import os
import socket
from pathlib import Path
from typing import Any

from boardctl.service.control.schema import ControlError, encode

SOCKET_NAME = "control.sock"


class _Null:
    """The type of :data:`NULL`."""

    def __repr__(self) -> str:
        return "NULL"


#: An argument of :func:`request` sent as JSON null (``None`` ones are left out): ``new``'s
#: ``engine=NULL`` is no engine.
NULL: Any = _Null()


def default_socket(state_dir: Path | None = None) -> Path:
    """Where the socket is: ``STATE_DIR/control.sock`` when a state directory is given, else
    ``$BOARDCTL_SOCKET``, else the systemd runtime directory's, else
    ``/run/boardctl/control.sock``."""
    if state_dir is not None:
        return Path(state_dir) / SOCKET_NAME
    env = os.environ.get("BOARDCTL_SOCKET")
    if env:
        return Path(env)
    runtime = os.environ.get("RUNTIME_DIRECTORY")
    if runtime:
        return Path(runtime.split(":")[0]) / SOCKET_NAME
    return Path("/run/boardctl") / SOCKET_NAME


def request(path: Path, cmd: str, timeout: float = 5.0, **args: Any) -> dict[str, Any]:
    """Send one request to the service at ``path`` and return its response (an argument
    ``None`` is left out; :data:`NULL` is sent as JSON null).

    Raises ControlError with a clear reason when the service is not running, refuses the
    request (``ok: false``) or does not answer in ``timeout`` seconds."""
    payload = {"cmd": cmd, **{k: None if v is NULL else v for k, v in args.items()
                              if v is not None}}
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        try:
            sock.connect(str(path))
        except (FileNotFoundError, NotADirectoryError):
            raise ControlError(
                f"the board service is not running (no control socket at {path})"
            ) from None
        except ConnectionRefusedError:
            raise ControlError(
                f"the board service is not running (nobody listens on {path})"
            ) from None
        except PermissionError:
            raise ControlError(
                f"{path}: permission denied (join the service's group to control the board)"
            ) from None
        except (BlockingIOError, TimeoutError):
            raise ControlError(f"the board service is busy (its queue of new connections on "
                               f"{path} is full); try again") from None
        try:
            data = encode(payload)
        except UnicodeEncodeError:  # bytes that are not UTF-8 in an argument (surrogateescape)
            raise ControlError(f"{cmd}: an argument is not valid text (not UTF-8)") from None
        sock.sendall(data)
        buf = bytearray()
        while b"\n" not in buf:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                raise ControlError(f"the board service did not answer in {timeout:g} s") from None
            if not chunk:
                raise ControlError("the board service closed the connection without answering")
            buf += chunk
    except OSError as exc:
        if exc.errno in (errno.ECONNRESET, errno.EPIPE):
            raise ControlError("the board service closed the connection") from None
        raise
    finally:
        sock.close()
    try:
        response = json.loads(buf[: buf.index(b"\n")])
    except ValueError:
        raise ControlError("the board service sent an unreadable answer") from None
    if not isinstance(response, dict):
        raise ControlError("the board service sent an unreadable answer")
    if not response.get("ok"):
        raise ControlError(str(response.get("error") or "the board service refused the request"))
    return response
