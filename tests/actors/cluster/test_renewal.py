"""Lease renewals of one node (actors/cluster/renewal.py) on an autojump clock, on PostgreSQL.

The database is real and instantaneous in simulated time (tests/clock_held_store.py);
:class:`SimulatedLeases` wraps it to make one renewal (or every one) answer late, and
to reckon each lease's expiry in the database on the simulated clock: a renewal that
reaches the database after that expiry finds the lease expired there, as a real clock
would show it. The cluster is PostgreSQL only (a SQLite server holds no lease).
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from reelhouse.actors.cluster import ClusterConfig, ClusterNode, Leadership, LeaseLost, keep_leading
from reelhouse.actors.cluster.seat import SchedulerSeat
from reelhouse.media.library_options import LibraryOptions
from reelhouse.runtime import Actor, ChildSpec, RootActor, spawn
from reelhouse.storage import Statement, Store, WriteResult
from reelhouse.storage.cluster_leases import acquire_lease, lease_holder
from reelhouse.storage.libraries import create_library

from ...clock_held_store import clock_held_store

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

LEASE = 10.0  # the default lease
INTERVAL = LEASE / 3  # the renewal interval
CAP_S = 20 * LEASE  # simulated: a node that never settles fails here, saying what it waited for
LIBRARY = "lib-renewal"


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0.05)  # after the store's threads and sockets answered


@pytest.fixture
async def store(database_url: str, autojump_clock: MockClock) -> AsyncIterator[Store]:
    async with clock_held_store(database_url, autojump_clock) as held:
        yield held


class SimulatedLeases:
    """``store``, with lease renewals slowed on demand and lease expiry reckoned on the simulated clock."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.late_renewals: list[float] = []  # how late each next renewal answers (inf: never)
        self.late_library_lists: list[float] = []  # the same for the next looks at the library list
        self.expires: dict[str, float] = {}  # each lease's expiry in the database, simulated
        self.slowed = 0

    @property
    def backend(self) -> str:
        return self._store.backend

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> Any:
        if "FROM libraries" in sql and self.late_library_lists:
            await self._late(self.late_library_lists.pop(0))
        return await self._store.fetch_all(sql, params)

    async def transaction(self, statements: Sequence[Statement]) -> list[WriteResult]:
        renewal = statements[0].sql.startswith("UPDATE cluster_leases SET expires_at")
        if renewal and self.late_renewals:
            await self._late(self.late_renewals.pop(0))
        if renewal:
            for statement in statements:
                name = str(statement.params[1])
                if trio.current_time() > self.expires.get(name, math.inf):  # as a real clock would have it
                    await self._store.execute("UPDATE cluster_leases SET expires_at = 0 WHERE name = ?", (name,))
        results = await self._store.transaction(statements)
        self._note_terms(statements, results)
        return results

    def _note_terms(self, statements: Sequence[Statement], results: list[WriteResult]) -> None:
        for statement, result in zip(statements, results, strict=True):
            taken = statement.sql.startswith("INSERT INTO cluster_leases") and result.rows
            if taken or (statement.sql.startswith("UPDATE cluster_leases SET expires_at") and result.rowcount):
                name = statement.params[0] if taken else statement.params[1]
                self.expires[str(name)] = trio.current_time() + LEASE

    async def _late(self, seconds: float) -> None:
        self.slowed += 1
        await trio.sleep(seconds)  # simulated, outside the clock's hold: the answer comes this late


class Told(Actor):
    """A fake registry: what keep_leading tells it, with the simulated time."""

    def __init__(self) -> None:
        self.messages: list[tuple[float, object]] = []
        self.lost = trio.Event()

    async def handle(self, msg: object) -> object:
        self.messages.append((trio.current_time(), msg))
        if isinstance(msg, LeaseLost):
            self.lost.set()
        return None


class Idle(Actor):
    async def handle(self, msg: object) -> object:
        return None


def lone_node(leases: SimulatedLeases) -> ClusterNode:
    return ClusterNode(leases, "lone", "", "reelhouse_test", ClusterConfig(lease_seconds=LEASE))  # type: ignore[arg-type]


async def leading(leases: SimulatedLeases, tmp_path: Path) -> Leadership:
    """A lone node leading one library (its row exists: the look for libraries finds it)."""
    await create_library(leases, library_id=LIBRARY, name="Films", collection_type="movies",  # type: ignore[arg-type]
                         paths=[str(tmp_path)], options=LibraryOptions())
    leadership = Leadership(lone_node(leases))
    lease = await leadership.acquire(LIBRARY)
    assert lease is not None and leadership.held(lease)
    return leadership


