"""Leases with a fencing epoch (PostgreSQL: a SQLite server is a cluster of one and holds none)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest
import trio

from reelhouse.storage import Store
from reelhouse.storage.cluster_fence import Fence, FencedOut, fenced
from reelhouse.storage.cluster_leases import acquire_lease, lease_holder, release_lease, renew_leases

from .conftest import WriteGate

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

NAME = "library:abc"
LANE_WAIT_S = 15.0  # a renewal on its own connection is one round trip; queued, it waits for the gate


async def _expire(store: Store, name: str) -> None:
    await store.execute("UPDATE cluster_leases SET expires_at = 0 WHERE name = ?", (name,))


async def _written(store: Store) -> list[str]:
    return [row["id"] for row in await store.fetch_all("SELECT id FROM cluster_nodes ORDER BY id")]


async def _write(store: Store, node_id: str) -> None:
    await store.execute("INSERT INTO cluster_nodes (id, address, started_at, heartbeat_at) VALUES (?, '', 0, 0)",
                        (node_id,))


async def test_a_lease_is_held_by_one_node_until_it_expires_then_taken_over_with_a_new_epoch(store: Store) -> None:
    with trio.fail_after(30):
        first = await acquire_lease(store, NAME, "a", 60_000)
        assert first is not None and first.epoch == 1 and first.previous_node is None
        assert await acquire_lease(store, NAME, "b", 60_000) is None
        assert await renew_leases(store, "a", [(NAME, 1)], 60_000) == {NAME}
        await _expire(store, NAME)
        taken = await acquire_lease(store, NAME, "b", 60_000)
        assert taken is not None and taken.epoch == 2 and taken.previous_node == "a"
        assert await renew_leases(store, "a", [(NAME, 1)], 60_000) == set()
        assert await lease_holder(store, NAME) == ("b", 2)
        await release_lease(store, NAME, "b", 2)
        assert await lease_holder(store, NAME) is None


async def test_a_fenced_write_commits_while_the_lease_is_held_and_never_after_it_moved(store: Store) -> None:
    with trio.fail_after(30):
        assert await acquire_lease(store, NAME, "a", 60_000) is not None
        with fenced(Fence(NAME, "a", 1)):
            await _write(store, "while-held")
        await _expire(store, NAME)
        with fenced(Fence(NAME, "a", 1)), pytest.raises(FencedOut):
            await _write(store, "after-expiry")  # expired, even before anyone took it
        assert await acquire_lease(store, NAME, "b", 60_000) is not None
        with fenced(Fence(NAME, "a", 1)), pytest.raises(FencedOut):
            await _write(store, "after-takeover")
        with fenced(Fence(NAME, "b", 2)):
            await _write(store, "new-leader")
        await _write(store, "unfenced")  # the fence lives in its context only
        assert await _written(store) == ["new-leader", "unfenced", "while-held"]




async def test_a_renewal_late_past_the_expiry_keeps_the_lease_nobody_took_and_not_one_taken(store: Store) -> None:
    # A lone node whose renewal came late (a slow round under load) found its lease expired and
    # stepped down from its own library though nobody else wanted it. The row still naming the
    # node and epoch proves nobody led meanwhile: the renewal extends it. Fenced writes were
    # refused while it was expired, and are allowed again once renewed.
    with trio.fail_after(30):
        assert await acquire_lease(store, NAME, "a", 60_000) is not None
        await _expire(store, NAME)
        with fenced(Fence(NAME, "a", 1)), pytest.raises(FencedOut):
            await _write(store, "while-expired")
        assert await renew_leases(store, "a", [(NAME, 1)], 60_000) == {NAME}
        assert await lease_holder(store, NAME) == ("a", 1)
        with fenced(Fence(NAME, "a", 1)):
            await _write(store, "renewed")
        await _expire(store, NAME)
        assert await acquire_lease(store, NAME, "b", 60_000) is not None
        assert await renew_leases(store, "a", [(NAME, 1)], 60_000) == set()  # taken: an epoch later
        await release_lease(store, NAME, "b", 2)
        assert await renew_leases(store, "a", [(NAME, 1)], 60_000) == set()  # released: no row
        assert await _written(store) == ["renewed"]


async def test_a_renewal_is_not_queued_behind_writes_that_hold_every_writer_connection(
    store: Store, write_gate: Callable[[Store], AbstractAsyncContextManager[WriteGate]],
) -> None:
    # A scan's writes can hold every pooled writer for seconds; a renewal queued behind them
    # missed its lease. Renewals take the lease lane, connections of their own.
    (writers,) = [usage for usage in store.pool_usage() if usage.pool == "writers"]
    with trio.fail_after(30):
        assert await acquire_lease(store, NAME, "a", 60_000) is not None
        async with write_gate(store) as gate, trio.open_nursery() as nursery:
            for _ in range(writers.size + 1):  # every writer held, and one more caller queued
                nursery.start_soon(store.transaction, [gate.statement])
            await until_writers_full(store)
            with trio.move_on_after(LANE_WAIT_S) as waited:
                renewed = await renew_leases(store, "a", [(NAME, 1)], 60_000)
            assert not waited.cancelled_caught, "the renewal waited for a writer held by the gate"
            assert renewed == {NAME}
            await gate.open()


async def until_writers_full(store: Store) -> None:
    """Until every writer is in use and a caller waits for one (polled: the pool says no more)."""
    while True:
        (writers,) = [usage for usage in store.pool_usage() if usage.pool == "writers"]
        if writers.in_use == writers.size and writers.waiting:
            return
        await trio.sleep(0.01)
