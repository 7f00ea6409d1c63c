"""The event log in the store: the EventBus's persistence across restarts.

:class:`StoreEventLog` fulfils the actors' ``EventLog`` protocol.  Storage
must not import the actors package (dependencies point http -> actors ->
storage), so events come back as :class:`StoredEvent`, field for field the
same as the bus's ``Event``; ``append`` takes anything with those fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ._store import Row, Store

_INSERT = "INSERT INTO events (seq, kind, data, at) VALUES (?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING"


class EventLike(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...
    @property
    def at_ms(self) -> int: ...


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event as stored: global ``seq`` (from 1), ``kind``, JSON ``data``, wall-clock ``at_ms``."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    at_ms: int


class StoreEventLog:
    """An EventLog on the ``events`` table.

    The bus is the one appender; seqs never repeat while the database lives
    (:meth:`trim` always keeps the newest event, so :meth:`last_seq` holds).
    """

    def __init__(self, store: Store) -> None:
        self._store = store

    async def last_seq(self) -> int:
        """The highest seq ever appended, 0 for an empty log."""
        value = await self._store.fetch_value("SELECT MAX(seq) FROM events")
        return int(value) if value is not None else 0

    async def tail(self, limit: int) -> list[StoredEvent]:
        """The newest ``limit`` events, ascending by seq."""
        if limit <= 0:
            return []
        rows = await self._store.fetch_all(
            "SELECT seq, kind, data, at FROM events ORDER BY seq DESC LIMIT ?", (limit,)
        )
        return [_event(row) for row in reversed(rows)]

    async def after(self, seq: int, limit: int) -> list[StoredEvent]:
        """Up to ``limit`` events with a seq above ``seq``, ascending."""
        rows = await self._store.fetch_all(
            "SELECT seq, kind, data, at FROM events WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit)
        )
        return [_event(row) for row in rows]

    async def append(self, events: Sequence[EventLike]) -> None:
        """Store ``events`` in one transaction; seqs already stored are skipped.

        Raises ValueError (storing nothing) when the new seqs do not continue
        the log one by one; StoreError when the write fails.
        """
        last = await self.last_seq()
        fresh = [event for event in events if event.seq > last]
        for expected, event in enumerate(fresh, start=last + 1):
            if event.seq != expected:
                raise ValueError(f"event seq {event.seq} does not follow {expected - 1}")
        if fresh:
            rows = [(e.seq, e.kind, json.dumps(dict(e.data)), e.at_ms) for e in fresh]
            await self._store.execute_many(_INSERT, rows)

    async def trim(self, keep: int) -> int:
        """Delete all but the newest ``keep`` events (at least one is kept); returns how many."""
        last = await self.last_seq()
        result = await self._store.execute("DELETE FROM events WHERE seq <= ?", (last - max(keep, 1),))
        return result.rowcount


def _event(row: Row) -> StoredEvent:
    return StoredEvent(seq=int(row["seq"]), kind=row["kind"], data=json.loads(row["data"]), at_ms=int(row["at"]))
