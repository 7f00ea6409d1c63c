"""The event-loop watchdog names the task that blocked the loop, and measures how late the loop ran."""

from __future__ import annotations

import logging
import os
import sys
import time

import pytest
import trio
import trio.testing

from reelhouse.loop.stall_watchdog import LoopWatchdog, RunQueueWait, run_queue_wait


async def _block_the_loop(seconds: float) -> None:
    time.sleep(seconds)  # noqa: ASYNC251 - deliberately block the loop


async def test_a_task_that_blocks_the_loop_is_named_in_a_warning(
    nursery: trio.Nursery, caplog: pytest.LogCaptureFixture
) -> None:
    watchdog = LoopWatchdog(threshold=0.05)
    watchdog.serving = True
    nursery.start_soon(watchdog.run)
    await trio.sleep(0.05)
    with caplog.at_level(logging.WARNING, logger="reelhouse.watchdog"):
        async with trio.open_nursery() as blockers:
            blockers.start_soon(_block_the_loop, 0.2, name="the-blocker")
        await trio.sleep(0.05)
    assert watchdog.blocked >= 1 and watchdog.stalls >= 1 and watchdog.max_stall >= 0.1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("event loop blocked for ") and m.endswith(" by the-blocker") for m in warnings)
    assert watchdog.take_recent_max() >= 0.1
    assert watchdog.take_recent_max() < 0.1  # read once per scrape
    nursery.cancel_scope.cancel()


async def test_an_idle_loop_reports_no_stall(nursery: trio.Nursery) -> None:
    watchdog = LoopWatchdog(threshold=0.5)
    nursery.start_soon(watchdog.run)
    with trio.fail_after(5):
        await trio.sleep(0.2)
    assert watchdog.stalls == 0 and watchdog.blocked == 0
    nursery.cancel_scope.cancel()


async def test_before_the_server_serves_a_blocked_loop_is_only_a_debug_line(
    nursery: trio.Nursery, caplog: pytest.LogCaptureFixture
) -> None:
    watchdog = LoopWatchdog(threshold=0.05)
    nursery.start_soon(watchdog.run)
    await trio.sleep(0.05)
    with caplog.at_level(logging.DEBUG, logger="reelhouse.watchdog"):
        async with trio.open_nursery() as blockers:
            blockers.start_soon(_block_the_loop, 0.2, name="start-up")
    assert watchdog.blocked >= 1
    assert [r.levelno for r in caplog.records if "by start-up" in r.getMessage()] == [logging.DEBUG]
    nursery.cancel_scope.cancel()


class RunQueue:
    """Stands for the kernel's count of the loop thread's run-queue wait."""

    def __init__(self) -> None:
        self.waited = 0.0

    def __call__(self) -> float:
        return self.waited


async def _watching_with_a_run_queue(nursery: trio.Nursery) -> tuple[RunQueue, LoopWatchdog]:
    """A serving watchdog (50 ms threshold) reading a stand-in run queue, its instrument installed."""
    run_queue = RunQueue()
    watchdog = LoopWatchdog(threshold=0.05, waited=run_queue)
    watchdog.serving = True
    nursery.start_soon(watchdog.run)
    await trio.testing.wait_all_tasks_blocked()  # run() has added its instrument and waits for its tick
    return run_queue, watchdog


async def _block_while_waiting_for_a_cpu(run_queue: RunQueue, seconds: float, waited: float) -> None:
    run_queue.waited += waited  # the kernel counted this much of the step as waiting for a CPU
    time.sleep(seconds)  # noqa: ASYNC251 - deliberately block the loop


async def test_a_step_long_only_for_want_of_a_cpu_is_a_debug_line_not_a_block(
    nursery: trio.Nursery, caplog: pytest.LogCaptureFixture
) -> None:
    # Two scans on two cores: the loop's thread is taken off the CPU in the
    # middle of a short step; that is the machine's load, not a blocking task.
    run_queue, watchdog = await _watching_with_a_run_queue(nursery)
    with caplog.at_level(logging.DEBUG, logger="reelhouse.watchdog"):
        async with trio.open_nursery() as steps:
            # All of the step counted as waiting (more than it: since the tick), whatever the sleep overran.
            steps.start_soon(_block_while_waiting_for_a_cpu, run_queue, 0.2, 1.0, name="preempted")
    assert watchdog.preempted == 1 and watchdog.blocked == 0
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if "preempted" in r.getMessage()]
    assert [level for level, _ in lines] == [logging.DEBUG]
    assert lines[0][1].startswith("a step of preempted took ")
    nursery.cancel_scope.cancel()


async def test_a_step_that_blocks_beyond_its_wait_for_a_cpu_is_still_named(
    nursery: trio.Nursery, caplog: pytest.LogCaptureFixture
) -> None:
    run_queue, watchdog = await _watching_with_a_run_queue(nursery)
    with caplog.at_level(logging.WARNING, logger="reelhouse.watchdog"):
        async with trio.open_nursery() as steps:
            steps.start_soon(_block_while_waiting_for_a_cpu, run_queue, 0.25, 0.02, name="the-blocker")
    assert watchdog.blocked == 1 and watchdog.preempted == 0
    assert any(r.getMessage().endswith(" by the-blocker") for r in caplog.records if r.levelno == logging.WARNING)
    nursery.cancel_scope.cancel()


def test_the_run_queue_wait_is_read_from_linux_scheduler_statistics() -> None:
    waited = run_queue_wait()
    if not sys.platform.startswith("linux"):
        assert waited is None
    else:
        assert waited is not None and waited >= 0.0


def schedstat_descriptors() -> list[str]:
    """This process's descriptors open on the calling thread's scheduler statistics.

    Counted by what they point at, not in number: other threads of a test
    process (a module's shared server) open and close descriptors meanwhile.
    """
    mine = os.path.realpath("/proc/thread-self/schedstat")
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == mine:
                found.append(fd)
        except OSError:  # closed since the listing
            pass
    return found


def test_the_run_queue_wait_reader_reads_its_file_again_on_each_call_and_closes_it() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux scheduler statistics")
    reader = RunQueueWait()
    first = reader()
    busy_until = time.monotonic() + 0.05
    while time.monotonic() < busy_until:
        pass
    again = reader()
    assert first is not None and again is not None and again >= first
    assert len(schedstat_descriptors()) == 1
    reader.close()
    assert schedstat_descriptors() == []


async def test_a_stopped_watchdog_gives_its_scheduler_statistics_file_back(autojump_clock: trio.abc.Clock) -> None:
    # Regression: the file was kept open per thread for good, and a test process runs many
    # servers, each on a thread of its own.
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux scheduler statistics")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(LoopWatchdog().run)
        await trio.sleep(1)  # virtual: the ticker reads the file at each tick
        assert len(schedstat_descriptors()) == 1
        nursery.cancel_scope.cancel()
    assert schedstat_descriptors() == []
