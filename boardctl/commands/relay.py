"""``boardctl relay``: board feeds in (serial ports, a hall's MQTT broker), live PDNs out."""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.hall.mqtt import add_login_options
from boardctl.relay.live import web as live
from firmware.errors import BoardError
from firmware.limits import ascii_digits

if TYPE_CHECKING:
    from boardctl.relay.desk import Desk
    from boardctl.relay.follower import HallFollower, Pusher
    from boardctl.relay.http import PdnServer, Timeline, View
    from boardctl.relay.relay import Relay
    from boardctl.relay.store import GameStore

#: Longest broadcast delay (minutes): a day's round.
MAX_DELAY = 24 * 60
#: Called with (relay, HTTP servers, hall) before the relay starts: where other parts (the
#: live page) subscribe to ``relay.state.observers`` and add ``server.extra_handlers``.
EXTENSIONS: list[Callable[[Any, list[Any], str | None], None]] = []


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``relay`` to the command line."""
    p = sub.add_parser(
        "relay",
        help="follow boards (serial ports, a hall's MQTT broker); serve live PDNs over HTTP",
        description=(
            "Read boards' broadcast feeds from serial ports (devices, ptys or pySerial URLs "
            "such as loop:// or rfc2217://host:port) and/or every board of a hall on an MQTT "
            "broker (--broker, --hall), keep every game with [%clock] comments and Round "
            "\"r.b\" tags, write the PDN atomically to --out and serve it over HTTP: "
            "/HALL.pdn, /HALL/round/R.pdn (64 games a URL, then R-2.pdn ...), the whole PDN "
            "at /games.pdn; any other path is 404. See docs/HALL.md."
        ),
    )
    p.add_argument("ports", nargs="*", metavar="PORT", help="serial device or pySerial URL")
    p.add_argument("--out", type=Path, help="PDN file to keep up to date (written atomically, "
                   "live: never delayed)")
    p.add_argument(
        "--http",
        default="127.0.0.1:8080",
        metavar="HOST:PORT",
        help="where to serve the PDN (default 127.0.0.1:8080; 'off' for none; port 0 picks one)",
    )
    p.add_argument("--poll", type=float, default=0.05, help="seconds between port reads")
    p.add_argument("--state-dir", metavar="DIR",
                   help="where the relay keeps its games across restarts, in DIR/HALL (default "
                   "$STATE_DIRECTORY under systemd, else $XDG_STATE_HOME/boardctl/relay or "
                   "~/.local/state/boardctl/relay; 'off' keeps nothing)")
    h = p.add_argument_group("hall (docs/HALL.md)")
    h.add_argument("--broker", metavar="URL", help="follow a hall's boards on this MQTT broker "
                   "(mqtt://HOST:PORT or mqtts://HOST:PORT)")
    h.add_argument("--hall", action="append", help="the hall's short name (topics "
                   "kabelaud/HALL/+/feed); again for each hall a central broker bridges "
                   "(each at /HALL.pdn: docs/SCALE.md)")
    _broker_options(h)
    h.add_argument("--delay", type=float, default=0.0, metavar="MINUTES",
                   help="delay everything public (HTTP, push) by this many minutes; "
                   "arbiters see live on --arbiter-http")
    h.add_argument("--arbiter-http", metavar="HOST:PORT",
                   help="serve the live (undelayed) PDNs here too, for the arbiters")
    h.add_argument("--push", metavar="URL", help="after each change, send the PDN of "
                   "--push-path to this URL (for a hall without a public address)")
    h.add_argument("--push-path", metavar="PATH",
                   help="which public URL's PDN to push (default /HALL.pdn)")
    h.add_argument("--push-method", choices=("PUT", "POST"), default="PUT")
    live.add_arguments(h)
    h.add_argument("--hall-key", metavar="FILE", help="file holding the hall's key (the "
                   "boards' --hall-key): with --arbiter-token, the arbiter's desk acts on the "
                   "boards (POST /arbiter/BOARD, buttons on the arbiters' page)")
    h.add_argument("--desk-timeout", type=float, default=5.0, metavar="SECONDS",
                   help="how long the desk waits for a board's answer before it says 504 "
                   "(default 5)")
    h.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate "
                   "(chain, PEM): the arbiter's token travels with every request")
    h.add_argument("--tls-key", metavar="FILE", help="the private key of --tls-cert (PEM)")
    h.add_argument("--tournament", type=Path, metavar="FILE",
                   help="the tournament file of `boardctl hall`: serve its crosstable at "
                   "/HALL/crosstable.html and .csv from the games the relay follows")
    p.set_defaults(func=run_relay)


def parse_address(text: str, option: str = "--http") -> tuple[str, int] | None:
    """``host:port`` -> (host, port); ``off`` -> None."""
    if text.strip().lower() == "off":
        return None
    host, sep, port = text.rpartition(":")
    if not sep or not ascii_digits(port) or int(port) > 65535:
        raise BoardError(f"{option}: expected HOST:PORT or off, not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def _broker_options(group: argparse._ArgumentGroup) -> None:
    """How the relay logs in to the hall's broker and how soon it tries again."""
    add_login_options(group)
    group.add_argument("--broker-reconnect-max", type=float, default=5.0, metavar="SECONDS",
                       help="the longest wait between two tries to reach the broker once "
                       "the link is lost (default 5; the boards' [broker] reconnect_max)")


