"""Per-test wall time against CPU time, to find the tests that wait rather than work.

Not loaded by default: `pytest -p tests.wall_and_cpu -n 0 ...` prints, at the end, the tests whose wall
time (setup + call + teardown) most exceeds their CPU time (this process's user + system time and that of
the child processes it reaped meanwhile: servers and CLI runs started as processes). A test whose wall
is far above its CPU holds an xdist worker idle while it waits on a timer, a lease or a sleep.
`WALL_AND_CPU_TSV=path` also writes every test's figures as tab-separated lines. With xdist each worker
measures its own tests, but only in-process (`-n 0`) are the figures not disturbed by the other worker.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator

import pytest

_FIGURES: dict[str, tuple[float, float]] = {}


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    wall, cpu = time.monotonic(), _cpu_seconds()
    yield
    _FIGURES[item.nodeid] = (time.monotonic() - wall, _cpu_seconds() - cpu)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _FIGURES:
        return
    waiting = sorted(_FIGURES.items(), key=lambda entry: entry[1][1] - entry[1][0])
    terminalreporter.section("wall time above CPU time (top 40)")
    for nodeid, (wall, cpu) in waiting[:40]:
        terminalreporter.write_line(f"{wall:7.2f}s wall {cpu:6.2f}s cpu {wall - cpu:6.2f}s waiting  {nodeid}")
    path = os.environ.get("WALL_AND_CPU_TSV")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            for nodeid, (wall, cpu) in _FIGURES.items():
                out.write(f"{wall:.3f}\t{cpu:.3f}\t{nodeid}\n")
