"""Which connections a write takes: the shared writers, or the lease lane of a cluster node.

A lease renewal that waits behind a scan's writes for a free connection
can miss its lease (every writer busy with batches of the scan it fences):
on a lone node under load that made the node step down from its own
libraries.  Writes made under :func:`lease_lane` (the renewals,
:func:`.cluster_leases.renew_leases`) take a small pool of their own on
PostgreSQL, never a slot a scan holds: its pool is made at the first such
write, and a cluster node makes that write when it starts
(:func:`.cluster_leases.open_lease_lane`), so a store that is no node (a
command, a test) opens no more connections than before.
SQLite has no cluster and ignores the mark.

A context variable carries the mark, as :mod:`._read_lane` does for reads.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

_LEASES: contextvars.ContextVar[bool] = contextvars.ContextVar("reelhouse_lease_lane", default=False)


@contextmanager
def lease_lane() -> Iterator[None]:
    """Transactions run in this block take the lease lane's connections."""
    token = _LEASES.set(True)
    try:
        yield
    finally:
        _LEASES.reset(token)


def in_lease_lane() -> bool:
    return _LEASES.get()
