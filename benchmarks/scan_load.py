"""Load benchmark of library scans through the real server and HTTP API.

Writes a synthetic tree (benchmarks/_tree.py: movies and series with NFO
files and posters; probing off), starts ``reelhouse serve`` as a process,
and measures, in one run:

1. single: for each kind (movies, tvshows), one library of ``--files``
   video files scanned alone (full), then a quick rescan of it unchanged;
   next to it the *floor* of the same tree: a bare ``os.scandir`` walk plus
   one ``sqlite3.executemany`` of one row per video file (best of 3);
2. concurrent: ``--libraries`` libraries sharing ``--files`` video files,
   all started at once on a fresh server that allows that many full scans.

During every batch ``GET /system/status`` and ``GET /scans/status`` are
sampled every 20 ms and ``GET /scans/events`` is read. It prints one JSON
document (figures, targets, ratios; benchmarks/README.md explains each) on
stdout and a short summary on stderr. It asserts one thing about the event
loop (issue #29): after every batch it waits ``AFTER_SCAN_S`` while the
tasks a scan triggers run (poster pre-generation, clean-up), and the run
fails (exit 2) when the server's loop watchdog logged a stall over its
threshold (100 ms) during or after a scan.  Otherwise it exits 0 whenever
every scan completed and the event stream worked, 1 when a scan failed or
timed out, the stream broke or the server could not run.

Usage: python benchmarks/scan_load.py [--files N] [--libraries N] [--kinds movies,tvshows]
                                      [--quick] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import trio

from _http_probe import (
    SAMPLE_TIMEOUT_S,
    BenchmarkError,
    LatencySamples,
    Server,
    SseEvent,
    Watch,
    cpu_seconds,
    running_server,
    sample_latency,
    sample_tree_rss,
    sigterm_as_interrupt,
    stream_events,
    summarize_ms,
)
from _tree import KINDS, SEED, measure_floor, write_library

DEFAULT_FILES = 20_000
DEFAULT_LIBRARIES = 8
QUICK_FILES = 2_000
QUICK_LIBRARIES = 2
SAMPLE_INTERVAL_S = 0.02
SCAN_TIMEOUT_S = 240.0
STREAM_GRACE_S = 10.0
ERROR_SAMPLES = 3
# Probing off: media information is read only at playback; no initial scan.
LIBRARY_OPTIONS = {"remoteAllowedHosts": [], "mediaInfoTiming": "playback", "scansSuspended": True}
START_EVENTS = ("scan.queued", "scan.started")
FINAL_EVENTS = ("scan.completed", "scan.failed", "scan.cancelled")
FINAL_STATES = ("completed", "failed", "cancelled")

# The targets, for 20,000 video files, 8 libraries, probing off.
TARGET_FILES_PER_SECOND = 5_000
TARGET_SCAN_OVER_FLOOR = 8.0
REFERENCE_FLOOR_SECONDS = 0.26
TARGET_QUICK_RESCAN_SECONDS = 1.0
TARGET_STATUS_P99_MS = 100.0
TARGET_MAX_STALL_MS = 100.0
# After each batch: the tasks a finished scan triggers (afterScan rules) run meanwhile.
AFTER_SCAN_S = 5.0
TARGET_PEAK_RSS_MB = 300.0


# --- one batch of scans -------------------------------------------------------


@dataclass(slots=True)
class ScanRun:
    """One library's scan in a batch, as the stream and the polls saw it."""

    library_id: str
    kind: str
    videos: int
    posted: float = 0.0  # perf_counter just before the POST
    posted_epoch_ms: int = 0
    first_event: float | None = None
    progress: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    stream_final: SseEvent | None = None
    poll_final: dict[str, Any] | None = None
    poll_final_at: float | None = None
    error_samples: list[dict[str, str]] = field(default_factory=list)
    post_error: str | None = None


def _epoch_ms(rfc3339: str) -> int:
    return round(datetime.fromisoformat(rfc3339).timestamp() * 1000)


