"""Fencing: a leader that lost its lease cannot commit a write for what it led.

A :class:`Fence` (lease name, holder, epoch) set in the context of a task
(:func:`fenced`) travels to every task it starts, and the PostgreSQL
store's :meth:`transaction` checks it as the first statement of each
transaction it runs for such a task: when the lease has expired or moved
on, the transaction is rolled back and :class:`FencedOut` raised.  A
library's actors run inside their node's fence for that library, so a
paused or cut-off leader's late writes never land after another node took
over.  SQLite never sets a fence (a server of one), so it costs nothing there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ._store import StoreUnavailable
from .cluster_nodes import DB_NOW_MS


@dataclass(frozen=True, slots=True)
class Fence:
    name: str
    node_id: str
    epoch: int


class FencedOut(StoreUnavailable):
    """This node's lease ended: another node leads now, or will once it expired."""

    summary = "this node no longer leads this library"


write_fence: ContextVar[Fence | None] = ContextVar("reelhouse_write_fence", default=None)

# Checked inside the write's transaction.  FOR KEY SHARE: a renewal does not
# wait for it, a takeover (FOR UPDATE) does (storage/cluster_leases.py).
FENCE_CHECK_SQL = (
    "SELECT 1 FROM cluster_leases WHERE name = ? AND node_id = ? AND epoch = ? "
    f"AND expires_at >= {DB_NOW_MS} FOR KEY SHARE"
)


@contextmanager
def fenced(fence: Fence) -> Iterator[None]:
    """Check ``fence`` in every transaction of this task and the tasks it starts meanwhile."""
    token = write_fence.set(fence)
    try:
        yield
    finally:
        write_fence.reset(token)


def fenced_out(fence: Fence) -> FencedOut:
    return FencedOut(f"the lease {fence.name} (epoch {fence.epoch}) of node {fence.node_id} is no longer held")
