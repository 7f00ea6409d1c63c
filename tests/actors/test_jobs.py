"""JobRegistry: snapshots, rates, retention and cancel forwarding."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import trio

from reelhouse import errors
from reelhouse.actors.jobs import (
    MAX_FINISHED_JOBS,
    CancelRoute,
    JobRegistry,
    JobSnapshot,
    JobUpdate,
    ListJobs,
    RouteCancel,
)
from reelhouse.runtime import Actor, spawn
from reelhouse.storage._store import now_ms


@dataclass(frozen=True)
class Stop:
    pass


class Owner(Actor):
    def __init__(self) -> None:
        self.cancelled = 0

    async def handle(self, msg: object) -> object:
        match msg:
            case Stop():
                self.cancelled += 1
        return None


def running(processed: int, total: int | None = 100, **kw: object) -> JobSnapshot:
    return JobSnapshot("scan:lib", "scan", "Scan lib", "running", True, processed=processed, total=total,
                       started_at_ms=1_000, **kw)  # type: ignore[arg-type]


async def test_lists_the_latest_snapshot_with_job_fields(nursery: trio.Nursery) -> None:
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    await jobs.tell(JobUpdate(running(5, library_id="lib", phase="walk")))
    [job] = await jobs.ask(ListJobs(), timeout=1)
    assert job["id"] == "scan:lib" and job["state"] == "running" and job["phase"] == "walk"
    assert job["processed"] == 5 and job["total"] == 100 and job["cancellable"] is True
    assert job["startedAt"].endswith("Z") and "finishedAt" not in job


async def test_per_minute_and_eta_come_from_the_last_60_seconds(nursery: trio.Nursery, autojump_clock: object) -> None:
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    for step in range(7):
        await jobs.tell(JobUpdate(running(step * 10)))
        await trio.sleep(10)
    [job] = await jobs.ask(ListJobs(), timeout=1)
    assert job["perMinute"] == 60
    assert job["etaSeconds"] == 40  # 40 left at 60 a minute


async def test_cancel_is_routed_to_the_owner_and_never_asked_by_the_registry(nursery: trio.Nursery) -> None:
    """The registry answers who cancels; it never asks the owner (which tells it: an ask cycle)."""
    owner_actor = Owner()
    owner = await spawn(nursery, owner_actor, "owner")
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    await jobs.tell(JobUpdate(running(1), owner=owner, cancel=Stop()))
    route = await jobs.ask(RouteCancel("scan:lib"), timeout=1)
    assert route == CancelRoute(owner, Stop())
    assert owner_actor.cancelled == 0  # nothing asked sideways


async def test_cancel_of_an_unknown_job_is_not_found(nursery: trio.Nursery) -> None:
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    with pytest.raises(errors.NotFound):
        await jobs.ask(RouteCancel("scan:nope"), timeout=1)


async def test_cancel_of_a_finished_job_is_a_conflict(nursery: trio.Nursery) -> None:
    owner = await spawn(nursery, Owner(), "owner")
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    done = JobSnapshot("scan:lib", "scan", "Scan", "succeeded", False, started_at_ms=1, finished_at_ms=2)
    await jobs.tell(JobUpdate(done, owner=owner, cancel=Stop()))
    with pytest.raises(errors.Conflict):
        await jobs.ask(RouteCancel("scan:lib"), timeout=1)


async def test_finished_jobs_expire_after_the_retention(nursery: trio.Nursery, autojump_clock: object) -> None:
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    done = JobSnapshot("scan:lib", "scan", "Scan", "succeeded", False, started_at_ms=1, finished_at_ms=2)
    await jobs.tell(JobUpdate(done))
    assert len(await jobs.ask(ListJobs(), timeout=1)) == 1
    await trio.sleep(3601)
    assert await jobs.ask(ListJobs(), timeout=1) == []


async def test_at_most_the_newest_hundred_finished_jobs_are_kept(nursery: trio.Nursery, autojump_clock: object) -> None:
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    for n in range(MAX_FINISHED_JOBS + 30):
        await jobs.tell(JobUpdate(JobSnapshot(f"task:{n}", "scan", "Scan", "succeeded", False, started_at_ms=n,
                                              finished_at_ms=n + 1)))  # fmt: skip
        await trio.sleep(1)
    listed = {job["id"] for job in await jobs.ask(ListJobs(), timeout=1)}
    assert listed == {f"task:{n}" for n in range(30, MAX_FINISHED_JOBS + 30)}


# --- stored jobs (both backends) ---------------------------------------------


async def test_jobs_are_listed_by_a_new_registry_after_a_restart(store: object) -> None:
    async with trio.open_nursery() as nursery:
        jobs = await spawn(nursery, JobRegistry(store), "jobs")  # type: ignore[arg-type]
        done = JobSnapshot("scan:lib", "scan", "Scan", "succeeded", False, started_at_ms=1, finished_at_ms=now_ms())
        await jobs.ask(ListJobs(), timeout=5)
        await jobs.tell(JobUpdate(done))
        await jobs.ask(ListJobs(), timeout=5)  # the tell was handled (and stored)
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        again = await spawn(nursery, JobRegistry(store), "jobs")  # type: ignore[arg-type]
        [job] = await again.ask(ListJobs(), timeout=5)
        assert job["id"] == "scan:lib" and job["state"] == "succeeded"
        with pytest.raises(errors.Conflict):
            await again.ask(RouteCancel("scan:lib"), timeout=5)
        with pytest.raises(errors.NotFound):
            await again.ask(RouteCancel("scan:other"), timeout=5)
        nursery.cancel_scope.cancel()


async def test_stored_jobs_past_the_retention_are_not_listed(store: object) -> None:
    async with trio.open_nursery() as nursery:
        jobs = await spawn(nursery, JobRegistry(store, retention_seconds=60), "jobs")  # type: ignore[arg-type]
        old = JobSnapshot("backup", "backup", "Backup", "succeeded", False, started_at_ms=1,
                          finished_at_ms=now_ms() - 120_000)
        await jobs.tell(JobUpdate(old))
        await jobs.ask(ListJobs(), timeout=5)
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        again = await spawn(nursery, JobRegistry(store, retention_seconds=60), "jobs")  # type: ignore[arg-type]
        assert await again.ask(ListJobs(), timeout=5) == []
        nursery.cancel_scope.cancel()
