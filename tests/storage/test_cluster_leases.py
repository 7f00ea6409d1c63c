"""Leases with a fencing epoch (PostgreSQL: a SQLite server is a cluster of one and holds none)."""

from __future__ import annotations

import pytest
import trio

from reelhouse.storage import Store
from reelhouse.storage.cluster_fence import Fence, FencedOut, fenced
from reelhouse.storage.cluster_leases import acquire_lease, lease_holder, release_lease, renew_leases

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

NAME = "library:abc"


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