def _check(args: argparse.Namespace) -> None:
    if not (math.isfinite(args.poll) and 0 < args.poll <= 3600):
        raise BoardError("--poll must be a positive number of seconds (at most 3600)")
    if not (math.isfinite(args.delay) and 0 <= args.delay <= MAX_DELAY):
        raise BoardError(f"--delay must be 0 to {MAX_DELAY} minutes, not {args.delay}")
    if not (math.isfinite(args.broker_reconnect_max) and 0.2 <= args.broker_reconnect_max <= 300):
        raise BoardError("--broker-reconnect-max must be 0.2 to 300 seconds, not "
                         f"{args.broker_reconnect_max}")
    if not (math.isfinite(args.desk_timeout) and 0.5 <= args.desk_timeout <= 120):
        raise BoardError(f"--desk-timeout must be 0.5 to 120 seconds, not {args.desk_timeout}")
    if not args.ports and not args.broker:
        raise BoardError("nothing to follow: name serial PORTs and/or --broker URL --hall HALL")
    if args.broker and not args.hall:
        raise BoardError("--broker needs --hall (the hall's short name)")
    if args.hall and not args.broker:
        raise BoardError("--hall needs --broker URL")
    if args.hall and len(args.hall) > 1 and args.push and not args.push_path:
        raise BoardError("--push with several --hall needs --push-path (which hall's PDN)")
    if args.hall and len(args.hall) > 1 and args.tournament is not None:
        raise BoardError("--tournament serves one hall's crosstable: give one --hall")
    if (args.push_path or args.push_method != "PUT") and not args.push:
        raise BoardError("--push-path and --push-method need --push URL")
    if args.push and not args.push.startswith(("http://", "https://")):
        raise BoardError(f"--push {args.push!r}: expected an http:// or https:// URL")
    if args.hall and len(args.hall) > 1 and args.hall_key:
        raise BoardError("--hall-key acts on one hall's boards (its key): give one --hall, "
                         "a relay a hall for the desk")
    if args.hall_key and not (args.broker and args.arbiter_token):
        raise BoardError("--hall-key needs --broker and --hall (the boards) and "
                         "--arbiter-token (who may act)")
    if bool(args.tls_cert) != bool(args.tls_key):
        raise BoardError("--tls-cert and --tls-key go together")
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


def _server(text: str | None, option: str, tls: tuple[str, str] | None = None,
            **kwargs: Any) -> PdnServer | None:
    from boardctl.relay.http import PdnServer

    address = parse_address(text, option) if text else None
    if address is None:
        return None
    try:
        server = PdnServer(address, **kwargs)
    except OSError as exc:
        raise BoardError(f"{option} {text}: cannot listen: {exc.strerror or exc}") from None
    if tls is not None:
        from boardctl.relay.desk import serve_tls

        try:
            serve_tls(server, *tls)
        except BoardError:
            server.server_close()
            raise
        setattr(server, "scheme", "https")  # noqa: B010 (said in the start-up line)
    return server


def _desk(args: argparse.Namespace, hall: str | None,
          servers: list[PdnServer]) -> Desk | None:
    """``--hall-key``: the arbiter's desk (boardctl.relay.desk) first on every HTTP server."""
    if not args.hall_key or hall is None:
        return None
    from boardctl.hall.board import read_password
    from boardctl.hall.mqtt import parse_broker
    from boardctl.hall.signing import read_key
    from boardctl.relay.desk import Desk

    config = parse_broker(args.broker, username=args.broker_user,
                          password=read_password(args.broker_password_file),
                          ca_file=args.broker_ca)
    desk = Desk(config, hall, read_key(args.hall_key), args.arbiter_token,
                answer_s=args.desk_timeout, log=_say)
    for server in servers:
        server.extra_handlers.insert(0, desk.handle)
    return desk.start()


