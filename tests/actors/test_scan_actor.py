"""ScanActor: how a scan ends when it is torn down, and its shields under the shutdown deadline."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from reelhouse.actors.scan import ScanDeps, ScanPlan
from reelhouse.actors.scan_actor import ScanActor, ScanReport, ScanSetup, ScanSlots
from reelhouse.media.library_options import LibraryOptions
from reelhouse.runtime import Actor, ActorRef, spawn
from reelhouse.shutdown import ShutdownDeadline, use_shutdown_deadline
from reelhouse.storage import Store
from reelhouse.storage.libraries import create_library
from reelhouse.storage.scans import insert_scan_run, latest_scan_run

from .scan.probe_workers import worker_command

LIBRARY_ID = "lib-scan-actor"
CAP_S = 30


class Library(Actor):
    """Stands in for the LibraryActor: keeps the reports it is told."""

    def __init__(self) -> None:
        self.reports: list[ScanReport] = []

    async def handle(self, msg: object) -> object:
        assert isinstance(msg, ScanReport)
        self.reports.append(msg)
        return None


async def scan_setup(store: Store, tmp_path: Path, library: ActorRef) -> ScanSetup:
    root = tmp_path / "films"
    (root / "Heat (1995)").mkdir(parents=True)
    (root / "Heat (1995)" / "Heat (1995).mkv").write_bytes(b"\x00" * 64)
    options = LibraryOptions(media_info_timing="scan")  # the scan waits for its probe, which hangs
    await create_library(
        store, library_id=LIBRARY_ID, name="Films", collection_type="movies", paths=[str(root)], options=options
    )
    run = await insert_scan_run(store, LIBRARY_ID, "full")
    plan = ScanPlan(LIBRARY_ID, "movies", (str(root),), "full", options)
    deps = ScanDeps(trio.CapacityLimiter(2), probe_command=worker_command(hang_on="/"), probe_timeout=120)
    return ScanSetup(run.id, plan, store, deps, ScanSlots(1), library, 0.05, run.started_at_ms)


async def test_a_scan_cancelled_by_shutdown_is_recorded_cancelled(store: Store, tmp_path: Path) -> None:
    """A shutdown cancels from outside; under strict exception groups the
    Cancelled reaches the scan wrapped in a group, and must still end it ``cancelled``."""
    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as outer:
            library_actor = Library()
            library = await spawn(outer, library_actor, "library")
            setup = await scan_setup(store, tmp_path, library)
            async with trio.open_nursery() as tree:  # the actor tree being torn down
                await spawn(tree, ScanActor(setup), "scan")
                while not any(r.status.phase == "write" for r in library_actor.reports):
                    await trio.sleep(0.05)
                await trio.sleep(0.5)  # probing now: ffprobe hangs
                assert not any(r.final for r in library_actor.reports)
                tree.cancel_scope.cancel()
            run = await latest_scan_run(store, LIBRARY_ID)
            assert run is not None and run.state == "cancelled", run
            await trio.testing.wait_all_tasks_blocked()
            assert library_actor.reports[-1].event == "scan.cancelled"
            outer.cancel_scope.cancel()


class ScanReachedFirst(ScanActor):
    """The tear-down reaches the running scan before ``on_stop`` could mark it cancelling
    (task order under cancellation is not fixed): only the exception tells."""

    async def on_stop(self) -> None:
        pass


async def test_a_cancellation_wrapped_in_an_exception_group_ends_the_scan_cancelled(
    store: Store, tmp_path: Path
) -> None:
    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as outer:
            library_actor = Library()
            library = await spawn(outer, library_actor, "library")
            setup = await scan_setup(store, tmp_path, library)
            async with trio.open_nursery() as tree:
                await spawn(tree, ScanReachedFirst(setup), "scan")
                while not any(r.status.phase == "write" for r in library_actor.reports):
                    await trio.sleep(0.05)
                await trio.sleep(0.5)
                tree.cancel_scope.cancel()
            run = await latest_scan_run(store, LIBRARY_ID)
            assert run is not None and run.state == "cancelled", run
            outer.cancel_scope.cancel()


class StuckStore:
    """A database that never answers (a lock held elsewhere, a hung disk)."""

    backend = "sqlite"

    async def execute(self, *args: object, **kwargs: object) -> object:
        await trio.sleep_forever()
        raise AssertionError


async def test_a_torn_down_scan_with_a_stuck_store_ends_by_the_shutdown_deadline(
    autojump_clock: trio.abc.Clock, tmp_path: Path
) -> None:
    """Its final record and report are shielded, but never past the one shutdown deadline."""
    with use_shutdown_deadline(ShutdownDeadline()) as deadline, trio.fail_after(CAP_S):
        async with trio.open_nursery() as outer:
            library = await spawn(outer, Library(), "library")
            slots = ScanSlots(1)
            plan = ScanPlan(LIBRARY_ID, "movies", (str(tmp_path),), "full", LibraryOptions())
            deps = ScanDeps(trio.CapacityLimiter(1))
            setup = ScanSetup(1, plan, StuckStore(), deps, slots, library, 0.05, 0)  # type: ignore[arg-type]
            async with slots.slot(plan):  # the scan waits, queued, for this slot
                async with trio.open_nursery() as tree:
                    await spawn(tree, ScanActor(setup), "scan")
                    await trio.sleep(1)
                    stopping = trio.current_time()
                    deadline.arm(stopping + 0.5)
                    tree.cancel_scope.cancel()
                assert trio.current_time() - stopping == pytest.approx(0.5)
            outer.cancel_scope.cancel()
