"""A loop that steps a TimeSlice lets the other tasks run once its slice is used up, and only then."""

from __future__ import annotations

import trio

from reelhouse.loop.time_slice import TimeSlice


async def _count_turns(turns: list[int], stop: trio.Event) -> None:
    while not stop.is_set():
        turns.append(1)
        await trio.lowlevel.checkpoint()


async def _walk(walk: TimeSlice, steps: int) -> int:
    """A loop with no await of its own but the slice's; how many times it yielded."""
    yielded = 0
    for _ in range(steps):
        yielded += await walk.step()
    return yielded


async def test_a_used_up_slice_lets_other_tasks_run_during_the_loop(nursery: trio.Nursery) -> None:
    turns: list[int] = []
    stop = trio.Event()
    nursery.start_soon(_count_turns, turns, stop)
    await trio.lowlevel.checkpoint()
    before = len(turns)
    yielded = await _walk(TimeSlice(seconds=0.0), 1000)  # every step is past its slice
    during = len(turns) - before
    stop.set()
    assert yielded == 1000 and during >= 999


async def test_a_slice_not_used_up_runs_the_loop_without_a_checkpoint(nursery: trio.Nursery) -> None:
    turns: list[int] = []
    stop = trio.Event()
    nursery.start_soon(_count_turns, turns, stop)
    await trio.lowlevel.checkpoint()
    before = len(turns)
    yielded = await _walk(TimeSlice(seconds=3600.0), 1000)
    during = len(turns) - before
    stop.set()
    assert yielded == 0 and during == 0
