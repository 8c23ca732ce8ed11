"""What is to be said, and the bounded queue it waits in for the speaker.

An :class:`Utterance` is one text with its ``kind`` (the WAV file's name: ``0003-move.wav``),
whether it is ``essential`` (what the person at the board must act on: the engine's move to
carry out, an irregularity, a flag, 10 s left, the result) and which kinds of utterances still
waiting it makes stale (``replaces``: a move made makes a waiting irregularity of the move
before it pointless; a new irregularity the one before it). One that ``retracts`` (the board
right again) is itself left out when it found one of those still waiting: neither is said.

:class:`SpeechQueue` holds at most ``capacity`` utterances. A full queue drops its oldest
non-essential utterance (or, when all are essential, its oldest) and counts it: the board
never waits for the voice, and what is said is never far behind the game.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Utterance:
    text: str
    kind: str
    essential: bool = False
    replaces: frozenset[str] = frozenset()
    retracts: bool = False


class SpeechQueue:
    """Utterances in order, bounded (module docstring); thread-safe."""

    def __init__(self, capacity: int = 8) -> None:
        if capacity < 1:
            raise ValueError(f"a speech queue holds at least one utterance, not {capacity}")
        self.capacity = capacity
        self._items: deque[Utterance] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._unfinished = 0  # queued or being said (queue.Queue's task count)
        #: Utterances left out because the queue was full.
        self.dropped = 0
        #: Utterances taken out unsaid because a later one made them stale.
        self.replaced = 0

    def __len__(self) -> int:
        with self._cond:
            return len(self._items)

    def put(self, item: Utterance) -> None:
        """Queue ``item``; never blocks."""
        with self._cond:
            if self._closed:
                return
            if item.replaces:
                kept = deque(u for u in self._items if u.kind not in item.replaces)
                gone = len(self._items) - len(kept)
                self.replaced += gone
                self._unfinished -= gone
                self._items = kept
                if gone and item.retracts:
                    self.replaced += 1
                    self._cond.notify_all()
                    return
            if len(self._items) >= self.capacity:
                victim = next((u for u in self._items if not u.essential), self._items[0])
                self._items.remove(victim)
                self.dropped += 1
                self._unfinished -= 1
            self._items.append(item)
            self._unfinished += 1
            self._cond.notify_all()

    def take(self, timeout: float | None = None) -> Utterance | None:
        """The next utterance, waiting for one; None once closed (or at ``timeout``)."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._items or self._closed, timeout):
                return None
            if self._closed:
                return None
            return self._items.popleft()

    def done(self) -> None:
        """The utterance last taken is said (or given up)."""
        with self._cond:
            self._unfinished -= 1
            self._cond.notify_all()

    def join(self, timeout: float | None = None) -> bool:
        """Wait until every utterance put is said or left out; False at ``timeout``."""
        with self._cond:
            return self._cond.wait_for(lambda: self._unfinished <= 0 or self._closed, timeout)

    def clear(self) -> int:
        """Forget every waiting utterance; how many there were."""
        with self._cond:
            n = len(self._items)
            self._items.clear()
            self._unfinished -= n
            self._cond.notify_all()
            return n

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._unfinished -= len(self._items)
            self._items.clear()
            self._cond.notify_all()
