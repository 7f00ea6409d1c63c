"""The one shutdown deadline and the shields it bounds (virtual time)."""

from __future__ import annotations

import math

import pytest
import trio

from reelhouse.shutdown import ShutdownDeadline, bounded_shield, bounded_wait, shutdown_deadline, use_shutdown_deadline


async def test_a_bounded_shield_survives_cancellation_until_the_shutdown_deadline(
    autojump_clock: trio.abc.Clock,
) -> None:
    with use_shutdown_deadline(ShutdownDeadline()) as deadline:
        start = trio.current_time()
        deadline.arm(start + 2)
        with trio.CancelScope() as outer:
            outer.cancel()  # a shutdown cancelling the work around the shield
            with bounded_shield(30) as shield:
                await trio.sleep(100)  # a write that never ends
        assert shield.cancelled_caught
        assert trio.current_time() - start == pytest.approx(2)


async def test_a_bounded_shield_keeps_its_own_bound_before_any_shutdown(autojump_clock: trio.abc.Clock) -> None:
    start = trio.current_time()
    with bounded_shield(3) as shield:
        await trio.sleep(100)
    assert shield.cancelled_caught
    assert trio.current_time() - start == pytest.approx(3)
    assert shutdown_deadline().at == math.inf  # outside a server: never armed


async def test_a_bounded_wait_ends_at_the_earlier_of_its_bound_and_the_deadline(autojump_clock: trio.abc.Clock) -> None:
    with use_shutdown_deadline(ShutdownDeadline()) as deadline:
        start = trio.current_time()
        deadline.arm(start + 10)
        with bounded_wait(1):
            await trio.sleep(100)
        assert trio.current_time() - start == pytest.approx(1)
        with bounded_wait(100):
            await trio.sleep(100)
        assert trio.current_time() - start == pytest.approx(10)


async def test_tasks_started_inside_see_the_same_deadline_and_it_only_moves_earlier(
    autojump_clock: trio.abc.Clock,
) -> None:
    seen: list[float] = []
    with use_shutdown_deadline(ShutdownDeadline()) as deadline:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                await trio.sleep(1)
                seen.append(shutdown_deadline().at)

            nursery.start_soon(watch)
            deadline.arm(50)
            deadline.arm(80)  # later: ignored
    assert seen == [50]