class Batch:
    """Routes stream events and status polls to the runs of one batch."""

    def __init__(self, runs: list[ScanRun]) -> None:
        self.runs = {run.library_id: run for run in runs}
        self.watch = Watch()
        self.stream_open = False
        self.stream_error: str | None = None

    def on_open(self) -> None:
        self.stream_open = True
        self.watch.changed()

    async def read_stream(self, client: httpx.AsyncClient) -> None:
        """The event stream until cancelled; a broken stream is recorded, not raised."""
        try:
            await stream_events(client, "/scans/events", self.on_event, self.on_open)
            self.stream_error = "the server closed the stream"
        except httpx.HTTPError as exc:
            self.stream_error = f"{type(exc).__name__}: {exc}"
        self.watch.changed()

    def on_event(self, event: SseEvent) -> None:
        run = self.runs.get(event.data.get("libraryId")) if isinstance(event.data, dict) else None
        if run is None or not run.posted or run.stream_final is not None:
            return  # snapshots, other libraries, or before this batch's POST
        if event.name in START_EVENTS and run.first_event is None:
            run.first_event = event.received
        if event.name == "scan.progress":
            run.progress.append(event.received)
        # startedAt is when the scan was accepted (before queueing), so only
        # finishedAt dates the moment an event describes.
        if event.name in FINAL_EVENTS and "finishedAt" in event.data:
            run.lags.append(event.received_epoch - _epoch_ms(event.data["finishedAt"]) / 1000)
        if event.name in FINAL_EVENTS:
            run.stream_final = event
        self.watch.changed()

    def on_statuses(self, statuses: list[dict[str, Any]]) -> None:
        for status in statuses:
            run = self.runs.get(status.get("libraryId", ""))
            if run is None or not run.posted or run.poll_final is not None:
                continue
            started = status.get("startedAt")
            if status.get("state") in FINAL_STATES and started and _epoch_ms(started) >= run.posted_epoch_ms:
                run.poll_final, run.poll_final_at = status, time.perf_counter()
                self.watch.changed()

    def polled_all(self) -> bool | None:
        return True if all(r.poll_final for r in self.runs.values()) else None

    def streamed_all(self) -> bool | None:
        done = self.stream_error or all(r.stream_final for r in self.runs.values())
        return True if done else None

    def stream_ready(self) -> bool | None:
        return True if self.stream_open or self.stream_error else None


@asynccontextmanager
async def api_client(server: Server) -> Any:
    headers = {"Authorization": f"Bearer {server.key}"}
    async with httpx.AsyncClient(base_url=server.api_url, headers=headers, timeout=30.0) as client:
        yield client


async def _post_scan(client: httpx.AsyncClient, run: ScanRun, mode: str) -> None:
    """POST the scan; a refusal is kept in ``run.post_error`` (raising here would end the batch in a group)."""
    run.posted, run.posted_epoch_ms = time.perf_counter(), int(time.time() * 1000)
    try:
        response = await client.post(f"/libraries/{run.library_id}/scan", json={"mode": mode})
    except httpx.HTTPError as exc:
        run.post_error = f"POST scan {run.library_id}: {type(exc).__name__}: {exc}"
        return
    if response.status_code != 200:
        run.post_error = f"POST scan {run.library_id}: {response.status_code} {response.text}"


