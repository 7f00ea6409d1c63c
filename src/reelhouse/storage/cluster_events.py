"""The event log of a cluster: one sequence for every node's events (PostgreSQL only).

Each node's EventBus appends what its actors published; the seqs come
from here, under a transaction-scoped advisory lock, so appends commit one
after another and commit order is seq order: a node reading ``seq > N``
never sees a later event before an earlier one.  The transaction also
announces the append (``NOTIFY``) and every node's bus reads the new events
back (``after``), its own included, and delivers them in that one order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import trio

from ._store import Statement, Store
from .cluster_commands import notify_statement
from .events import StoreEventLog

EVENT_WAKE = "e"  # the notification payload of an append

_APPEND = (
    "INSERT INTO events (seq, kind, data, at) "
    "SELECT (SELECT COALESCE(MAX(seq), 0) FROM events) + t.n, t.kind, t.data, t.at "
    "FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[])) WITH ORDINALITY AS t(kind, data, at, n)"
)


class ClusterEventLog(StoreEventLog):
    """A StoreEventLog that numbers events itself (the runtime's SharedEventLog)."""

    def __init__(self, store: Store, channel: str, changed: Callable[[], trio.Event], wake: Callable[[], None]) -> None:
        super().__init__(store)
        self._channel = channel
        self._changed = changed
        self._wake = wake

    def changed(self) -> trio.Event:
        return self._changed()

    async def append_published(self, events: Sequence[tuple[str, Mapping[str, Any], int]]) -> None:
        if not events:
            return
        kinds = [kind for kind, _data, _at in events]
        data = [json.dumps(dict(body)) for _kind, body, _at in events]
        at = [at_ms for _kind, _data, at_ms in events]
        await self._store.transaction([
            # One appender at a time across the nodes (per schema: the key is the channel's).
            Statement("SELECT pg_advisory_xact_lock(hashtext(?))", (self._channel,)),
            Statement(_APPEND, (kinds, data, at)),
            notify_statement(self._channel, EVENT_WAKE),
        ])  # fmt: skip
        self._wake()  # this node's tail looks at once, without waiting for its own notification
