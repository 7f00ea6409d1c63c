"""Scheduler trigger logic on an autojump clock (simulated wall time), on both backends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import trio
from trio.testing import MockClock

from reelhouse import errors
from reelhouse.actors.jobs import JobRegistry, ListJobs
from reelhouse.actors.library_registry import LIBRARY_DELETED
from reelhouse.actors.schedule import (
    STALE_CHECKS_FACTOR,
    STALE_CHECKS_SLACK,
    CancelRun,
    ListSchedules,
    PlaybackActivity,
    RunEnd,
    RunNow,
    ScanActivity,
    Scheduler,
    SchedulerServices,
    TaskContext,
    TaskDefinition,
    trio_wall_clock,
)
from reelhouse.media.schedule import Rule, Window
from reelhouse.runtime import EventBus, MemoryEventLog, spawn
from reelhouse.storage import Store
from reelhouse.storage import schedules as stored

from ..clock_held_store import clock_held_store

BERLIN = ZoneInfo("Europe/Berlin")
START = datetime(2026, 3, 27, 12, 0, tzinfo=UTC)


class Recorder:
    """A fake task body: records each start's wall time, then works ``seconds``."""

    def __init__(self, seconds: float = 1.0, result: str = "succeeded") -> None:
        self.starts: list[datetime] = []
        self.seconds, self.result = seconds, result

    async def __call__(self, ctx: TaskContext) -> RunEnd:
        self.starts.append(ctx.wall())
        ctx.progress(processed=0, total=1)
        await trio.sleep(self.seconds)
        ctx.progress(processed=1)
        return RunEnd(self.result)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


async def start(nursery: trio.Nursery, store: Store, rules: tuple[Rule, ...], body: Recorder, *,
                start_at: datetime = START, allows_after_scan: bool = False, jobs: object = None,
                reload_poll_seconds: float | None = None) -> object:
    definition = TaskDefinition("work", rules, allows_after_scan=allows_after_scan, title="Work")
    services = SchedulerServices(store=store, jobs=jobs, time_zone=BERLIN,  # type: ignore[arg-type]
                                 reload_poll_seconds=reload_poll_seconds)
    wall = trio_wall_clock(start_at)
    return await spawn(nursery, Scheduler(services, {"work": (definition, body)}, wall), "scheduler")


@pytest.fixture
def autojump_clock() -> MockClock:
    """An autojump clock that jumps as soon as every task waits. The store holds it while it answers
    (``store`` below), so no real quiet is needed for the database's threads: a threshold of 50 ms
    cost every jump 50 ms of real time (3.7 s for the 72 scans of the check-heap test)."""
    return MockClock(autojump_threshold=0)


@pytest.fixture
async def store(database_url: str, autojump_clock: MockClock) -> AsyncIterator[Store]:
    """The database, instantaneous in simulated time (tests/clock_held_store.py): a slow
    answer on a loaded machine must not let the clock jump past what a test observes."""
    async with clock_held_store(database_url, autojump_clock) as held:
        yield held


async def test_a_daily_cron_runs_once_a_day_across_the_spring_dst_change(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder()
    await start(nursery, store, (Rule("cron", cron="30 2 * * *"),), body)
    await trio.sleep(4 * 86400)
    # 02:30 does not exist in Berlin on 29 March: it runs once, at 03:30 CEST.
    assert body.starts == [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30), utc(2026, 3, 30, 0, 30),
                           utc(2026, 3, 31, 0, 30)]