async def run_batch(server: Server, runs: list[ScanRun], mode: str) -> dict[str, Any]:
    """Start a ``mode`` scan of every run's library at once; figures once all have ended.

    Raises BenchmarkError when a POST fails or a scan does not end within
    ``SCAN_TIMEOUT_S``; a missing stream event only shows in the figures.
    """
    batch = Batch(runs)
    system, scans = LatencySamples("/system/status"), LatencySamples("/scans/status")
    async with api_client(server) as stream, api_client(server) as pollers, api_client(server) as control:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(batch.read_stream, stream)
            with trio.move_on_after(SAMPLE_TIMEOUT_S):
                await batch.watch.until(batch.stream_ready)
            if not batch.stream_open and batch.stream_error is None:
                batch.stream_error = f"the stream did not open within {SAMPLE_TIMEOUT_S} s"
            nursery.start_soon(sample_latency, pollers, system, SAMPLE_INTERVAL_S)
            nursery.start_soon(sample_latency, pollers, scans, SAMPLE_INTERVAL_S, batch.on_statuses)
            nursery.start_soon(sample_tree_rss, server, SAMPLE_INTERVAL_S)
            started, cpu_before = time.perf_counter(), cpu_seconds(server.process.pid)
            async with trio.open_nursery() as posts:
                for run in runs:
                    posts.start_soon(_post_scan, control, run, mode)
            failure = next((run.post_error for run in runs if run.post_error), None) or await _await_ends(batch)
            nursery.cancel_scope.cancel()
        if failure is not None:
            raise BenchmarkError(f"{mode} scans: {failure}")  # outside the nursery: not wrapped in a group
        cpu = cpu_seconds(server.process.pid) - cpu_before
        for run in runs:
            if (run.poll_final or {}).get("errors"):
                run.error_samples = await _error_samples(control, run.library_id)
    videos = sum(run.videos for run in runs)
    return {
        **_batch_figures(runs, started, system, scans),
        "server_cpu_seconds": round(cpu, 2),
        "files_per_server_cpu_second": round(videos / cpu) if cpu > 0 else None,
        "stream_error": batch.stream_error,
    }


async def _await_ends(batch: Batch) -> str | None:
    """Wait until polling saw every scan end, then briefly for the stream; a failure message or None."""
    with trio.move_on_after(SCAN_TIMEOUT_S) as waiting:
        await batch.watch.until(batch.polled_all)
    if waiting.cancelled_caught:
        return f"not ended within {SCAN_TIMEOUT_S} s"
    with trio.move_on_after(STREAM_GRACE_S):
        await batch.watch.until(batch.streamed_all)
    return None


async def _error_samples(client: httpx.AsyncClient, library_id: str) -> list[dict[str, str]]:
    """The newest few scan errors of a library: what went wrong, without the whole list."""
    response = await client.get("/scans/errors", params={"libraryId": library_id})
    return [{"path": e["path"], "error": e["error"]} for e in response.json()[:ERROR_SAMPLES]]


def _run_figures(run: ScanRun) -> dict[str, Any]:
    status = run.poll_final or {}
    seconds = (_epoch_ms(status["finishedAt"]) - _epoch_ms(status["startedAt"])) / 1000
    gaps = [b - a for a, b in zip(run.progress, run.progress[1:], strict=False)]
    stream_at = run.stream_final.received if run.stream_final else None
    return {
        "libraryId": run.library_id,
        "kind": run.kind,
        "videos": run.videos,
        "state": status.get("state"),
        **{k: status[k] for k in ("message", "processed", "errors", "added", "changed", "missing") if k in status},
        "scan_seconds": round(seconds, 3),
        "files_per_second": round(run.videos / seconds) if seconds > 0 else None,
        "time_to_first_event_ms": _ms(run.first_event - run.posted) if run.first_event else None,
        "progress_events": len(run.progress),
        "max_progress_gap_ms": _ms(max(gaps)) if gaps else None,
        "stream_final_event": run.stream_final.name if run.stream_final else None,
        "completion_stream_minus_poll_ms": _ms(stream_at - run.poll_final_at)
        if stream_at is not None and run.poll_final_at is not None else None,
        **({"error_samples": run.error_samples} if run.error_samples else {}),
    }


def _batch_figures(runs: list[ScanRun], started: float, system: LatencySamples, scans: LatencySamples) -> dict[str, Any]:
    ends = [r.stream_final.received if r.stream_final else r.poll_final_at or started for r in runs]
    wall = max(ends) - started
    videos = sum(r.videos for r in runs)
    return {
        "scans": [_run_figures(run) for run in runs],
        "videos": videos,
        "wall_seconds": round(wall, 3),
        "total_files_per_second": round(videos / wall) if wall > 0 else None,
        "latency": {"system_status": system.summary(), "scans_status": scans.summary()},
        "event_lag": summarize_ms([lag for run in runs for lag in run.lags]),
    }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


