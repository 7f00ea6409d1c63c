"""Load benchmark of library scans through the real server and HTTP API.

Writes a synthetic tree (benchmarks/_tree.py: movies and series with NFO
files and posters; probing off), starts ``reelhouse serve`` as a process,
and measures, in one run:

1. single: for each kind (movies, tvshows), one library of ``--files``
   video files scanned alone (full), then a quick rescan and a full rescan
   of it unchanged; next to it the *floor* of the same tree: a bare
   ``os.scandir`` walk plus one ``sqlite3.executemany`` of one row per
   video file (best of 3);
2. postgresql: the same first scan and full rescan on PostgreSQL (a fresh
   schema of ``TEST_POSTGRES_URL``'s database), as a ratio to SQLite's;
3. two_scans: ``GET /items`` of a scanned 1,000-movie library sampled at
   rest, then while two libraries of ``--files / 2`` videos (movies,
   series) are scanned at once (first scans, then unchanged full
   rescans), as ratios of the p99 to the one at rest;
4. concurrent: ``--libraries`` libraries sharing ``--files`` video files,
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
                                      [--phases single,postgresql,two_scans,concurrent]
                                      [--quick] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import trio

from _http_probe import (
    BenchmarkError,
    LatencySamples,
    Server,
    running_server,
    sample_latency,
    sigterm_as_interrupt,
)
from _scan_batch import SAMPLE_INTERVAL_S, ScanRun, api_client, run_batch
from _scan_report import TARGET_MAX_STALL_MS, summary_lines, targets
from _tree import KINDS, SEED, measure_floor, write_library

# After each batch: the tasks a finished scan triggers (afterScan rules) run meanwhile.
AFTER_SCAN_S = 5.0
IDLE_SETTLE_S = 10.0  # after a scan, before sampling at rest (covers and posters follow a scan)
IDLE_SAMPLE_S = 8.0
PAGE_LIBRARY_FILES = 1_000  # the library whose first page is sampled in the two_scans phase
PHASES = ("single", "postgresql", "two_scans", "concurrent")
POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
DEFAULT_FILES = 20_000
DEFAULT_LIBRARIES = 8
QUICK_FILES = 2_000
QUICK_LIBRARIES = 2
# Probing off: media information is read only at playback; no initial scan.
LIBRARY_OPTIONS = {"remoteAllowedHosts": [], "mediaInfoTiming": "playback", "scansSuspended": True}


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


async def single_phase(server: Server, trees: dict[str, Path], videos: int, quick: bool) -> list[dict[str, Any]]:
    """Per kind: a full scan alone, then (with ``quick``) a quick rescan, then a full rescan, both unchanged."""
    results = []
    for kind, root in trees.items():
        library_id = await create_library(server, f"single {kind}", root, kind)
        result = {"kind": kind, "full": await run_batch(server, [ScanRun(library_id, kind, videos)], "full")}
        await trio.sleep(AFTER_SCAN_S)
        if quick:
            result["quick_rescan"] = await run_batch(server, [ScanRun(library_id, kind, videos)], "quick")
            await trio.sleep(AFTER_SCAN_S)
        result["full_rescan"] = await run_batch(server, [ScanRun(library_id, kind, videos)], "full")
        await trio.sleep(AFTER_SCAN_S)
        result["item_count"] = await item_count(server, library_id)
        results.append(result)
    return results


async def sample_idle(server: Server, path: str, seconds: float) -> dict[str, Any]:
    """``path`` sampled every ``SAMPLE_INTERVAL_S`` for ``seconds`` with no scan running.

    The two status pollers that watch every batch poll here too, on the
    same client: the ratio then compares the page with and without scans,
    not with and without the benchmark's own observers.
    """
    samples = LatencySamples(path)
    observers = [LatencySamples("/system/status"), LatencySamples("/scans/status")]
    async with api_client(server) as client:
        with trio.move_on_after(seconds):
            async with trio.open_nursery() as nursery:
                for observer in observers:
                    nursery.start_soon(sample_latency, client, observer, SAMPLE_INTERVAL_S)
                await sample_latency(client, samples, SAMPLE_INTERVAL_S)
    return samples.summary()


async def two_scans_phase(server: Server, page_root: Path, trees: list[tuple[str, Path, int]]) -> dict[str, Any]:
    """A scanned page library sampled idle, then during two first scans at once, then two unchanged full rescans."""
    page_id = await create_library(server, "page", page_root, "movies")
    await run_batch(server, [ScanRun(page_id, "movies", 0)], "full")
    page = f"/items?libraryId={page_id}&limit=50"
    await trio.sleep(IDLE_SETTLE_S)  # what follows a scan (covers, posters) is not "idle"
    idle = await sample_idle(server, page, IDLE_SAMPLE_S)
    runs = [ScanRun(await create_library(server, f"two {i} {kind}", root, kind), kind, videos)
            for i, (kind, root, videos) in enumerate(trees)]
    first = await run_batch(server, runs, "full", page)
    await trio.sleep(IDLE_SETTLE_S)
    rescan = await run_batch(server, [ScanRun(r.library_id, r.kind, r.videos) for r in runs], "full", page)
    await trio.sleep(AFTER_SCAN_S)
    idle_p99 = idle["p99_ms"] or 0
    return {
        "idle": idle,
        "first": first,
        "rescan": rescan,
        "first_p99_over_idle": _over(first["latency"]["items_page"]["p99_ms"], idle_p99),
        "rescan_p99_over_idle": _over(rescan["latency"]["items_page"]["p99_ms"], idle_p99),
    }


def _over(measured: float | None, base: float | None) -> float | None:
    return round(measured / base, 2) if measured is not None and base else None


async def concurrent_phase(server: Server, trees: list[tuple[str, Path, int]]) -> dict[str, Any]:
    """Every library's full scan started at once."""
    runs = []
    for index, (kind, root, videos) in enumerate(trees):
        library_id = await create_library(server, f"concurrent {index} {kind}", root, kind)
        runs.append(ScanRun(library_id, kind, videos))
    batch = await run_batch(server, runs, "full")
    await trio.sleep(AFTER_SCAN_S)
    return batch


