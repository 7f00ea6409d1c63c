"""Events, the EventLog protocol that persists them, and an in-memory EventLog.

In the runtime because it is the bus's persistence seam and imports no storage code;
the store-backed log implements this protocol from the storage side.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

import trio


@dataclass(frozen=True, slots=True)
class Event:
    """One published event.

    ``seq`` is global, starts at 1, increases by one per event and is never
    reused while the database lives. ``at_ms`` is wall-clock milliseconds
    since the epoch, for display only.
    """

    seq: int
    kind: str
    data: Mapping[str, Any]
    at_ms: int


class LoggedEvent(Protocol):
    """What a log gives back: the fields of an :class:`Event`, in its own record type."""

    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...
    @property
    def at_ms(self) -> int: ...


@dataclass(frozen=True, slots=True)
class PackedEvent:
    """An Event as the replay buffer keeps it: its data as compact JSON text.

    10,000 ScanStatus events as dicts of Python objects took 12.4 MB
    (tracemalloc), as text 6.0 MB. Unpacked only when replayed (a
    reconnect).
    """

    seq: int
    kind: str
    text: str
    at_ms: int

    @classmethod
    def of(cls, event: Event) -> PackedEvent:
        return cls(event.seq, event.kind, json.dumps(dict(event.data), separators=(",", ":")), event.at_ms)

    def unpack(self) -> Event:
        return Event(self.seq, self.kind, MappingProxyType(json.loads(self.text)), self.at_ms)


class EventLog(Protocol):
    """Where the EventBus persists events before anyone sees them.

    - ``last_seq()``: the highest seq ever appended (0 if none), even if old
      events were pruned since: seqs must never be reused.
    - ``tail(limit)``: the newest ``limit`` events still kept, ascending by seq.
    - ``append(events)``: store a batch of events with contiguous seqs, in
      one transaction (all or nothing). Idempotent per seq: an event whose
      seq is already stored is skipped, because the bus retries a batch
      whose append failed ambiguously (a timeout after the commit).
    """

    async def last_seq(self) -> int: ...

    async def tail(self, limit: int) -> Sequence[LoggedEvent]: ...

    async def append(self, events: Sequence[Event]) -> None: ...


class SharedEventLog(Protocol):
    """A log several processes append to (a cluster's nodes on one database), numbered by the log.

    - ``append_published(events)``: store (kind, data, at_ms) triples with the
      next seqs of the one shared sequence, in one transaction.
    - ``after(seq, limit)``: up to ``limit`` stored events above ``seq``, ascending:
      every appender's, in commit order, which is seq order.
    - ``changed()``: an event set when events may have been appended since it
      was taken (by any process); taken *before* looking with ``after``, so an
      append in between is never missed. It may also fire for nothing.
    """

    async def append_published(self, events: Sequence[tuple[str, Mapping[str, Any], int]]) -> None: ...

    async def after(self, seq: int, limit: int) -> Sequence[LoggedEvent]: ...

    def changed(self) -> trio.Event: ...


class MemoryEventLog:
    """An EventLog kept in a list: for tests, and for running without a store."""

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self.events: list[Event] = list(events)

    async def last_seq(self) -> int:
        await trio.lowlevel.checkpoint()
        return self._last()

    async def tail(self, limit: int) -> list[Event]:
        await trio.lowlevel.checkpoint()
        return list(self.events[-limit:]) if limit > 0 else []

    async def append(self, events: Sequence[Event]) -> None:
        """Append ``events``; those already stored are skipped.

        Raises ValueError (storing nothing) if the seqs do not continue the log.
        """
        await trio.lowlevel.checkpoint()
        fresh = [event for event in events if event.seq > self._last()]
        for expected, event in enumerate(fresh, start=self._last() + 1):
            if event.seq != expected:
                raise ValueError(f"event seq {event.seq} does not follow {expected - 1}")
        self.events.extend(fresh)

    def _last(self) -> int:
        return self.events[-1].seq if self.events else 0
