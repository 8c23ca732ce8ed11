"""A board's link to the hall's MQTT broker: every feed line out, the round's setup in.

The service hands each feed line to :meth:`BoardLink.send` (its ``on_line`` hook). That call
only appends to a bounded queue and wakes the link's own thread, so publishing never delays
sensing or refereeing. The link's thread owns the paho-mqtt client (paho's external-loop API:
one ``select`` on the broker's socket and a wake-up pipe) and:

- connects with a last will (``offline``, retained, on ``.../status``), backing off up to
  ``backoff_max`` seconds while the broker is away; the board plays on meanwhile;
- claims its name before it says anything (:class:`Claim` below): a second board configured
  with the same HALL/BOARD is refused, loudly, on both boards;
- publishes the queued lines in order, QoS 1, at most ``window`` unacknowledged at a time;
  a line leaves the queue only when the broker has acknowledged it. After a lost connection
  the unacknowledged lines are sent again (the relay drops the duplicates: moves carry their
  ply) and the service is asked for a snapshot (``request_snapshot``), which follows them;
- publishes each line as the service wrote it for the broker: stamped with its service run's
  id (``firmware.formats.feed.Written.network``, on the journal writer's thread), so that the
  relay knows a restarted board's new run even when it missed the run's header;
- when the queue overflows (``queue_lines``) the oldest lines are dropped and counted: the
  snapshot sent on reconnection carries the whole game, rebuilt from the journal, so a reader
  still ends with every move (after a board reboot the service announces its game the same
  way: the journal on disk is the buffer that survives);
- hands each valid setup message (``.../setup``) to ``on_setup`` (boardctl.hall.setup);
- with ``on_control`` (a board given the hall's key), subscribes to ``.../control`` once its
  name is claimed, hands each message there to ``on_control`` (boardctl.hall.remote checks
  it) and publishes what :meth:`BoardLink.reply` queues on ``.../reply``, QoS 1.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from boardctl.hall.mqtt import PREFIX, BrokerConfig, check_name, connect_error, make_client, topic
from firmware.errors import BoardError

logger = logging.getLogger(__name__)

#: Lines kept while the broker is away (about a day of moves for one board, ~2 MB).
QUEUE_LINES = 10_000
#: Seconds a name claim's probe may take to come back before the board says why it waits.
CLAIM_TIMEOUT_S = 5.0


def instance_id(state_dir: Path) -> str:
    """This board's own id, kept in STATE_DIR/instance: the same across reboots (so that a
    rebooted board takes its name back at once), different on any other board."""
    path = Path(state_dir) / "instance"
    try:
        text = path.read_text(encoding="ascii").strip()
        if len(text) == 16 and all(c in "0123456789abcdef" for c in text):
            return text
    except (OSError, UnicodeDecodeError):
        pass
    text = secrets.token_hex(8)
    Path(state_dir).mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(".instance.tmp")
    tmp.write_text(text + "\n", encoding="ascii")
    os.replace(tmp, path)
    return text


class Claim:
    """Whose name this is, from the retained messages on ``.../status`` and ``.../claim``.

    On connecting, the board subscribes to both, then publishes a (non-retained) probe on
    ``.../claim``. The broker delivers a session's messages in order, so when the probe comes
    back every retained message has been seen: if the status says ``online`` and the retained
    claim names another board, the name is taken and this board refuses to publish (it waits,
    listening, until the other goes ``offline``). Otherwise it publishes its own retained
    claim, then ``online``.
    """

    def __init__(self, instance: str) -> None:
        self.instance = instance
        self.status: str | None = None
        self.owner: str | None = None
        self.nonce = ""

    def reset(self) -> str:
        self.status = self.owner = None
        self.nonce = secrets.token_hex(4)
        return json.dumps({"instance": self.instance, "probe": self.nonce})

    def taken(self) -> bool:
        return self.status == "online" and self.owner not in (None, self.instance)


class _Outbox:
    """The lines waiting for the broker (any thread puts, the link's thread takes): the feed
    lines, bounded (``limit``; the oldest dropped and counted), the desk's replies, and the
    lines published but not yet acknowledged (at most ``window``)."""

    def __init__(self, limit: int, window: int) -> None:
        self.limit = limit
        self.window = window
        self._lock = threading.Lock()
        self._queue: deque[str] = deque()
        self._inflight: dict[int, str] = {}
        self.replies: deque[bytes] = deque(maxlen=64)
        self.published = 0
        self.acked = 0
        self.dropped = 0

    def put(self, line: str) -> None:
        with self._lock:
            if len(self._queue) >= self.limit:
                self._queue.popleft()
                self.dropped += 1  # the snapshot on reconnection carries the game again
            self._queue.append(line)

    def next_line(self) -> str | None:
        """The next line to publish, unless none waits or the window is full."""
        with self._lock:
            if not self._queue or len(self._inflight) >= self.window:
                return None
            return self._queue.popleft()

    def sent(self, mid: int, line: str) -> None:
        with self._lock:
            self._inflight[mid] = line
        self.published += 1

    def ack(self, mid: int) -> None:
        with self._lock:
            if self._inflight.pop(mid, None) is not None:
                self.acked += 1

    def requeue(self) -> None:
        """The connection is lost: the unacknowledged lines go out again, first."""
        with self._lock:
            lost = list(self._inflight.values())
            self._inflight.clear()
            self._queue.extendleft(reversed(lost))

    def pending(self) -> int:
        """Lines queued or in flight."""
        with self._lock:
            return len(self._queue) + len(self._inflight)


class _Talk:
    """What the broker tells the link and what the link answers (paho's callbacks, on the
    link's thread): the connection's progress, the name claim (the module docstring), the
    setup and control messages, the acknowledgements. Handed the link's names and topics,
    its outbox, its log and the hooks it calls; owns the link's ``state``."""

    def __init__(self, config: BrokerConfig, names: tuple[str, str, str],
                 topics: Mapping[str, str], outbox: _Outbox, log: Callable[[str], None], *,
                 snapshot: Callable[[], None],
                 on_setup: Callable[[bytes], None] | None,
                 on_control: Callable[[bytes], None] | None) -> None:
        self.config = config
        self.hall, self.board, self.instance = names
        self.topics = topics
        self.outbox = outbox
        self.log = log
        self.snapshot = snapshot
        self.on_setup = on_setup
        self.on_control = on_control
        self._control_mid = -1
        self._claim = Claim(self.instance)
        #: When the last claim probe went out (None: none waiting, or its silence was told).
        self.claim_sent: float | None = None
        #: "connecting", "claiming", "ready", "refused" (name taken), "stopping", "stopped"
        self.state = "connecting"
        self.connects = 0
        self.conflicts = 0
        self.last_error: str | None = None

    def on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                   properties: Any = None) -> None:
        if reason.is_failure:
            self.error(f"broker {self.config.url}: refused the connection: {reason}")
            client.disconnect()
            return
        self.connects += 1
        self.last_error = None
        self.log(f"broker {self.config.url}: connected as {self.hall}/{self.board}")
        self.state = "claiming"
        self.claim_sent = None  # a new connection: its probe goes out once subscribed
        client.subscribe([(self.topics["status"], 1), (self.topics["claim"], 1),
                          (self.topics["setup"], 1)])

    def on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any,
                     properties: Any = None) -> None:
        if mid == self._control_mid:
            if any(reason.is_failure for reason in reasons):
                self.log(f"broker {self.config.url}: may not subscribe to "
                         f"{self.topics['control']}: the arbiter's desk cannot reach this "
                         "board (the ACL: docs/mosquitto/kabelaud.acl)")
            return
        refused = [name for name, reason in zip(("status", "claim", "setup"), reasons,
                                                strict=False) if reason.is_failure]
        if refused:
            self._not_allowed(f"may not subscribe to {', '.join(refused)}")
        self.claim_sent = time.monotonic()
        client.publish(self.topics["claim"], self._claim.reset(), qos=1)

    def _not_allowed(self, what: str) -> None:
        """The broker does not let this user do what a board does (its ACL): say so."""
        user = self.config.username or "(anonymous)"
        base = f"{PREFIX}/{self.hall}/{self.board}"
        message = (f"broker {self.config.url}: user {user} {what} under {base}/, so this "
                   f"board cannot claim its name and publishes nothing (it plays on). A "
                   f"board's user must be let read and write {base}/status and {base}/claim, "
                   f"write {base}/feed and read {base}/setup (docs/mosquitto/kabelaud.acl, "
                   "where the user name is the board's name)")
        if message != self.last_error:
            self.log(message)
        self.last_error = message

    def check_claim(self) -> None:
        """Still claiming long after the probe went out: the broker drops it (an ACL)."""
        sent = self.claim_sent
        if self.state == "claiming" and sent is not None and (
                time.monotonic() - sent > CLAIM_TIMEOUT_S):
            self.claim_sent = None
            self._not_allowed(f"got no answer to its name claim in {CLAIM_TIMEOUT_S:g} s")

    def on_publish(self, client: Any, userdata: Any, mid: int, reason: Any,
                   properties: Any = None) -> None:
        self.outbox.ack(mid)

    def on_message(self, client: Any, userdata: Any, message: Any) -> None:
        name, payload = message.topic, bytes(message.payload)
        if name == self.topics["control"]:
            if self.on_control is not None and self.state == "ready":
                self.on_control(payload)
            return
        if name == self.topics["setup"]:
            if self.on_setup is not None and self.state in ("ready", "claiming"):
                self.on_setup(payload)
            return
        if name == self.topics["status"]:
            self._claim.status = payload.decode("utf-8", "replace")
            if self.state == "refused" and self._claim.status == "offline":
                self.log(f"broker: {self.hall}/{self.board} is free now; claiming it")
                self._take(client)
            elif self.state == "ready" and self._claim.status == "offline":
                # a refused twin's last will: the name is still ours
                client.publish(self.topics["status"], "online", qos=1, retain=True)
            return
        if name == self.topics["claim"]:
            self._on_claim(client, payload, bool(message.retain))

    def _on_claim(self, client: Any, payload: bytes, retained: bool) -> None:
        try:
            claim = json.loads(payload.decode("utf-8")) if len(payload) < 1024 else None
        except (UnicodeDecodeError, ValueError, RecursionError):
            claim = None
        if not isinstance(claim, Mapping) or not isinstance(claim.get("instance"), str):
            return
        other, probe = claim["instance"][:32], claim.get("probe")
        if other == self.instance and probe == self._claim.nonce:
            if self.state != "claiming":
                return
            if self._claim.taken():
                self.state = "refused"
                self.conflicts += 1
                self.log(f"REFUSED: another board (id {self._claim.owner}) is online as "
                         f"{self.hall}/{self.board} on {self.config.url}; this board "
                         f"(id {self.instance}) publishes nothing until it goes offline. "
                         "Give each board its own name (--board or [broker] board).")
            else:
                self._take(client)
            return
        if other == self.instance:
            return
        if retained or probe is None:
            self._claim.owner = other
            if self.state == "ready" and not retained:
                self.conflicts += 1
                self.log(f"CONFLICT: board id {other} took the name {self.hall}/{self.board}")
        elif self.state == "ready":
            self.conflicts += 1
            self.log(f"REFUSED another board (id {other}) claiming {self.hall}/{self.board}: "
                     "the name is this board's")

    def _take(self, client: Any) -> None:
        mine = json.dumps({"instance": self.instance})
        client.publish(self.topics["claim"], mine, qos=1, retain=True)
        client.publish(self.topics["status"], "online", qos=1, retain=True)
        self._claim.owner = self.instance
        self.state = "ready"
        self.claim_sent = None
        if self.on_control is not None:  # the name is ours: the desk may act on this board
            self._control_mid = client.subscribe(self.topics["control"], 1)[1]
        self.snapshot()  # the game as it stands, after what the broker missed
        self.publish_queued(client)

    def publish_queued(self, client: Any) -> None:
        """The desk's replies, then the feed lines the window lets out."""
        outbox = self.outbox
        while outbox.replies:
            client.publish(self.topics["reply"], outbox.replies.popleft(), qos=1)
        while (line := outbox.next_line()) is not None:
            info = client.publish(self.topics["feed"], line.encode("utf-8"), qos=1)
            outbox.sent(info.mid, line)

    def error(self, message: str) -> None:
        if message != self.last_error:
            self.log(f"{message} (retrying; the board plays on)")
        self.last_error = message