def run_relay(args: argparse.Namespace) -> int:
    from boardctl.hall.mqtt import check_name
    from boardctl.relay.http import Timeline
    from boardctl.relay.relay import Relay

    _check(args)
    from boardctl.relay.live.viewers import raise_open_files_limit

    raise_open_files_limit()  # a socket a live page viewer (docs/SCALE.md)
    halls = [check_name(h, "--hall") for h in dict.fromkeys(args.hall or ())]
    hall = halls[0] if halls else None  # the first hall names the relay's HTTP pages
    follower = _follower(args, halls)
    timeline = Timeline(delay=args.delay * 60)
    tls = (args.tls_cert, args.tls_key) if args.tls_cert else None
    servers = [s for s in (
        _server(args.http, "--http", tls, hall=halls or None, timeline=timeline),
        _server(args.arbiter_http, "--arbiter-http", tls, hall=halls or None, timeline=timeline,
                live=True),
    ) if s is not None]
    pusher = _pusher(args, halls, timeline)
    relay = Relay(args.ports, out=args.out, hall=follower, timeline=timeline,
                  on_publish=pusher.notify if pusher is not None else None, log=_say,
                  store=_store(args, "+".join(halls) or None))
    for extend in EXTENSIONS:
        extend(relay, servers, hall)
    _add_crosstable(args, servers, hall)
    desk = _desk(args, hall, servers)
    # The live page (docs/HALL.md) on every HTTP server: public at /, arbiters at /?token=.
    hub = live.attach(args, relay.state.observers, servers[0] if servers else None)
    for server in servers[1:]:
        if hub is not None:
            server.extra_handlers.append(hub.handle)
    relay.restore()  # what a former run served, before anything is served or pushed
    stop = threading.Event()

    def _stop(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    _start(servers, halls, follower, pusher)
    try:
        _follow_feeds(relay, stop, args.poll)
    finally:
        for part in (desk, hub, relay, follower, pusher):
            if part is not None:
                part.close()
        for server in servers:
            server.shutdown()
            server.server_close()
    return 0


def _follower(args: argparse.Namespace, halls: list[str]) -> HallFollower | None:
    """``--broker``: the halls' boards followed over MQTT (boardctl.relay.follower), else
    None."""
    if not args.broker:
        return None
    from boardctl.hall.board import read_password
    from boardctl.hall.mqtt import parse_broker
    from boardctl.relay.follower import HallFollower

    config = parse_broker(args.broker, username=args.broker_user,
                          password=read_password(args.broker_password_file),
                          ca_file=args.broker_ca)
    return HallFollower(config, halls, log=_say, reconnect_max=args.broker_reconnect_max)


def _store(args: argparse.Namespace, hall: str | None) -> GameStore | None:
    """``--state-dir``: the relay's games kept across restarts (boardctl.relay.store), in a
    folder named by the halls followed (``A+B`` for two)."""
    from boardctl.relay.store import GameStore, default_dir

    if args.state_dir is not None and args.state_dir.strip().lower() == "off":
        return None
    base = Path(args.state_dir) if args.state_dir else default_dir()
    return GameStore(base / (hall or "serial"), log=_say).open()


def _pusher(args: argparse.Namespace, halls: list[str], timeline: Timeline) -> Pusher | None:
    """``--push``: the public PDN sent to a web server on every change, else None."""
    if not args.push:
        return None
    from boardctl.relay.follower import Pusher
    from boardctl.relay.http import select_games

    path = args.push_path or (f"/{halls[0]}.pdn" if halls else "/")

    def body() -> tuple[bytes, str]:
        view = timeline.public()
        games = select_games(view, halls, path)
        data, etag, _ = view.body(list(view.games) if games is None else games)
        return data, etag

    return Pusher(args.push, body, method=args.push_method, log=_say)


def _add_crosstable(args: argparse.Namespace, servers: list[PdnServer],
                    hall: str | None) -> None:
    """``--tournament``: the crosstable on every HTTP server, from that server's own view of
    the games (the public one keeps --delay, as the public PDN does; the arbiters' is live)."""
    if args.tournament is None:
        return
    from boardctl.hall.crosstable_http import crosstable_handler

    if not args.tournament.is_file():
        raise BoardError(f"--tournament {args.tournament}: no such file")
    for server in servers:
        server.extra_handlers.append(crosstable_handler(
            args.tournament, lambda s=server: _pdn_text(s.view()), hall))


def _start(servers: list[PdnServer], halls: list[str], follower: HallFollower | None,
           pusher: Pusher | None) -> None:
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        host, port = str(server.server_address[0]), int(server.server_address[1])
        what = "live PDN for the arbiters" if server.live else "PDN"
        base = f"{getattr(server, 'scheme', 'http')}://{host}:{port}/"
        pdns = ", ".join(f"{base}{h}.pdn" for h in halls) or f"{base}games.pdn"
        _say(f"relay: serving {what} at {pdns}, live page at {base}")
    if follower is not None:
        follower.start()
    if pusher is not None:
        pusher.start()


def _follow_feeds(relay: Relay, stop: threading.Event, poll: float) -> None:
    """Read the feeds until ``stop``, saying when a port connects or fails."""
    errors: dict[str, str | None] = {}
    opens: dict[str, int] = {}
    while not stop.is_set():
        relay.poll()
        for feed in relay.feeds:
            if feed.opens != opens.get(feed.url, 0):
                opens[feed.url] = feed.opens
                _say(f"relay: {feed.url} connected")
            if feed.last_error != errors.get(feed.url):
                errors[feed.url] = feed.last_error
                if feed.last_error:
                    _say(f"relay: {feed.last_error} (retrying)")
        relay.wait(poll)
        if relay.feeds:
            stop.wait(0.005)  # a port that keeps signalling EOF must not spin the CPU


def _pdn_text(view: View) -> str:
    """Every game of a server's view as one PDN text (what the crosstable reads)."""
    return "".join(game.text for game in view.games)


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
