"""Control of the running service over a Unix socket: the arbiter's ``boardctl`` commands.

No network listener: the socket lives in the service's runtime directory
(``/run/boardctl/control.sock`` under systemd, ``STATE_DIR/control.sock`` otherwise), mode
0660, owned by the service's group (``--group``, default the service user's primary group),
so only members of that group can talk to the board.

Protocol: line-based JSON, one request a line, one response a line, in order, on a stream
connection that the client may keep open::

    -> {"cmd": "pause"}
    <- {"ok": true, "paused": true, ...}
    -> {"cmd": "clock-set", "side": "black", "seconds": 1500}
    <- {"ok": true, ...}
    -> garbage
    <- {"ok": false, "error": "not JSON: ..."}

A request may carry an ``id`` (a string of at most :data:`MAX_ID` characters or an integer),
which its response carries back, an error's included.

A request is checked against :data:`COMMANDS` before the service sees it; anything wrong
(bad JSON, an unknown command, a missing or ill-typed argument, a line over 64 KiB) gets an
``ok: false`` response naming the problem, never a crash and never a dropped connection.

Three modules, one concept each: :mod:`~boardctl.service.control.schema` (the commands, their
arguments' checks, a request line read, its response), :mod:`~boardctl.service.control.server`
(the socket's server on its own thread, bounded), :mod:`~boardctl.service.control.client`
(where the socket is, one request sent). Their public names are this package's too, where
every caller imports them from.
"""

from boardctl.service.control.client import NULL, SOCKET_NAME, default_socket, request
from boardctl.service.control.schema import (
    COMMANDS,
    MAX_ID,
    MAX_REQUEST,
    NULLABLE,
    SIDES,
    SIM_ACTS,
    ControlError,
    Handler,
    Request,
    encode,
    parse_request,
    respond,
)
from boardctl.service.control.server import (
    EMFILE_PAUSE_S,
    MAX_CONNECTIONS,
    MAX_OUTBUF,
    PER_TURN,
    STALL_S,
    ControlServer,
)

__all__ = ["COMMANDS", "EMFILE_PAUSE_S", "MAX_CONNECTIONS", "MAX_ID", "MAX_OUTBUF",
           "MAX_REQUEST", "NULL", "NULLABLE", "PER_TURN", "SIDES", "SIM_ACTS", "SOCKET_NAME",
           "STALL_S", "ControlError", "ControlServer", "Handler", "Request", "default_socket",
           "encode", "parse_request", "request", "respond"]