class BoardLink:
    """See the module docstring. ``start()``, ``send(line)`` from any thread, ``close()``.

    Composed of its :class:`_Outbox` (the lines waiting, shared with the service's threads)
    and its :class:`_Talk` (what the broker says, and the link's ``state``); the link itself
    owns its thread, the paho client and the wake-up pipe."""

    def __init__(
        self,
        config: BrokerConfig,
        hall: str,
        board: str,
        instance: str,
        *,
        queue_lines: int = QUEUE_LINES,
        window: int = 64,
        backoff: tuple[float, float] = (0.2, 5.0),
        request_snapshot: Callable[[], None] | None = None,
        on_setup: Callable[[bytes], None] | None = None,
        on_control: Callable[[bytes], None] | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.hall = check_name(hall, "hall")
        self.board = check_name(board, "board")
        self.instance = instance
        self.backoff_min, self.backoff_max = backoff
        #: Asked for once the name is claimed (the game as it stands); set on attaching.
        self.request_snapshot = request_snapshot
        self.log = log or logger.info
        self.topics = {leaf: topic(hall, board, leaf)
                       for leaf in ("feed", "status", "setup", "claim", "control", "reply")}
        self.outbox = _Outbox(queue_lines, window)
        self.talk = _Talk(config, (self.hall, self.board, instance), self.topics, self.outbox,
                          self.log, snapshot=self._snapshot, on_setup=on_setup,
                          on_control=on_control)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._deadline = 0.0
        self._client: Any = None

    @property
    def state(self) -> str:
        return self.talk.state

    @property
    def last_error(self) -> str | None:
        return self.talk.last_error

    @property
    def acked(self) -> int:
        return self.outbox.acked

    @property
    def dropped(self) -> int:
        return self.outbox.dropped

    @property
    def _on_subscribe(self) -> Callable[..., None]:
        """paho's SUBACK callback (the talk's; a test hands it a broker's refusal)."""
        return self.talk.on_subscribe

    # -- the service's side ------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Queue one feed line as the broker carries it (with or without its newline); never
        blocks."""
        self.outbox.put(line.rstrip("\n"))
        self._wake()

    def reply(self, payload: bytes) -> None:
        """Queue one signed answer for the desk (``.../reply``); never blocks."""
        self.outbox.replies.append(payload)
        self._wake()

    def status(self) -> dict[str, Any]:
        talk, outbox = self.talk, self.outbox
        return {"broker": self.config.url, "hall": self.hall, "board": self.board,
                "state": talk.state, "connects": talk.connects, "published": outbox.published,
                "acked": outbox.acked, "queued": outbox.pending(), "dropped": outbox.dropped,
                "error": talk.last_error}

    def start(self) -> BoardLink:
        self._thread = threading.Thread(target=self._run, name="broker-link", daemon=True)
        self._thread.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        """Send what is queued (for up to ``timeout`` seconds), say ``offline``, disconnect."""
        self._deadline = time.monotonic() + timeout
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout + 2.0)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"!")
        except (BlockingIOError, OSError):
            pass  # the pipe is full (the thread will wake anyway) or closed (stopping)

    def _snapshot(self) -> None:
        if self.request_snapshot is not None:
            self.request_snapshot()

    # -- the link's thread -------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff_min
        while not self._stop.is_set():
            if self._connect():
                delay = self.backoff_min
                self._serve()
                self._drop_client()
            if self._stop.is_set():
                break
            self._stop.wait(delay)
            delay = min(delay * 2, self.backoff_max)
        self.talk.state = "stopped"

    def _connect(self) -> bool:
        import paho.mqtt.client as mqtt

        talk = self.talk
        try:
            client = make_client(self.config,
                                 f"kabelaud-{self.hall}-{self.board}-{self.instance}")
        except BoardError as exc:  # the CA file went away or changed since the start
            talk.error(f"broker {self.config.url}: {exc}")
            return False
        client.will_set(self.topics["status"], "offline", qos=1, retain=True)
        client.on_connect = talk.on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = talk.on_message
        client.on_subscribe = talk.on_subscribe
        client.on_publish = talk.on_publish
        talk.state = "connecting"
        try:
            client.connect(self.config.host, self.config.port, keepalive=self.config.keepalive)
        except (OSError, mqtt.WebsocketConnectionError, ValueError) as exc:
            talk.error(f"broker {self.config.url}: cannot connect: {connect_error(exc)}")
            return False
        self._client = client
        return True

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any = None) -> None:
        if self._client is client:
            self._client = None  # _serve ends; _run reconnects

    def _serve(self) -> None:
        """The external loop: read, write, keepalive and publish until the connection ends."""
        import paho.mqtt.client as mqtt

        client, talk = self._client, self.talk
        while self._client is not None:
            if self._stop.is_set() and self._finish():
                return
            sock = client.socket()
            if sock is None:
                return
            want_write = client.want_write()
            try:
                readable, writable, _ = select.select(
                    [sock, self._wake_r], [sock] if want_write else [], [], 1.0)
            except (OSError, ValueError):
                return
            if self._wake_r in readable:
                try:
                    while os.read(self._wake_r, 4096):
                        pass
                except (BlockingIOError, OSError):
                    pass
            rc = mqtt.MQTT_ERR_SUCCESS
            if sock in readable:
                rc = client.loop_read()
            if rc == mqtt.MQTT_ERR_SUCCESS and sock in writable:
                rc = client.loop_write()
            if rc == mqtt.MQTT_ERR_SUCCESS:
                rc = client.loop_misc()
            if rc != mqtt.MQTT_ERR_SUCCESS:
                talk.error(f"broker {self.config.url}: connection lost ({mqtt.error_string(rc)})")
                return
            if talk.state == "ready":
                talk.publish_queued(client)
            elif talk.claim_sent is not None:
                talk.check_claim()

    def _finish(self) -> bool:
        """Stopping: True once the queue is sent (or the deadline passed) and we said bye."""
        talk = self.talk
        empty = self.outbox.pending() == 0
        if talk.state == "ready" and not empty and time.monotonic() < self._deadline:
            return False
        if talk.state == "ready":
            talk.state = "stopping"  # our own "offline" coming back is no twin's will
            self._client.publish(self.topics["status"], "offline", qos=1, retain=True)
        client = self._client
        client.disconnect()
        self._pump(client, 0.5)
        return True

    @staticmethod
    def _pump(client: Any, seconds: float) -> None:
        """Write what paho holds (the last status, the DISCONNECT) for up to ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            sock = client.socket()
            if sock is None or not client.want_write():
                return
            select.select([], [sock], [], 0.05)
            client.loop_write()

    def _drop_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.socket() and client.socket().close()
            except OSError:
                pass
        self.outbox.requeue()  # unacknowledged lines go out again, first, next connection
        if self.talk.state != "refused":
            self.talk.state = "connecting"
