"""Leases with a fencing epoch: who leads a library (or the schedules) until when (PostgreSQL only).

A lease row names its holder and an ``epoch`` that grows each time the
lease changes hands.  The holder renews it well before it expires (and may
renew it late, as long as its row is unchanged); another node takes it only
once it has expired.  A leader's writes check the lease
in their own transaction (:mod:`.cluster_fence`): ``FOR KEY SHARE`` on the
row, which a renewal (a plain UPDATE) does not wait for, while a takeover
locks the row ``FOR UPDATE`` first, so it waits for every fenced write that
checked the old lease to commit, and no such write can commit after it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ._lease_lane import lease_lane
from ._store import Statement, Store, StoreError
from .cluster_nodes import DB_NOW_MS

TAKEOVER_LOCK_TIMEOUT_MS = 1000

log = logging.getLogger(__name__)


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
    try:
        _timeout, previous, taken = await store.transaction([
            # A holder stalled in a transaction keeps its row lock until PostgreSQL ends that
            # transaction (idle_in_transaction_session_timeout): give up and try next round.
            Statement(f"SET LOCAL lock_timeout = {TAKEOVER_LOCK_TIMEOUT_MS}"),
            Statement("SELECT node_id FROM cluster_leases WHERE name = ? FOR UPDATE", (name,)),
            Statement(_TAKE, (name, node_id, ttl_ms)),
        ])  # fmt: skip
    except StoreError:
        await _end_stuck_holders(store, ttl_ms)
        raise
    if not taken.rows:
        return None
    before = previous.rows[0]["node_id"] if previous.rows else None
    return Lease(name, node_id, int(taken.rows[0]["epoch"]), before)


# A session that has held a lock on cluster_leases for longer than a lease while the lease
# expired (the takeover waits for it) belongs to a holder stopped mid-statement: a process
# paused while it streamed a many-row statement waits 'active' for its next row, which
# idle_in_transaction_session_timeout does not end.  Its writes may not commit any more
# (fenced): ending its session lets the takeover through; the paused holder finds its
# connection closed when it wakes.
_END_STUCK = (
    "SELECT count(pg_terminate_backend(l.pid)) AS ended FROM pg_locks l "
    "JOIN pg_stat_activity a ON a.pid = l.pid "
    "WHERE l.relation = CAST('cluster_leases' AS regclass) AND l.granted AND l.pid <> pg_backend_pid() "
    "AND a.state = 'active' AND a.wait_event = 'ClientRead' "
    "AND a.xact_start < clock_timestamp() - make_interval(secs => ?)"
)


async def _end_stuck_holders(store: Store, ttl_ms: int) -> None:
    try:
        ended = await store.fetch_value(_END_STUCK, (ttl_ms / 1000,))
    except StoreError as error:
        log.warning("could not end the sessions holding an expired lease: %s", error)
        return
    if ended:
        log.warning("ended %s database session(s) stuck holding an expired lease", ended)


async def renew_leases(store: Store, node_id: str, held: Sequence[tuple[str, int]], ttl_ms: int) -> set[str]:
    """Extend each held (name, epoch) by ``ttl_ms``; the names this node still holds.

    A lease whose row still names this node and epoch is renewed even if it
    expired: nobody took it meanwhile (a takeover moves the epoch on, a
    release deletes the row), so nobody else led, and this node's late
    renewal (a slow round under load) need not cost it the lease.  While it
    was expired, the fence refused this node's writes for it
    (:mod:`.cluster_fence` checks the expiry), and a takeover is atomic with
    the renewal: both update the one row, so whichever commits first wins and
    the other finds the row changed.  The holder's own step-down by its clock
    (actors/cluster/renewal.py) is what keeps a node cut off from the
    database from leading past its lease.  Runs in the lease lane
    (:mod:`._lease_lane`): never queued behind other writes.
    """
    if not held:
        return set()
    with lease_lane():
        results = await store.transaction([
            Statement(
                f"UPDATE cluster_leases SET expires_at = {DB_NOW_MS} + ? WHERE name = ? AND node_id = ? AND epoch = ?",
                (ttl_ms, name, node_id, epoch),
            )
            for name, epoch in held
        ])  # fmt: skip
    return {name for (name, _epoch), result in zip(held, results, strict=True) if result.rowcount == 1}


async def open_lease_lane(store: Store) -> None:
    """Connect the lease lane now (a node's start), not at the first renewal: under load the
    connection's opening is the slowest part of a renewal."""
    with lease_lane():
        await store.transaction([Statement("SELECT 1")])


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