# --- phases -------------------------------------------------------------------


async def create_library(server: Server, name: str, root: Path, kind: str) -> str:
    async with api_client(server) as client:
        body = {"name": name, "paths": [str(root)], "collectionType": kind, "options": LIBRARY_OPTIONS}
        response = await client.post("/libraries", json=body)
    if response.status_code != 201:
        raise BenchmarkError(f"POST /libraries {name}: {response.status_code} {response.text}")
    return str(response.json()["id"])


async def item_count(server: Server, library_id: str) -> int | None:
    async with api_client(server) as client:
        return (await client.get(f"/libraries/{library_id}")).json().get("itemCount")


async def single_phase(server: Server, trees: dict[str, Path], videos: int) -> list[dict[str, Any]]:
    """Per kind: a full scan alone, then a quick rescan of the unchanged library."""
    results = []
    for kind, root in trees.items():
        library_id = await create_library(server, f"single {kind}", root, kind)
        full = await run_batch(server, [ScanRun(library_id, kind, videos)], "full")
        await trio.sleep(AFTER_SCAN_S)
        quick = await run_batch(server, [ScanRun(library_id, kind, videos)], "quick")
        await trio.sleep(AFTER_SCAN_S)
        results.append({
            "kind": kind,
            "full": full,
            "quick_rescan": quick,
            "item_count": await item_count(server, library_id),
        })
    return results


async def concurrent_phase(server: Server, trees: list[tuple[str, Path, int]]) -> dict[str, Any]:
    """Every library's full scan started at once."""
    runs = []
    for index, (kind, root, videos) in enumerate(trees):
        library_id = await create_library(server, f"concurrent {index} {kind}", root, kind)
        runs.append(ScanRun(library_id, kind, videos))
    batch = await run_batch(server, runs, "full")
    await trio.sleep(AFTER_SCAN_S)
    return batch


# --- report -------------------------------------------------------------------


def _target(name: str, target: str, measured: float | None, limit: float, *, at_least: bool = False,
            met: bool | None = None, informational: bool = False) -> dict[str, Any]:
    ratio = round(measured / limit, 2) if measured is not None else None
    if met is None and measured is not None and not informational:
        met = measured >= limit if at_least else measured < limit
    return {"name": name, "target": target, "measured": measured, "ratio": ratio, "met": met}