async def test_an_hourly_cron_runs_once_in_the_repeated_autumn_hour(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder()
    await start(nursery, store, (Rule("cron", cron="0 2 * * *"),), body, start_at=utc(2026, 10, 24, 12))
    await trio.sleep(2 * 86400)
    assert body.starts == [utc(2026, 10, 25, 0, 0), utc(2026, 10, 26, 1, 0)]


async def test_an_interval_counts_from_the_previous_start(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder(seconds=100)
    await start(nursery, store, (Rule("interval", every_seconds=300),), body)
    await trio.sleep(1000)
    assert [(t - START).total_seconds() for t in body.starts] == [300, 600, 900]


async def test_a_run_still_going_when_its_window_closes_is_cancelled(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder(seconds=7200)
    jobs = await spawn(nursery, JobRegistry(), "jobs")
    rule = Rule("cron", cron="0 1 * * *", window=Window(60, 90))  # 01:00-01:30 Berlin
    scheduler = await start(nursery, store, (rule,), body, jobs=jobs)
    await trio.sleep(13 * 3600)  # to 01:00 UTC, half an hour after the window closed
    [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]  # type: ignore[attr-defined]
    assert body.starts == [utc(2026, 3, 28, 0, 0)]
    assert schedule["lastResult"] == "cancelled" and schedule["running"] is False
    assert schedule["lastFinishedAt"] == "2026-03-28T00:30:00.000Z"
    [job] = await jobs.ask(ListJobs(), timeout=5)
    assert job["id"] == "task:work" and job["state"] == "cancelled" and "window" in job["message"]


async def test_an_idle_task_starts_once_after_ten_quiet_minutes(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder()
    scheduler = await start(nursery, store, (Rule("idle"),), body)
    await scheduler.tell(ScanActivity("lib", active=True))  # type: ignore[attr-defined]
    await trio.sleep(3600)
    assert body.starts == []  # a scan runs: never idle
    await scheduler.tell(ScanActivity("lib", active=False, completed=True))  # type: ignore[attr-defined]
    quiet = START + timedelta(seconds=3600)
    await trio.sleep(300)
    await scheduler.tell(PlaybackActivity(True))  # type: ignore[attr-defined]
    await trio.sleep(3600)
    assert body.starts == []  # someone plays
    await scheduler.tell(PlaybackActivity(False))  # type: ignore[attr-defined]
    await trio.sleep(3 * 3600)
    assert body.starts == [quiet + timedelta(seconds=300 + 3600 + 600)]  # once per quiet period


async def test_after_scan_runs_the_task_once_a_scan_completes(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder()
    scheduler = await start(nursery, store, (Rule("manual", after_scan=True),), body, allows_after_scan=True)
    await scheduler.tell(ScanActivity("lib", active=True))  # type: ignore[attr-defined]
    await scheduler.tell(ScanActivity("lib", active=False, completed=False))  # type: ignore[attr-defined]
    await trio.sleep(60)
    assert body.starts == []  # a failed scan does not trigger it
    await scheduler.tell(ScanActivity("lib", active=True))  # type: ignore[attr-defined]
    await scheduler.tell(ScanActivity("lib", active=False, completed=True))  # type: ignore[attr-defined]
    await trio.sleep(60)
    assert body.starts == [START + timedelta(seconds=60)]


async def test_runs_missed_while_the_server_was_down_run_once_at_start_up(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    await stored.ensure_tasks(store, [("work", None, False)], at_ms=int((START - timedelta(days=3)).timestamp() * 1000))
    body = Recorder()
    await start(nursery, store, (Rule("cron", cron="0 3 * * *"),), body)
    await trio.sleep(86400)
    assert body.starts == [START, utc(2026, 3, 28, 2, 0)]  # once now (three missed), then 03:00 CET


async def test_a_run_going_when_the_server_died_is_recorded_failed(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    await stored.ensure_tasks(store, [("work", None, False)])
    await stored.record_start(store, "work", 1_000)
    scheduler = await start(nursery, store, (Rule("manual"),), Recorder())
    [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]  # type: ignore[attr-defined]
    assert schedule["lastResult"] == "failed" and schedule["lastErrorCode"] == "unknown"
    assert schedule["running"] is False and "nextRunAt" not in schedule


async def test_run_now_starts_at_once_and_refuses_a_second_run(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder(seconds=60)
    scheduler = await start(nursery, store, (Rule("manual"),), body)
    shown = await scheduler.ask(RunNow("work"), timeout=5)  # type: ignore[attr-defined]
    assert shown["running"] is True and shown["task"] == "work"
    with pytest.raises(errors.Conflict):
        await scheduler.ask(RunNow("work"), timeout=5)  # type: ignore[attr-defined]
    with pytest.raises(errors.NotFound):
        await scheduler.ask(RunNow("plugin.nothing"), timeout=5)  # type: ignore[attr-defined]
    await scheduler.ask(CancelRun("work"), timeout=5)  # type: ignore[attr-defined]
    await trio.sleep(1)
    [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]  # type: ignore[attr-defined]
    assert schedule["lastResult"] == "cancelled" and len(body.starts) == 1


# Simulated seconds between the scheduler's reads of the store's revision: each
# read waits for the database in real time, so an hour of simulated time holds
# a dozen of them, not thousands.
RELOAD_POLL_S = 300


async def shown_once(scheduler: object, predicate: object) -> dict:
    """The one schedule once ``predicate`` holds for it (the poll of the store's revision saw a change)."""
    for _ in range(60):
        [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]  # type: ignore[attr-defined]
        if predicate(schedule):  # type: ignore[operator]
            return schedule
        await trio.sleep(RELOAD_POLL_S / 10)
    raise AssertionError(f"the scheduler never showed the change: {schedule}")


async def test_a_paused_task_does_not_run_on_schedule_and_a_reload_picks_up_new_rules(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder()
    # Paused before the start: a pause written after it would race the first due time on the autojump clock.
    await stored.ensure_tasks(store, [("work", None, False)], at_ms=int(START.timestamp() * 1000))
    await stored.set_paused(store, "work", True)
    scheduler = await start(nursery, store, (Rule("interval", every_seconds=600),), body, reload_poll_seconds=RELOAD_POLL_S)
    await trio.sleep(3600)
    assert body.starts == []
    [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]  # type: ignore[attr-defined]
    assert schedule["paused"] is True and "nextRunAt" not in schedule and schedule["isDefault"] is True
    await stored.set_rules(store, "work", (Rule("manual"),))  # before the unpause: never due in between
    await stored.set_paused(store, "work", False)
    await shown_once(scheduler, lambda schedule: not schedule["isDefault"] and not schedule["paused"])
    await trio.sleep(3600)
    [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]  # type: ignore[attr-defined]
    assert body.starts == [] and schedule["isDefault"] is False and schedule["rules"] == [
        {"trigger": "manual", "afterScan": False}]


async def test_deleted_libraries_run_database_maintenance_once_and_once_more_for_those_during_the_run(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder(seconds=60)
    definition = TaskDefinition("database_maintenance", (Rule("cron", cron="30 4 * * 0"),))
    bus = EventBus(MemoryEventLog())
    await nursery.start(bus.run)
    services = SchedulerServices(store=store, time_zone=BERLIN, bus=bus)
    await spawn(nursery, Scheduler(services, {"database_maintenance": (definition, body)}, trio_wall_clock(START)),
                "scheduler")
    bus.publish(LIBRARY_DELETED, {"libraryId": "a"})
    while not body.starts:  # the clock's own time: it may jump while the database answers
        await trio.sleep(1)
    bus.publish(LIBRARY_DELETED, {"libraryId": "b"})
    bus.publish(LIBRARY_DELETED, {"libraryId": "c"})
    await trio.sleep(3600)
    # Once for the first; once more for the two deleted after it started, not before it ended.
    assert len(body.starts) == 2 and body.starts[1] - body.starts[0] >= timedelta(seconds=60)


async def test_a_continuous_task_runs_again_and_waits_while_someone_plays(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    body = Recorder(seconds=10)
    scheduler = await start(nursery, store, (Rule("continuous"),), body)
    await trio.sleep(100)
    assert [(t - START).total_seconds() for t in body.starts] == [0, 15, 30, 45, 60, 75, 90]  # 10 s work, 5 s rest
    await scheduler.tell(PlaybackActivity(True))  # type: ignore[attr-defined]
    await trio.sleep(3600)
    assert len(body.starts) == 7
    await scheduler.tell(PlaybackActivity(False))  # type: ignore[attr-defined]
    await trio.sleep(1)
    assert len(body.starts) == 8


async def test_scans_back_to_back_leave_a_bounded_check_heap(
        store: Store, nursery: trio.Nursery, autojump_clock: object) -> None:
    # Each scan's end moves an idle task's next check; the old entry was left in the heap until its time.
    definition = TaskDefinition("work", (Rule("idle"),), title="Work")
    services = SchedulerServices(store=store, time_zone=BERLIN, idle_seconds=600)
    actor = Scheduler(services, {"work": (definition, Recorder())}, trio_wall_clock(START))
    scheduler = await spawn(nursery, actor, "scheduler")
    bound = STALE_CHECKS_FACTOR * 1 + STALE_CHECKS_SLACK
    for _ in range(4 * bound):  # without the pruning the heap would hold one entry a scan: 4x the bound
        await scheduler.tell(ScanActivity("lib", active=True))
        await scheduler.tell(ScanActivity("lib", active=False, completed=True))
        await trio.sleep(1)
    assert len(actor._checks) <= bound
