"""The board's configuration file, read once by one entry (:func:`load_config`) that hands each
top-level key to its owner: the hardware's (``size``, ``[gpio]``, ``[matrix]``, ``[leds]``,
``[faces]``, ``[buttons]``, ``[serial]``, ``[buzzer]``: :mod:`hw.config`, which knows the Pi's
header) and the service's own settings, here: ``state_dir``, ``touch_min``, ``[broker]`` (a
hall: boardctl.hall), ``[engine]`` (the computer as a player: boardctl.engine), ``[voice]``
(the spoken game: its reader is ``boardctl.voice.settings.from_table``), ``[http]`` (the
board's own page: boardctl.page) and ``[online]`` (an opponent not at the board:
boardctl.opponents).

The file lives at ``/etc/boardctl/config.toml`` (:data:`SYSTEM_PATH`) unless ``--config``
names another. Every section and key is optional: a missing key takes the default shown in
``hw/config.example.toml``. A wrong key or value raises :class:`ConfigError` whose message
names the file, the key (``engine.side``, ``matrix.rows``) and what is wrong; an unknown key
is refused with the nearest known key as a suggestion (:class:`hw.configreader.TableReader`).

A new section of the service's (``[voice]``, ``[online]``, ``[menu]``) is a frozen
dataclass and a reader function here, and a field of :class:`Settings`; its key is then known
to the file.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from boardctl.voice.settings import VoiceSettings
from boardctl.voice.settings import from_table as voice_from_table
from hw.config import HARDWARE_KEYS, BoardConfig, default_config, parse_config
from hw.configreader import TableReader, kind_of, read_document

SYSTEM_PATH = Path("/etc/boardctl/config.toml")
#: Where the journals are (systemd's StateDirectory).
STATE_DIR = "/var/lib/boardctl"
#: Shortest lift of one's own piece that is a touch, seconds (firmware.referee TOUCH_NS).
TOUCH_MIN = 0.25


@dataclass(frozen=True, slots=True)
class BrokerSection:
    """The hall's MQTT broker (boardctl/hall/broker.py, docs/HALL.md). ``url`` empty: no broker.
    ``hall`` and ``board`` name this board in the hall (never taken from the hostname);
    ``password_file``: a file holding the password (kept out of this file's readers)."""

    url: str = ""
    hall: str = ""
    board: str = ""
    username: str = ""
    password_file: str = ""
    ca_file: str = ""
    tls: bool = False
    keepalive: int = 10
    queue_lines: int = 10_000
    #: The longest wait, seconds, between two tries to reach the broker (the wait doubles from
    #: 0.2 s up to it while the broker is away).
    reconnect_max: float = 5.0
    #: A file holding the hall's key: the arbiter's desk may act on this board (docs/HALL.md).
    hall_key_file: str = ""


@dataclass(frozen=True, slots=True)
class EngineSection:
    """The computer as a player (boardctl/engine/player.py, docs/ENGINE.md). ``engine``
    empty: nobody; ``builtin`` or ``hub:COMMAND``. ``side``: the engine's colour; ``level``
    1-10 or a name (the built-in engine); ``move_time``: seconds a move (0: from its clock);
    ``allowed``: the Hub COMMANDs a new game may start (``new`` with ``engine``), besides the
    one given at the start."""

    engine: str = ""
    side: str = "black"
    level: str = "10"
    move_time: float = 0.0
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HttpSection:
    """The board's own page (boardctl/page, docs/PAGE.md). ``listen`` empty: no page, else
    ``HOST:PORT`` (``0.0.0.0:8080``: every network the Pi is on). ``password_file``: a file
    holding the password every change (a new game) needs; none: anyone on the network may.
    ``read``: ``open`` (anyone may look) or ``password`` (looking needs it too)."""

    listen: str = ""
    password_file: str = ""
    read: str = "open"


@dataclass(frozen=True, slots=True)
class OnlineSection:
    """An opponent not at the board (boardctl/opponents, docs/ONLINE.md). ``opponent``
    empty: none; ``lidraughts``, or ``board:NAME`` (another board of the hall, ``side`` its
    colour, as ``[engine] side`` is the engine's). lidraughts: ``token_file`` (read once,
    never logged), ``url`` (empty: lidraughts' own), ``accept`` (``any`` or user names,
    commas between), ``challenge`` a user with ``time_control`` (``M+S``)."""

    opponent: str = ""
    token_file: str = ""
    url: str = ""
    accept: str = "any"
    challenge: str = ""
    time_control: str = ""
    side: str = "black"
    numbering: str = "auto"


@dataclass(frozen=True, slots=True)
class Settings:
    """The whole file: the board's hardware (:class:`hw.config.BoardConfig`) and the service's
    settings."""

    hardware: BoardConfig = field(default_factory=BoardConfig)
    state_dir: str = STATE_DIR
    touch_min: float = TOUCH_MIN
    #: How a new game starts: "press" or "move" (issue 36); "": by the hall (press in one).
    start: str = ""
    broker: BrokerSection = field(default_factory=BrokerSection)
    engine: EngineSection = field(default_factory=EngineSection)
    #: The spoken game (boardctl/voice, docs/VOICE.md): read by its own reader.
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    http: HttpSection = field(default_factory=HttpSection)
    online: OnlineSection = field(default_factory=OnlineSection)
    source: str = "<defaults>"


#: The file's top-level keys that are the service's (the hardware's: hw.config.HARDWARE_KEYS).
SERVICE_KEYS = tuple(f.name for f in fields(Settings) if f.name not in ("hardware", "source"))


def default_settings(size: int = 10) -> Settings:
    """The built-in configuration for a board size (the example file's pin map)."""
    return Settings(hardware=default_config(size))


def parse_settings(data: dict[str, Any], source: str = "<config>") -> Settings:
    """Check a TOML document (already parsed): every top-level key known to one owner, the
    hardware's tables checked by :func:`hw.config.parse_config`, the service's here."""
    r = TableReader(source)
    top = r.table(data, "", HARDWARE_KEYS + SERVICE_KEYS)
    hardware = parse_config({k: v for k, v in top.items() if k in HARDWARE_KEYS}, source)
    state_dir = r.string(top, "", "state_dir", STATE_DIR)
    if not Path(state_dir).is_absolute():
        raise r.fail("state_dir", f"{state_dir!r} is not an absolute path")
    return Settings(hardware=hardware, state_dir=state_dir,
                    touch_min=r.number(top, "", "touch_min", TOUCH_MIN, 0.02, 2.0),
                    start=r.choice(top, "", "start", "", ("press", "move")),
                    broker=_broker(r, top.get("broker", {})),
                    engine=_engine(r, top.get("engine", {})),
                    voice=voice_from_table(top.get("voice", {}), source),
                    http=_http(r, top.get("http", {})),
                    online=_online(r, top.get("online", {})), source=source)


def load_config(path: str | Path | None = None) -> Settings:
    """Read the configuration: ``path`` if given, else the system file if it exists, else the
    built-in defaults (a 10x10 board with the pin map of hw/config.example.toml)."""
    if path is None:
        if not SYSTEM_PATH.exists():
            return default_settings()
        path = SYSTEM_PATH
    return parse_settings(read_document(path), str(path))


def _broker(r: TableReader, data: Any) -> BrokerSection:
    """``[broker]``: names as MQTT topics allow them, an mqtt:// or mqtts:// URL."""
    k = r.table(data, "broker", BrokerSection)
    strings = {name: r.string(k, "broker", name, "") if name in k else ""
               for name in ("url", "hall", "board", "username", "password_file", "ca_file",
                            "hall_key_file")}
    url = strings["url"]
    if url and not re.fullmatch(r"mqtts?://[^/?#\s]+", url):
        raise r.fail("broker.url", f"{url!r} is not mqtt://HOST:PORT or mqtts://HOST:PORT")
    for name in ("hall", "board"):
        if strings[name] and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", strings[name]):
            raise r.fail(f"broker.{name}", f"{strings[name]!r} is not 1-64 letters, digits, "
                         "'-' or '_'")
    return BrokerSection(
        **strings,
        tls=r.boolean(k, "broker", "tls", False),
        keepalive=r.integer(k, "broker", "keepalive", 10, 1, 3600),
        queue_lines=r.integer(k, "broker", "queue_lines", 10_000, 100, 1_000_000),
        reconnect_max=r.number(k, "broker", "reconnect_max", 5.0, 0.2, 300.0),
    )


def _engine(r: TableReader, data: Any) -> EngineSection:
    """``[engine]``: ``builtin`` or ``hub:COMMAND``, a side, a level, a move time, the Hub
    commands a new game may start."""
    k = r.table(data, "engine", EngineSection)
    engine = r.string(k, "engine", "engine", "").strip()
    if engine and engine != "builtin" and not (engine.startswith("hub:") and engine[4:].strip()):
        raise r.fail("engine.engine", f"{engine[:80]!r} is not builtin or hub:COMMAND")
    side = r.string(k, "engine", "side", "black")
    if side not in ("white", "black"):
        raise r.fail("engine.side", f"{side[:20]!r} is not white or black")
    level = k.get("level", "10")
    if isinstance(level, bool) or not isinstance(level, int | str) or not str(level).strip():
        raise r.fail("engine.level", f"{level!r} is not a level (1-10 or a name)")
    return EngineSection(engine=engine, side=side, level=str(level).strip(),
                         move_time=r.number(k, "engine", "move_time", 0.0, 0.0, 3600.0),
                         allowed=_allowed(r, k.get("allowed", [])))


def _online(r: TableReader, data: Any) -> OnlineSection:
    """``[online]``: the opponent (``lidraughts``, ``board:NAME``) and its options."""
    k = r.table(data, "online", OnlineSection)
    strings = {name: r.string(k, "online", name, default).strip()
               for name, default in (("opponent", ""), ("token_file", ""), ("url", ""),
                                     ("accept", "any"), ("challenge", ""),
                                     ("time_control", ""), ("side", "black"),
                                     ("numbering", "auto"))}
    opponent = strings["opponent"]
    if opponent and opponent != "lidraughts" and not re.fullmatch(
            r"board:[A-Za-z0-9_-]{1,64}", opponent):
        raise r.fail("online.opponent", f"{opponent[:80]!r} is not lidraughts or board:NAME")
    if strings["numbering"] not in ("auto", "lidraughts", "a1"):
        raise r.fail("online.numbering", f"{strings['numbering'][:20]!r} is not auto, "
                     "lidraughts or a1")
    if strings["side"] not in ("white", "black"):
        raise r.fail("online.side", f"{strings['side'][:20]!r} is not white or black")
    if opponent == "lidraughts" and not strings["token_file"]:
        raise r.fail("online.token_file", "lidraughts needs the file of the BOT account's "
                     "token")
    return OnlineSection(**strings)


def _allowed(r: TableReader, value: Any) -> tuple[str, ...]:
    """``[engine] allowed``: Hub COMMANDs (``"dame hub"``), each split as a shell would."""
    if not isinstance(value, list):
        raise r.fail("engine.allowed", f"expected a list of commands, got {kind_of(value)}")
    commands = []
    for i, command in enumerate(value):
        where = f"engine.allowed[{i}]"
        if not isinstance(command, str) or not command.strip():
            raise r.fail(where, f"expected a command, got {kind_of(command)}")
        if len(command) > 4096 or any(ch < " " for ch in command):
            raise r.fail(where, "expected one line of text (no control characters, at most "
                         "4096)")
        text = command.strip()
        if text.startswith(("hub:", "builtin")):
            raise r.fail(where, f"{text[:80]!r}: give the Hub command alone (\"dame hub\" for "
                         "hub:dame hub; builtin is always allowed)")
        try:
            shlex.split(text)
        except ValueError as exc:
            raise r.fail(where, f"{text[:80]!r}: {exc}") from None
        commands.append(text)
    return tuple(commands)


#: ``[http] listen``: a host name or IPv4 address, or an IPv6 one in brackets, then a port.
LISTEN = re.compile(r"(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{0,253}):([0-9]{1,5})")


def _http(r: TableReader, data: Any) -> HttpSection:
    """``[http]``: where the board's page listens, its password file, who may read it."""
    k = r.table(data, "http", HttpSection)
    listen = r.string(k, "http", "listen", "").strip()
    m = LISTEN.fullmatch(listen)
    if listen and (m is None or int(m.group(2)) > 65535):  # 0: any free port
        raise r.fail("http.listen", f"{listen[:80]!r} is not HOST:PORT (e.g. \"0.0.0.0:8080\")")
    return HttpSection(listen=listen,
                       password_file=r.string(k, "http", "password_file", ""),
                       read=r.choice(k, "http", "read", "open", ("open", "password")))
