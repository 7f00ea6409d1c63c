"""Opt-in heap tracing: where Python memory grows while the server runs.

With the setting ``tracemalloc_seconds`` above 0 (e.g.
``REELHOUSE_TRACEMALLOC_SECONDS=60``), :mod:`tracemalloc` starts with the
process and every that many seconds the server takes a snapshot in a
worker thread and appends to ``<data dir>/tracemalloc.log`` the total
traced size and the ``TOP_LINES`` source lines whose allocations grew most
since the first snapshot (taken one interval after start, so start-up is
not counted). At 0 (the default) nothing is traced: tracing costs CPU and
about a third more memory.

What it does not see: memory outside Python's allocator (C libraries,
SQLite's page cache, glibc arenas left fragmented); compare the log's
totals with the process's RSS to tell them apart.
"""

from __future__ import annotations

import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import trio

TOP_LINES = 25
LOG_NAME = "tracemalloc.log"


def start_tracing(interval: float) -> None:
    """Start tracemalloc when asked for (before the server allocates, so its traces are whole)."""
    if interval > 0 and not tracemalloc.is_tracing():
        tracemalloc.start()


async def write_snapshots(data_dir: Path, interval: float) -> None:
    """Every ``interval`` seconds, append the growth since the first snapshot; until cancelled."""
    start_tracing(interval)  # served embedded (tests): not started with the process
    path = data_dir / LOG_NAME
    await trio.sleep(interval)
    first = await trio.to_thread.run_sync(_snapshot)
    while True:
        await trio.sleep(interval)
        await trio.to_thread.run_sync(_append_growth, path, first)


def _snapshot() -> tracemalloc.Snapshot:
    return tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])


def _append_growth(path: Path, first: tracemalloc.Snapshot) -> None:
    now = _snapshot()
    total = sum(stat.size for stat in now.statistics("filename"))
    lines = [f"== {datetime.now(UTC).isoformat(timespec='seconds')} traced {total / 1e6:.1f} MB"]
    for stat in now.compare_to(first, "lineno")[:TOP_LINES]:
        frame = stat.traceback[0]
        lines.append(f"{stat.size_diff / 1e3:+10.1f} kB {stat.count_diff:+8d} blocks  {frame.filename}:{frame.lineno}")
    with path.open("a") as out:
        out.write("\n".join(lines) + "\n")
