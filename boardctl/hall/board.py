"""``boardctl run`` in a hall: the broker link and the setup applier, attached to the service
as a link of its feed (``boardctl.service.feed.FeedLink``: each line as written, its record
and the line as the broker carries it, with the run's id; docs/HALL.md, "Board
configuration")."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from boardctl.hall.broker import BoardLink, instance_id
from boardctl.hall.mqtt import BrokerConfig, check_name, make_client, parse_broker, read_secret
from boardctl.hall.remote import RemoteControl
from boardctl.hall.setup import SetupApplier
from boardctl.hall.signing import Verifier, read_key
from boardctl.service.feed import FeedLink
from firmware.errors import BoardError
from firmware.formats.feed import Written
from firmware.formats.records import FeedRecord

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BrokerSettings:
    broker: BrokerConfig
    hall: str
    board: str
    queue_lines: int
    #: The hall's key (``--hall-key`` or ``[broker] hall_key_file``): None, no desk control.
    hall_key: bytes | None = None
    #: ``[broker] reconnect_max``: the longest wait between two tries to reach the broker.
    reconnect_max: float = 5.0


def read_password(path: Path | str | None) -> str | None:
    env = os.environ.get("BOARDCTL_BROKER_PASSWORD")
    if not path:
        return env
    return read_secret(path)


def broker_settings(args: argparse.Namespace, section: Any, source: str) -> BrokerSettings | None:
    """The command line over the config file's ``[broker]``; None when no broker is named."""
    url = args.broker or section.url
    if not url:
        for flag in ("hall", "broker_user", "broker_password_file", "broker_ca", "hall_key"):
            if getattr(args, flag, None):
                raise BoardError(f"--{flag.replace('_', '-')} needs --broker (or [broker] url "
                                 f"in {source})")
        return None
    hall = args.hall or section.hall
    board = args.board or section.board
    if not hall or not board:
        missing = "--hall" if not hall else "--board"
        raise BoardError(f"{missing} is needed with a broker (or [broker] "
                         f"{missing[2:]} in {source}): a board's name never comes from its "
                         "hostname alone")
    check_name(hall, "--hall")
    check_name(board, "--board")
    broker = parse_broker(
        url,
        username=args.broker_user or section.username or None,
        password=read_password(args.broker_password_file or section.password_file or None),
        ca_file=args.broker_ca or section.ca_file or None,
        tls=True if section.tls else None,
        keepalive=section.keepalive,
    )
    if broker.tls:
        make_client(broker, "kabelaud-check")  # a CA file it cannot read: say so before start
    key_file = getattr(args, "hall_key", None) or getattr(section, "hall_key_file", "")
    key = read_key(key_file) if key_file else None
    return BrokerSettings(broker, hall, board, section.queue_lines, key, section.reconnect_max)


class ServedBoard(Protocol):
    """What the hall's link uses of the service (:class:`boardctl.service.service.Service` is
    one): its requests, its feed, its status and its faces' note; nothing else of it."""

    status_extras: list[Callable[[], dict[str, Any]]]
    face_note: tuple[str, str] | None

    def command(self, request: Mapping[str, Any] | str) -> dict[str, Any]: ...

    def call_soon(self, fn: Callable[[], None]) -> None: ...

    def emit(self, record: FeedRecord) -> None: ...

    def request_snapshot(self) -> None: ...

    def add_link(self, link: FeedLink) -> None: ...


class HallBoard:
    """One board's hall parts: :class:`BoardLink` (feed out, setups and the desk's requests
    in), :class:`SetupApplier` and, with the hall's key, :class:`RemoteControl`; ``attach``
    hands them to the service (this is a link of its feed: :meth:`take`)."""

    def __init__(self, settings: BrokerSettings, state_dir: Path) -> None:
        self.settings = settings
        self.board = settings.board
        self.state_dir = Path(state_dir)
        self.applier: SetupApplier | None = None
        self.remote: RemoteControl | None = None
        self.link = BoardLink(settings.broker, settings.hall, settings.board,
                              instance_id(self.state_dir), queue_lines=settings.queue_lines,
                              backoff=(0.2, settings.reconnect_max),
                              on_setup=self._on_setup,
                              on_control=self._on_control if settings.hall_key else None)

    def attach(self, service: ServedBoard) -> None:
        self.applier = SetupApplier(self.state_dir, self.board, command=service.command,
                                    call_soon=service.call_soon, emit=service.emit, log=logger.info,
                                    show=lambda note: setattr(service, "face_note", note))
        self.link.request_snapshot = service.request_snapshot
        if self.settings.hall_key is not None:
            from boardctl.service.journal_file import current_path

            verifier = Verifier(self.settings.hall_key, self.settings.hall, self.board)
            self.remote = RemoteControl(verifier, command=service.command, send=self.link.reply,
                                        journal=lambda: current_path(self.state_dir))
            remote = self.remote
            service.status_extras.append(lambda: {"desk": {"answered": remote.answered,
                                                           "refused": remote.refused}})
        service.status_extras.append(lambda: {"broker": self.link.status()})
        service.add_link(self)
        self.link.start()

    def take(self, written: Written) -> None:
        """One feed line as written (the journal writer's thread): the broker's line to the
        link, the record to the setup applier (a result may let a pending setup go)."""
        self.link.send(written.network())
        if self.applier is not None:
            self.applier.on_record(written.record)

    def _on_setup(self, payload: bytes) -> None:
        if self.applier is not None:
            self.applier.receive(payload)

    def _on_control(self, payload: bytes) -> None:
        if self.remote is not None:
            self.remote.receive(payload)

    def close(self) -> None:
        if self.remote is not None:
            self.remote.close()
        self.link.close()
