"""The opt-in heap trace: growth since the first snapshot, by source line, appended to a log."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import trio
from trio.testing import MockClock

from reelhouse.memory_trace import LOG_NAME, write_snapshots

kept: list[bytes] = []


def grow() -> None:
    kept.extend(bytes(1000) + bytes([n % 256]) for n in range(2000))  # about 2 MB, from this line


async def test_the_trace_log_names_the_line_whose_allocations_grew(tmp_path: Path, autojump_clock: MockClock) -> None:
    was_tracing = tracemalloc.is_tracing()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(write_snapshots, tmp_path, 60.0)
            await trio.sleep(61)  # after the first snapshot
            grow()
            while not (tmp_path / LOG_NAME).exists():
                await trio.sleep(10)
            nursery.cancel_scope.cancel()
    finally:
        kept.clear()
        if not was_tracing:
            tracemalloc.stop()
    log = (tmp_path / LOG_NAME).read_text()
    assert log.startswith("== ") and " traced " in log
    top = log.splitlines()[1]
    assert "test_memory_trace.py:" in top and top.strip().startswith("+")
