"""The event-loop watchdog names the task that blocked the loop, and measures how late the loop ran."""

from __future__ import annotations

import logging
import time

import pytest
import trio

from reelhouse.loop_stall_watchdog import LoopWatchdog


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
