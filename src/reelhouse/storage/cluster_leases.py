"""Leases with a fencing epoch: who leads a library (or the schedules) until when (PostgreSQL only).

A lease row names its holder and an ``epoch`` that grows each time the
lease changes hands.  The holder renews it well before it expires; another
node takes it only once it has expired.  A leader's writes check the lease
in their own transaction (:mod:`.cluster_fence`): ``FOR KEY SHARE`` on the
row, which a renewal (a plain UPDATE) does not wait for, while a takeover
locks the row ``FOR UPDATE`` first, so it waits for every fenced write that
checked the old lease to commit, and no such write can commit after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._store import Statement, Store
from .cluster_nodes import DB_NOW_MS

TAKEOVER_LOCK_TIMEOUT_MS = 1000


@dataclass(frozen=True, slots=True)
class Lease:
    name: str
    node_id: str
    epoch: int
    previous_node: str | None  # who held it before (expired or released), None for a new lease


_TAKE = (
    f"INSERT INTO cluster_leases (name, node_id, epoch, expires_at) VALUES (?, ?, 1, {DB_NOW_MS} + ?) "
    f"ON CONFLICT (name) DO UPDATE SET node_id = excluded.node_id, epoch = cluster_leases.epoch + 1, "
    f"expires_at = excluded.expires_at "
    f"WHERE cluster_leases.expires_at < {DB_NOW_MS} OR cluster_leases.node_id = excluded.node_id "
    f"RETURNING epoch"
)


async def acquire_lease(store: Store, name: str, node_id: str, ttl_ms: int) -> Lease | None:
    """Take ``name`` for ``ttl_ms`` if it is free, expired or this node's; None when another holds it.

    The row is locked FOR UPDATE first: a fenced write of the old holder
    still in flight commits before the lease changes hands.
    """
    _timeout, previous, taken = await store.transaction([
        # A holder stalled in a transaction keeps its row lock until PostgreSQL ends that
        # transaction (idle_in_transaction_session_timeout): give up and try next round.
        Statement(f"SET LOCAL lock_timeout = {TAKEOVER_LOCK_TIMEOUT_MS}"),
        Statement("SELECT node_id FROM cluster_leases WHERE name = ? FOR UPDATE", (name,)),
        Statement(_TAKE, (name, node_id, ttl_ms)),
    ])  # fmt: skip
    if not taken.rows:
        return None
    before = previous.rows[0]["node_id"] if previous.rows else None
    return Lease(name, node_id, int(taken.rows[0]["epoch"]), before)


async def renew_leases(store: Store, node_id: str, held: Sequence[tuple[str, int]], ttl_ms: int) -> set[str]:
    """Extend each held (name, epoch) by ``ttl_ms``; the names this node still holds."""
    if not held:
        return set()
    results = await store.transaction([
        Statement(
            f"UPDATE cluster_leases SET expires_at = {DB_NOW_MS} + ? "
            f"WHERE name = ? AND node_id = ? AND epoch = ? AND expires_at >= {DB_NOW_MS}",
            (ttl_ms, name, node_id, epoch),
        )
        for name, epoch in held
    ])  # fmt: skip
    return {name for (name, _epoch), result in zip(held, results, strict=True) if result.rowcount == 1}


async def release_lease(store: Store, name: str, node_id: str, epoch: int) -> None:
    """Give ``name`` up at once (a clean stop): another node need not wait for its expiry."""
    await store.execute(
        "DELETE FROM cluster_leases WHERE name = ? AND node_id = ? AND epoch = ?", (name, node_id, epoch)
    )


async def live_lease_names(store: Store) -> set[str]:
    """The names of every lease that has not expired, whoever holds it."""
    rows = await store.fetch_all(f"SELECT name FROM cluster_leases WHERE expires_at >= {DB_NOW_MS}")
    return {str(row["name"]) for row in rows}


async def lease_holder(store: Store, name: str) -> tuple[str, int] | None:
    """(node id, epoch) of the live lease ``name``, None when nobody holds it."""
    row = await store.fetch_one(
        f"SELECT node_id, epoch FROM cluster_leases WHERE name = ? AND expires_at >= {DB_NOW_MS}", (name,)
    )
    return None if row is None else (str(row["node_id"]), int(row["epoch"]))
