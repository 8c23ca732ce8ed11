"""``boardctl relay``: serial feeds in, a live multi-game PDN out (file and HTTP)."""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from pathlib import Path

from boardctl.live import web as live
from firmware.errors import BoardError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``relay`` to the command line."""
    p = sub.add_parser(
        "relay",
        help="read board feeds from serial ports; keep a live PDN in a file and over HTTP",
        description=(
            "Read one or more boards' broadcast feeds (serial devices, ptys or pySerial URLs "
            "such as loop:// or rfc2217://host:port), keep every game in one PDN with "
            "[%clock] comments and Round \"r.b\" tags, write it atomically to --out and serve "
            "it over HTTP (the whole PDN at every path) for lidraughts-style polling."
        ),
    )
    p.add_argument("ports", nargs="+", metavar="PORT", help="serial device or pySerial URL")
    p.add_argument("--out", type=Path, help="PDN file to keep up to date (written atomically)")
    p.add_argument(
        "--http",
        default="127.0.0.1:8080",
        metavar="HOST:PORT",
        help="where to serve the PDN (default 127.0.0.1:8080; 'off' for none; port 0 picks one)",
    )
    p.add_argument("--poll", type=float, default=0.05, help="seconds between port reads")
    live.add_arguments(p)
    p.set_defaults(func=run_relay)


def parse_address(text: str) -> tuple[str, int] | None:
    """``host:port`` -> (host, port); ``off`` -> None."""
    if text.strip().lower() == "off":
        return None
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise BoardError(f"--http: expected HOST:PORT or off, not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def run_relay(args: argparse.Namespace) -> int:
    from boardctl.relay import PdnServer, Relay

    if not (math.isfinite(args.poll) and 0 < args.poll <= 3600):
        raise BoardError("--poll must be a positive number of seconds (at most 3600)")
    if args.out is not None and not args.out.parent.resolve().is_dir():
        raise BoardError(f"--out: directory {args.out.parent} does not exist")
    if args.out is not None and args.out.is_dir():
        raise BoardError(f"--out {args.out}: is a directory; give the PDN file to write")
    for url in args.ports:
        if "://" in url:  # a bad URL never opens; a missing device may be plugged in later
            import serial

            try:
                serial.serial_for_url(url, do_not_open=True)
            except ValueError as exc:
                raise BoardError(f"{url}: {exc}") from None
    address = parse_address(args.http)
    server = None
    if address is not None:
        try:
            server = PdnServer(address)
        except OSError as exc:
            raise BoardError(f"--http {args.http}: cannot listen: {exc.strerror or exc}") from None
    relay = Relay(args.ports, out=args.out, server=server)
    hub = live.attach(args, relay.state.observers, server)
    stop = threading.Event()

    def _stop(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    if server is not None:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        host, port = str(server.server_address[0]), int(server.server_address[1])
        print(f"relay: serving PDN at http://{host}:{port}/games.pdn, "
              f"live page at http://{host}:{port}/", file=sys.stderr, flush=True)
    errors: dict[str, str | None] = {}
    opens: dict[str, int] = {}
    try:
        while not stop.is_set():
            relay.poll()
            for feed in relay.feeds:
                if feed.opens != opens.get(feed.url, 0):
                    opens[feed.url] = feed.opens
                    print(f"relay: {feed.url} connected", file=sys.stderr, flush=True)
                if feed.last_error != errors.get(feed.url):
                    errors[feed.url] = feed.last_error
                    if feed.last_error:
                        print(f"relay: {feed.last_error} (retrying)", file=sys.stderr, flush=True)
            relay.wait(args.poll)
            stop.wait(0.005)  # a port that keeps signalling EOF must not spin the CPU
    finally:
        if hub is not None:
            hub.close()
        relay.close()
        if server is not None:
            server.shutdown()
            server.server_close()
    return 0