def targets(single: list[dict[str, Any]], concurrent: dict[str, Any],
            single_server: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets next to what was measured; ratio = measured / target."""
    rows = []
    for result in single:
        kind, full = result["kind"], result["full"]["scans"][0]
        quick = result["quick_rescan"]["scans"][0]
        rows.append(_target(f"full_scan_files_per_second[{kind}]", f">= {TARGET_FILES_PER_SECOND}",
                            full["files_per_second"], TARGET_FILES_PER_SECOND, at_least=True))
        rows.append(_target(f"floor_seconds[{kind}]", f"about {REFERENCE_FLOOR_SECONDS} (reference, not a goal)",
                            result["floor"]["floor_seconds"], REFERENCE_FLOOR_SECONDS, informational=True))
        rows.append(_target(f"scan_over_floor[{kind}]", f"< {TARGET_SCAN_OVER_FLOOR}",
                            result["scan_over_floor"], TARGET_SCAN_OVER_FLOOR))
        rows.append(_target(f"quick_rescan_seconds[{kind}]", f"< {TARGET_QUICK_RESCAN_SECONDS}",
                            quick["scan_seconds"], TARGET_QUICK_RESCAN_SECONDS))
    rows.append(_target("single_max_loop_stall_ms", f"no stall over {TARGET_MAX_STALL_MS:g} ms during or after a scan",
                        single_server["max_loop_stall_ms"], TARGET_MAX_STALL_MS,
                        met=single_server["loop_stalls"] == 0))
    server, batch = concurrent["server"], concurrent["batch"]
    rows.append(_target("concurrent_system_status_p99_ms", f"< {TARGET_STATUS_P99_MS}",
                        batch["latency"]["system_status"]["p99_ms"], TARGET_STATUS_P99_MS))
    rows.append(_target("concurrent_max_loop_stall_ms", f"no stall over {TARGET_MAX_STALL_MS:g} ms during or after a scan",
                        server["max_loop_stall_ms"], TARGET_MAX_STALL_MS, met=server["loop_stalls"] == 0))
    rows.append(_target("concurrent_peak_rss_mb", f"< {TARGET_PEAK_RSS_MB:g}",
                        server["peak_rss_mb"], TARGET_PEAK_RSS_MB))
    return rows


def summary_lines(report: dict[str, Any]) -> list[str]:
    config = report["config"]
    lines = [f"load average before {config['load_average_before'][0]:.1f}, after {config['load_average_after'][0]:.1f} "
             f"on {config['cpus']} CPUs"]
    for result in report["single"]["results"]:
        full, quick = result["full"]["scans"][0], result["quick_rescan"]["scans"][0]
        lines.append(
            f"{result['kind']}: full scan of {full['videos']} videos {full['scan_seconds']} s "
            f"({full['files_per_second']} files/s, {result['full']['files_per_server_cpu_second']} per server "
            f"CPU-second), floor {result['floor']['floor_seconds']} s, "
            f"scan/floor {result['scan_over_floor']}x; quick rescan {quick['scan_seconds']} s"
        )
    batch, server = report["concurrent"]["batch"], report["concurrent"]["server"]
    lines.append(
        f"{len(batch['scans'])} scans at once: {batch['videos']} videos in {batch['wall_seconds']} s "
        f"({batch['total_files_per_second']} files/s); /system/status p99 "
        f"{batch['latency']['system_status']['p99_ms']} ms; stalls {server['loop_stalls']} "
        f"(max {server['max_loop_stall_ms']} ms); peak RSS {server['peak_rss_mb']} MB"
    )
    lines += [f"event stream broken in {n} batch(es): {e}" for e, n in Counter(stream_errors(report)).items()]
    lines += [
        f"  {'ok  ' if row['met'] else '    ' if row['met'] is None else 'MISS'} {row['name']}: "
        f"{row['measured']} (target {row['target']}, ratio {row['ratio']})"
        for row in report["targets"]
    ]
    return lines


# --- main -----------------------------------------------------------------------


def progress(message: str, _started: float = time.monotonic()) -> None:
    """One line on stderr with the seconds since start: the run takes minutes."""
    print(f"scan_load [{time.monotonic() - _started:6.1f} s] {message}", file=sys.stderr, flush=True)


def run_single(base: Path, files: int, kinds: list[str]) -> dict[str, Any]:
    trees, tree_seconds = {}, {}
    for kind in kinds:
        started = time.perf_counter()
        progress(f"writing a {kind} tree of {files} video files")
        write_library(base / "single" / kind, kind, files)
        trees[kind], tree_seconds[kind] = base / "single" / kind, round(time.perf_counter() - started, 2)
    floors = {kind: measure_floor(root, base / "floor.db") for kind, root in trees.items()}
    progress("single scans")
    with running_server(base / "data-single", None) as server:
        results = trio.run(single_phase, server, trees, files)
        figures = server.figures()
    for result in results:
        result["floor"] = floors[result["kind"]]
        result["tree_seconds"] = tree_seconds[result["kind"]]
        scan_seconds = result["full"]["scans"][0]["scan_seconds"]
        result["scan_over_floor"] = round(scan_seconds / result["floor"]["floor_seconds"], 2)
    return {"server": figures, "results": results}


def run_concurrent(base: Path, files: int, libraries: int) -> dict[str, Any]:
    per_library = max(1, files // libraries)
    trees = []
    started = time.perf_counter()
    progress(f"writing {libraries} trees of {per_library} video files")
    for index in range(libraries):
        kind = KINDS[index % len(KINDS)]
        root = base / "concurrent" / f"library-{index}"
        write_library(root, kind, per_library, seed=SEED + index)
        trees.append((kind, root, per_library))
    tree_seconds = round(time.perf_counter() - started, 2)
    progress(f"{libraries} scans at once")
    with running_server(base / "data-concurrent", libraries) as server:
        batch = trio.run(concurrent_phase, server, trees)
        figures = server.figures()
    return {"server": figures, "libraries": libraries, "videos_per_library": per_library,
            "tree_seconds": tree_seconds, "batch": batch}


def remove_tree(path: Path) -> None:
    """``rm -rf``: twice as fast as ``shutil.rmtree`` on ~150,000 small files; rmtree without it."""
    if shutil.which("rm") is None or subprocess.run(["rm", "-rf", "--", str(path)], check=False).returncode:
        shutil.rmtree(path, ignore_errors=True)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, help=f"video files per single library and in total concurrently "
                        f"(default {DEFAULT_FILES}, {QUICK_FILES} with --quick)")
    parser.add_argument("--libraries", type=int, help=f"libraries scanned at once (default {DEFAULT_LIBRARIES}, "
                        f"{QUICK_LIBRARIES} with --quick)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="kinds of the single-scan libraries, in order")
    parser.add_argument("--quick", action="store_true", help="a small run for a smoke test")
    parser.add_argument("--workdir", type=Path, help="where the temporary tree and data go (default: system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the tree, data and server logs")
    args = parser.parse_args()
    args.files = args.files or (QUICK_FILES if args.quick else DEFAULT_FILES)
    args.libraries = args.libraries or (QUICK_LIBRARIES if args.quick else DEFAULT_LIBRARIES)
    args.kinds = [k for k in args.kinds.split(",") if k]
    if not args.kinds or set(args.kinds) - set(KINDS) or args.files < 1 or args.libraries < 1:
        parser.error(f"--kinds takes {','.join(KINDS)}; --files and --libraries must be positive")
    return args


def main() -> int:
    args = parse_args()
    sigterm_as_interrupt()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="reelhouse-bench-", dir=args.workdir))
    try:
        started = time.perf_counter()
        report: dict[str, Any] = {
            "benchmark": "scan_load",
            "config": {"files": args.files, "libraries": args.libraries, "kinds": args.kinds, "quick": args.quick,
                       "at_issue_scale": args.files == DEFAULT_FILES and args.libraries == DEFAULT_LIBRARIES,
                       "cpus": os.cpu_count(), "load_average_before": os.getloadavg(),
                       "sample_interval_ms": SAMPLE_INTERVAL_S * 1000},
            "single": run_single(base, args.files, args.kinds),
            "concurrent": run_concurrent(base, args.files, args.libraries),
        }
        report["targets"] = targets(report["single"]["results"], report["concurrent"], report["single"]["server"])
        report["run_seconds"] = round(time.perf_counter() - started, 1)
        report["config"]["load_average_after"] = os.getloadavg()
    except BenchmarkError as exc:
        print(f"scan_load: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"scan_load: kept {base}", file=sys.stderr)
        else:
            progress(f"removing {base}")
            remove_tree(base)
    print(json.dumps(report, indent=2))
    print("\n".join(summary_lines(report)), file=sys.stderr)
    completed = all(scan["state"] == "completed" for batch in batches(report) for scan in batch["scans"])
    if not completed or stream_errors(report):
        return 1
    stalled = [row["name"] for row in report["targets"] if row["name"].endswith("loop_stall_ms") and not row["met"]]
    if stalled:
        print(f"scan_load: the event loop stalled over {TARGET_MAX_STALL_MS:g} ms: {', '.join(stalled)}",
              file=sys.stderr)
        return 2
    return 0


def batches(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r[b] for r in report["single"]["results"] for b in ("full", "quick_rescan")] + [
        report["concurrent"]["batch"]
    ]


def stream_errors(report: dict[str, Any]) -> list[str]:
    """Each batch's event-stream failure (the stream's figures are then missing)."""
    return [b["stream_error"] for b in batches(report) if b.get("stream_error")]


if __name__ == "__main__":
    sys.exit(main())
