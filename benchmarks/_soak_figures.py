"""Figures of soak.py: memory and descriptors of a process tree over time, the slope, the targets.

``Sampler`` reads /proc every ``interval`` seconds: the resident memory
(VmRSS) summed over the server and all its living descendants, and their
open descriptors. ``slope_mb_per_10_min`` fits a least-squares line to the
samples of the second half of the run (Theil-Sen: robust to outliers).
Children younger than ``TRANSIENT_SECONDS`` (a scan's parser process, a
few seconds long) are summed apart: whether a sample catches one says
nothing about growth. Linux only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

SLOPE_TARGET_FRACTION = 0.01  # of the starting memory, per 10 minutes
DONE_TARGET_FRACTION = 0.10  # end within 10 % of the level after the first 10 minutes
DONE_AFTER_S = 600.0
TRANSIENT_SECONDS = 60.0  # a child younger than this is counted apart (a scan's parser process)


def process_tree(pid: int) -> list[int]:
    """``pid`` and its living descendants."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(child) for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile
        found.append(current)
    return found


def _rss_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)


def _descriptors(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError):
        return 0


def _age_seconds(pid: int) -> float:
    """Seconds since the process started (field 22 of /proc/PID/stat, in clock ticks since boot)."""
    try:
        started = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return uptime - started / os.sysconf("SC_CLK_TCK")


def sample(pid: int) -> dict[str, float | int]:
    """``rss_mb``: the server and its children that lived ``TRANSIENT_SECONDS`` or more (the
    probe worker); ``transient_mb``: the younger ones (a scan's parser
    process, seconds long, which a sample catches or not); ``fds`` over all of them."""
    pids = process_tree(pid)
    young = [p for p in pids if p != pid and _age_seconds(p) < TRANSIENT_SECONDS]
    lasting = [p for p in pids if p not in young]
    return {"rss_mb": round(sum(_rss_kb(p) for p in lasting) / 1024, 1),
            "server_rss_mb": round(_rss_kb(pid) / 1024, 1),
            "transient_mb": round(sum(_rss_kb(p) for p in young) / 1024, 1),
            "fds": sum(_descriptors(p) for p in pids), "processes": len(pids)}  # fmt: skip


class Sampler:
    def __init__(self, pid: int, interval: float, report: Callable[[str], None]) -> None:
        self.pid, self.interval, self.report = pid, interval, report
        self.samples: list[dict[str, float | int]] = []

    async def run(self, until: float) -> None:
        started = trio.current_time()
        while True:
            now = trio.current_time()
            figures = {"t": round(now - started, 1), **sample(self.pid)}
            self.samples.append(figures)
            self.report(f"rss {figures['rss_mb']} MB (server {figures['server_rss_mb']}, transient "
                        f"{figures['transient_mb']}), {figures['fds']} fds, {figures['processes']} processes")  # fmt: skip
            if now >= until:
                return
            await trio.sleep(min(self.interval, max(until - now, 0.0)))


def slope_mb_per_10_min(samples: list[dict[str, Any]], key: str = "rss_mb") -> float | None:
    """Theil-Sen slope (the median of the slopes between every two samples) of ``key`` over the
    second half of the run, in MB per 10 minutes: a few odd samples do not move it."""
    if not samples:
        return None
    half = samples[-1]["t"] / 2
    points = [(s["t"], s[key]) for s in samples if s["t"] >= half]
    slopes = sorted((m2 - m1) / (t2 - t1) for i, (t1, m1) in enumerate(points) for t2, m2 in points[i + 1:] if t2 > t1)
    if len(points) < 3 or not slopes:
        return None
    middle = len(slopes) // 2
    median = slopes[middle] if len(slopes) % 2 else (slopes[middle - 1] + slopes[middle]) / 2
    return round(median * 600, 2)


def _level_at(samples: list[dict[str, Any]], at: float) -> float | None:
    after = [s["rss_mb"] for s in samples if s["t"] >= at]
    return after[0] if after else None


def _five_xx(counts: dict[str, Any] | None) -> int:
    return sum(int(n) for status, n in (counts or {}).items() if status.isdigit() and int(status) >= 500)


def targets(figures: dict[str, Any], minutes: float) -> list[dict[str, Any]]:
    """The issue's targets with what was measured and whether each was met."""
    samples = figures["samples"]
    start = _level_at(samples, TRANSIENT_SECONDS)  # the children started with the server count from then
    slope = slope_mb_per_10_min(samples)
    figures["start_mb"], figures["end_mb"] = start, samples[-1]["rss_mb"] if samples else None
    figures["slope_mb_per_10_min"] = slope
    figures["server_slope_mb_per_10_min"] = slope_mb_per_10_min(samples, "server_rss_mb")
    limit = round(start * SLOPE_TARGET_FRACTION, 2) if start else None
    five_xx = sum(_five_xx(figures.get(kind, {}).get("errors")) for kind in ("readers", "streams"))
    five_xx += _five_xx(figures["guesses"])
    scans = figures["scans"]
    unfinished = sum(n for state, n in scans.items() if state != "completed")
    result = [
        {"name": "slope", "measured": slope, "limit": limit, "met": slope is not None and slope < limit},
        {"name": "no_5xx", "measured": five_xx, "limit": 0, "met": five_xx == 0},
        {"name": "scans_completed", "measured": scans, "met": unfinished == 0 and scans.get("completed", 0) > 0},
    ]
    if minutes * 60 >= 2 * DONE_AFTER_S:
        level = _level_at(samples, DONE_AFTER_S)
        figures["at_10_min_mb"] = level
        ratio = round(figures["end_mb"] / level, 3) if level else None
        result.append({"name": "end_within_10_percent_of_10_min", "measured": ratio,
                       "limit": 1 + DONE_TARGET_FRACTION, "met": ratio is not None and ratio <= 1 + DONE_TARGET_FRACTION})  # fmt: skip
    return result
