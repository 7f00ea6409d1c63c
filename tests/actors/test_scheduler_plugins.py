"""The Scheduler following the plugin host's tasks, with a fake host (both backends)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio
from trio.testing import MockClock

from reelhouse import errors
from reelhouse.actors.plugins.host import ListTasks, PluginTaskInfo
from reelhouse.actors.schedule import ListSchedules, RunNow, Scheduler, SchedulerServices
from reelhouse.media.plugin_manifest import TaskSpec
from reelhouse.runtime import Actor, spawn
from reelhouse.storage import Store

from ..clock_held_store import clock_held_store

POLL_S = 1.0
SYNC = PluginTaskInfo("tasky", TaskSpec("sync", {"en": "Sync"}, {"en": "Syncs."}))


@pytest.fixture
def autojump_clock() -> MockClock:
    """Jumps as soon as every task waits: the store holds it while it answers (``store`` below)."""
    return MockClock(autojump_threshold=0)


@pytest.fixture
async def store(database_url: str, autojump_clock: MockClock) -> AsyncIterator[Store]:
    """The database, instantaneous in simulated time (tests/clock_held_store.py): a slow
    answer on a loaded machine must not let the clock jump past what a test observes."""
    async with clock_held_store(database_url, autojump_clock) as held:
        yield held


class FlakyHost(Actor):
    """Answers ListTasks with ``answers`` in turn (an exception is raised), then the last one."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.asked = 0

    async def handle(self, msg: object) -> object:
        assert isinstance(msg, ListTasks)
        self.asked += 1
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


async def _tasks(scheduler: object) -> list[str]:
    listed = await scheduler.ask(ListSchedules(), timeout=5)  # type: ignore[attr-defined]
    return [s["task"] for s in listed["schedules"]]


async def test_a_host_that_fails_to_list_is_asked_again_at_the_next_poll(
    store: Store, nursery: trio.Nursery, autojump_clock: object,
) -> None:
    host = FlakyHost(errors.Unavailable("restarting"), [SYNC])
    host_ref = await spawn(nursery, host, "plugins")
    services = SchedulerServices(store=store, plugins=host_ref, reload_poll_seconds=POLL_S)
    scheduler = await spawn(nursery, Scheduler(services, {}), "scheduler")
    await trio.sleep(POLL_S / 2)
    assert await _tasks(scheduler) == [] and host.asked == 1
    await trio.sleep(POLL_S)
    assert await _tasks(scheduler) == ["tasky.sync"]


async def test_a_task_the_host_no_longer_lists_is_forgotten_and_returns_when_listed_again(
    store: Store, nursery: trio.Nursery, autojump_clock: object,
) -> None:
    host = FlakyHost([SYNC], [], [SYNC])
    host_ref = await spawn(nursery, host, "plugins")
    services = SchedulerServices(store=store, plugins=host_ref, reload_poll_seconds=POLL_S)
    scheduler = await spawn(nursery, Scheduler(services, {}), "scheduler")
    await trio.sleep(POLL_S / 2)
    [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]
    assert schedule["owner"] == "tasky" and schedule["rules"] == [{"trigger": "manual", "afterScan": False}]
    await trio.sleep(POLL_S)
    assert await _tasks(scheduler) == []
    with pytest.raises(errors.NotFound):
        await scheduler.ask(RunNow("tasky.sync"), timeout=5)
    await trio.sleep(POLL_S)
    assert await _tasks(scheduler) == ["tasky.sync"]
