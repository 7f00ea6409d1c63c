"""The opt-in heap trace: growth since the first snapshot, by source line, appended to a log."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from reelhouse.process.memory_trace import LOG_NAME, _append_growth, _snapshot, start_tracing

kept: list[bytes] = []


def grow() -> None:
    kept.extend(bytes(1000) + bytes([n % 256]) for n in range(2000))  # about 2 MB, from this line


def test_the_trace_log_names_the_line_whose_allocations_grew(tmp_path: Path) -> None:
    was_tracing = tracemalloc.is_tracing()
    start_tracing(60.0)
    try:
        first = _snapshot()
        grow()
        _append_growth(tmp_path / LOG_NAME, first)
    finally:
        kept.clear()
        if not was_tracing:
            tracemalloc.stop()
    log = (tmp_path / LOG_NAME).read_text()
    assert log.startswith("== ") and " traced " in log
    top = log.splitlines()[1]
    assert "test_memory_trace.py:" in top and top.strip().startswith("+")