# --- main -----------------------------------------------------------------------


def progress(message: str, _started: float = time.monotonic()) -> None:
    """One line on stderr with the seconds since start: the run takes minutes."""
    print(f"scan_load [{time.monotonic() - _started:6.1f} s] {message}", file=sys.stderr, flush=True)


def write_trees(base: Path, files: int, kinds: list[str]) -> tuple[dict[str, Path], dict[str, float]]:
    trees, tree_seconds = {}, {}
    for kind in kinds:
        started = time.perf_counter()
        progress(f"writing a {kind} tree of {files} video files")
        write_library(base / "single" / kind, kind, files)
        trees[kind], tree_seconds[kind] = base / "single" / kind, round(time.perf_counter() - started, 2)
    return trees, tree_seconds


def run_single(base: Path, files: int, trees: dict[str, Path], tree_seconds: dict[str, float]) -> dict[str, Any]:
    floors = {kind: measure_floor(root, base / "floor.db") for kind, root in trees.items()}
    progress("single scans")
    with running_server(base / "data-single", None) as server:
        results = trio.run(single_phase, server, trees, files, True)
        figures = server.figures()
    for result in results:
        result["floor"] = floors[result["kind"]]
        result["tree_seconds"] = tree_seconds[result["kind"]]
        scan_seconds = result["full"]["scans"][0]["scan_seconds"]
        result["scan_over_floor"] = round(scan_seconds / result["floor"]["floor_seconds"], 2)
    return {"server": figures, "results": results}