async def test_a_lone_node_keeps_its_library_through_a_round_whose_renewal_and_look_answer_late(
    store: Store, tmp_path: Path, autojump_clock: MockClock,
) -> None:
    # Regression: under load a lone PostgreSQL node stepped down from its own libraries ("lost
    # the lease of library ...") after one slow round. It slept a renewal interval after a round
    # of renewal (cut at an interval) and look for libraries (cut at an interval): its next
    # renewal came a whole lease after the last and found the lease expired.
    leases = SimulatedLeases(store)
    with trio.fail_after(CAP_S):
        leadership = await leading(leases, tmp_path)
        leases.late_renewals = [2 * INTERVAL]  # the first renewal answers two intervals late
        leases.late_library_lists = [2 * INTERVAL]  # the first look for libraries as late
        async with trio.open_nursery() as nursery:
            registry_actor = Told()
            registry = await spawn(nursery, registry_actor, "registry")
            nursery.start_soon(keep_leading, leadership, registry)
            await trio.sleep(6 * LEASE)
            assert leases.slowed == 2, "the slow round did not happen"
            assert registry_actor.messages == []
            assert leadership.epochs == {LIBRARY: 1}
            assert await lease_holder(store, f"library:{LIBRARY}") == ("lone", 1)
            assert trio.current_time() < leases.expires[f"library:{LIBRARY}"]  # live, by the simulated clock
            nursery.cancel_scope.cancel()


async def test_a_node_cut_off_from_the_database_steps_down_before_its_lease_can_expire_there(
    store: Store, tmp_path: Path, autojump_clock: MockClock,
) -> None:
    leases = SimulatedLeases(store)
    with trio.fail_after(CAP_S):
        leadership = await leading(leases, tmp_path)
        term_ends = leases.expires[f"library:{LIBRARY}"]
        leases.late_renewals = [math.inf] * 100  # no renewal ever answers
        async with trio.open_nursery() as nursery:
            registry_actor = Told()
            registry = await spawn(nursery, registry_actor, "registry")
            nursery.start_soon(keep_leading, leadership, registry)
            await registry_actor.lost.wait()
            ((told_at, told),) = registry_actor.messages
            assert told == LeaseLost(LIBRARY, 1)
            # Another node may take the lease once it expired in the database: this node gave
            # it up before then, though a renewal was still waiting for its answer.
            assert told_at < term_ends
            nursery.cancel_scope.cancel()


async def test_a_lease_another_node_took_is_given_up_at_the_next_renewal(
    store: Store, tmp_path: Path, autojump_clock: MockClock,
) -> None:
    leases = SimulatedLeases(store)
    with trio.fail_after(CAP_S):
        leadership = await leading(leases, tmp_path)
        name = f"library:{LIBRARY}"
        await store.execute("UPDATE cluster_leases SET expires_at = 0 WHERE name = ?", (name,))
        taken = await acquire_lease(store, name, "other", int(LEASE * 1000))
        assert taken is not None and taken.epoch == 2
        async with trio.open_nursery() as nursery:
            registry_actor = Told()
            registry = await spawn(nursery, registry_actor, "registry")
            nursery.start_soon(keep_leading, leadership, registry)
            await registry_actor.lost.wait()
            assert [msg for _at, msg in registry_actor.messages] == [LeaseLost(LIBRARY, 1)]
            assert await lease_holder(store, name) == ("other", 2)
            nursery.cancel_scope.cancel()


async def test_the_scheduler_seat_keeps_its_lease_through_a_renewal_that_answers_late(
    store: Store, autojump_clock: MockClock,
) -> None:
    leases = SimulatedLeases(store)
    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as nursery:
            root = RootActor()
            await nursery.start(root.run)
            seat = SchedulerSeat(lone_node(leases), root, ChildSpec("scheduler", Idle))
            await nursery.start(seat.run)
            assert seat.is_local()
            leases.late_renewals = [2 * INTERVAL]
            await trio.sleep(6 * LEASE)
            assert leases.slowed == 1, "the late renewal did not happen"
            assert seat.is_local() and [epoch for epoch, _since in seat.holding().values()] == [1]
            assert await lease_holder(store, "scheduler") == ("lone", 1)
            nursery.cancel_scope.cancel()
