"""The event-loop watchdog notices a blocked loop."""

from __future__ import annotations

import logging
import time

import pytest
import trio

from reelhouse.watchdog import LoopWatchdog


async def test_a_blocked_loop_is_logged_as_a_stall(nursery: trio.Nursery, caplog: pytest.LogCaptureFixture) -> None:
    watchdog = LoopWatchdog(threshold=0.05)
    nursery.start_soon(watchdog.run)
    await trio.sleep(0.05)
    with caplog.at_level(logging.WARNING, logger="reelhouse.watchdog"):
        time.sleep(0.2)  # noqa: ASYNC251 - deliberately block the loop
        await trio.sleep(0.05)
    assert watchdog.stalls >= 1 and watchdog.max_stall >= 0.1
    assert any("event loop stalled for" in r.getMessage() for r in caplog.records)
    nursery.cancel_scope.cancel()


async def test_an_idle_loop_reports_no_stall(nursery: trio.Nursery) -> None:
    watchdog = LoopWatchdog(threshold=0.5)
    nursery.start_soon(watchdog.run)
    with trio.fail_after(5):
        await trio.sleep(0.2)
    assert watchdog.stalls == 0
    nursery.cancel_scope.cancel()