def run_postgres(base: Path, files: int, trees: dict[str, Path], single: dict[str, Any] | None) -> dict[str, Any]:
    """The single phase's first scan and unchanged full rescan on PostgreSQL (a fresh schema, dropped after)."""
    schema = f"bench_{uuid.uuid4().hex[:16]}"
    url = f"{POSTGRES_URL}{'&' if '?' in POSTGRES_URL else '?'}schema={schema}"
    progress(f"single scans on PostgreSQL (schema {schema})")
    try:
        with running_server(base / "data-postgresql", None, {"REELHOUSE_DATABASE_URL": url}) as server:
            results = trio.run(single_phase, server, trees, files, False)
            figures = server.figures()
    finally:
        asyncio.run(_drop_schema(schema))
    sqlite = {r["kind"]: r["full"]["scans"][0]["scan_seconds"] for r in (single or {}).get("results", [])}
    for result in results:
        seconds = result["full"]["scans"][0]["scan_seconds"]
        result["over_sqlite"] = round(seconds / sqlite[result["kind"]], 2) if sqlite.get(result["kind"]) else None
    return {"server": figures, "results": results}


async def _drop_schema(schema: str) -> None:
    conn = await asyncpg.connect(POSTGRES_URL)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def run_two_scans(base: Path, files: int) -> dict[str, Any]:
    """Two libraries of ``files / 2`` videos (movies, series) scanned at once beside a sampled page."""
    page_root = base / "two" / "page"
    write_library(page_root, "movies", PAGE_LIBRARY_FILES, seed=SEED + 100)
    trees = []
    for index, kind in enumerate(KINDS):
        root = base / "two" / f"library-{index}"
        progress(f"writing a {kind} tree of {files // 2} video files")
        write_library(root, kind, files // 2, seed=SEED + 200 + index)
        trees.append((kind, root, files // 2))
    progress("GET /items idle, then during two full scans")
    with running_server(base / "data-two", 2) as server:
        result = trio.run(two_scans_phase, server, page_root, trees)
        result["server"] = server.figures()
    return result


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
    parser.add_argument("--phases", default=",".join(PHASES),
                        help=f"phases to run, in this order whatever given (default {','.join(PHASES)}); "
                        "postgresql's ratio needs single")
    parser.add_argument("--quick", action="store_true", help="a small run for a smoke test")
    parser.add_argument("--workdir", type=Path, help="where the temporary tree and data go (default: system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the tree, data and server logs")
    args = parser.parse_args()
    args.files = args.files or (QUICK_FILES if args.quick else DEFAULT_FILES)
    args.libraries = args.libraries or (QUICK_LIBRARIES if args.quick else DEFAULT_LIBRARIES)
    args.kinds = [k for k in args.kinds.split(",") if k]
    args.phases = [p for p in args.phases.split(",") if p]
    if set(args.phases) - set(PHASES) or ("postgresql" in args.phases and "single" not in args.phases):
        parser.error(f"--phases takes {','.join(PHASES)}; postgresql needs single")
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
        }
        if "single" in args.phases:
            trees, tree_seconds = write_trees(base, args.files, args.kinds)
            report["single"] = run_single(base, args.files, trees, tree_seconds)
        if "postgresql" in args.phases:
            report["postgresql"] = run_postgres(base, args.files, trees, report.get("single"))
        if "two_scans" in args.phases:
            report["two_scans"] = run_two_scans(base, args.files)
        if "concurrent" in args.phases:
            report["concurrent"] = run_concurrent(base, args.files, args.libraries)
        report["targets"] = targets(report)
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
    print("\n".join(summary_lines(report, stream_errors(report))), file=sys.stderr)
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
    found = [r[b] for phase in ("single", "postgresql") for r in (report.get(phase) or {}).get("results", [])
             for b in ("full", "quick_rescan", "full_rescan") if b in r]
    if two := report.get("two_scans"):
        found += [two["first"], two["rescan"]]
    if concurrent := report.get("concurrent"):
        found.append(concurrent["batch"])
    return found


def stream_errors(report: dict[str, Any]) -> list[str]:
    """Each batch's event-stream failure (the stream's figures are then missing)."""
    return [b["stream_error"] for b in batches(report) if b.get("stream_error")]


if __name__ == "__main__":
    sys.exit(main())
