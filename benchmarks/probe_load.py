"""Benchmark of media info: a first scan that probes every file, through the real server.

A tree of ``--files`` small but valid videos (default 5,000; one movie
folder each) in varied codecs and containers, made once with ffmpeg and
cached (``--cache``), is measured in one run:

1. **floor**: a bare recursive ``os.scandir`` walk of the tree (best of 3),
   then every file read once (both scans read a warm tree);
2. **scan**: ``reelhouse serve`` as a process, one library with
   ``mediaInfoTiming: scan``, one full scan (``POST /libraries/{id}/scan``)
   polled until it ends; files/s from the final ScanStatus, and what the
   catalogue holds afterwards (sources probed, failures by kind); the CPU
   of the server and its children during the scan, split by where it went;
3. **minidlna**: ``minidlnad`` (``make dlna-tools``; needs root for its
   private network namespace, else skipped) over the same tree, warm as
   Reelhouse read it: its first scan's wall time and CPU seconds, and
   ``cpu_ratio``, Reelhouse's scan CPU over minidlna's per file (#29:
   target 1.0);
4. **probe path**: the server's probe pool alone (``ProbePool``,
   ``--probe-concurrency`` workers and lanes, batches as a scan sends
   them) over every file of the tree;
5. **ffprobe**: the old path on a sample (``--ffprobe-sample``): one
   ``ffprobe`` process per file, ``--probe-concurrency`` at once, its JSON
   parsed as before.

It prints one JSON document (figures, targets, the machine's load) on
stdout and a summary on stderr; benchmarks/README.md explains each figure.
It asserts nothing about timings: exit 0 when everything was measured, 1
when the scan failed or did not probe every file, or the server could not
run.

Usage: python benchmarks/probe_load.py [--files N] [--ffprobe-sample N] [--probe-concurrency N]
                                       [--cache DIR] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import trio

import _minidlna
from _http_probe import BenchmarkError, running_server, sigterm_as_interrupt, tree_rss_mb
from _minidlna import cpu_seconds
from reelhouse.actors.scan.probe_pool import open_probe_pool
from reelhouse.actors.scan.probing import BATCH
from reelhouse.config import ScanSettings
from reelhouse.media.probe import ProbeError
from reelhouse.media.probe_ffprobe import FFPROBE_ENV, ffprobe_args, parse_probe

DEFAULT_FILES = 5_000
DEFAULT_FFPROBE_SAMPLE = 200
TREE_VERSION = 2
FLOOR_ROUNDS = 3
SCAN_TIMEOUT_S = 600.0
POLL_INTERVAL_S = 0.25  # a status poll costs the server ~1 ms of CPU: counted in the scan's CPU, kept rare
FFMPEG_TIMEOUT_S = 120
LIBRARY_OPTIONS = {"remoteAllowedHosts": [], "mediaInfoTiming": "scan", "scansSuspended": True, "realtimeMonitor": False}
FINAL_STATES = ("completed", "failed", "cancelled")
DEFAULT_SLOTS = ScanSettings().probe_concurrency  # the server's default probe workers and lanes

TARGET_SCAN_FILES_PER_SECOND = 1_500
TARGET_SPEEDUP_OVER_FFPROBE = 20.0
TARGET_CPU_RATIO = 1.0  # #29: the probing scan at no more CPU than minidlna's first scan of the tree

# (extension, ffmpeg output arguments): the templates every tree file is a copy of.
VIDEO = ["-f", "lavfi", "-i", "testsrc=size={size}:rate=5"]
AUDIO = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"]
TEMPLATES: tuple[tuple[str, str, list[str]], ...] = (
    ("mkv", "320x240", ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]),
    ("mkv", "640x360", ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=none", "-c:a", "ac3"]),
    ("mkv", "320x180", ["-c:v", "mpeg4", "-c:a", "libmp3lame"]),
    ("mkv", "160x120", ["-c:v", "libvpx", "-c:a", "libvorbis"]),
    ("mkv", "320x240", ["-c:v", "mpeg2video", "-c:a", "flac"]),
    ("mp4", "320x240", ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]),
    ("mp4", "480x270", ["-c:v", "mpeg4", "-c:a", "aac", "-ac", "2"]),
    ("m4v", "320x136", ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]),
    ("mov", "320x240", ["-c:v", "mjpeg", "-c:a", "pcm_s16le"]),
    ("avi", "320x240", ["-c:v", "mpeg4", "-c:a", "libmp3lame"]),
    ("avi", "176x144", ["-c:v", "msmpeg4v2", "-c:a", "mp2"]),
    ("ts", "320x240", ["-c:v", "mpeg2video", "-c:a", "mp2"]),
    ("ts", "320x240", ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]),
    ("webm", "160x120", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-c:a", "libopus"]),
    ("flv", "320x240", ["-c:v", "flv", "-c:a", "libmp3lame", "-ar", "44100"]),
    ("mkv", "320x240", ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-c:a", "eac3"]),
)


def log(message: str, started: float) -> None:
    print(f"probe_load [{time.perf_counter() - started:6.1f} s] {message}", file=sys.stderr, flush=True)


# --- the tree -------------------------------------------------------------------


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "reelhouse-bench"


def make_templates(folder: Path) -> list[Path]:
    """One short real video per template, made with ffmpeg (once: kept in ``folder``)."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for number, (extension, size, output) in enumerate(TEMPLATES):
        target = folder / f"template-{number:02d}.{extension}"
        if not target.exists():
            video = [part.format(size=size) for part in VIDEO]
            partial = target.with_suffix(".part" + target.suffix)
            subprocess.run(
                ["ffmpeg", "-v", "error", "-y", *video, *AUDIO, "-t", "1", *output, str(partial)],
                check=True, timeout=FFMPEG_TIMEOUT_S,
            )  # fmt: skip
            partial.rename(target)
        made.append(target)
    return made


def ensure_tree(cache: Path, files: int) -> Path:
    """The cached tree of ``files`` movie folders, made when missing."""
    root = cache / f"probe-tree-v{TREE_VERSION}-{files}"
    marker = root / ".complete"
    if marker.exists():
        return root
    templates = make_templates(cache / f"probe-templates-v{TREE_VERSION}")
    shutil.rmtree(root, ignore_errors=True)
    for number in range(files):
        template = templates[number % len(templates)]
        name = f"Probe Film {number:05d} ({1950 + number % 75})"
        folder = root / name
        folder.mkdir(parents=True)
        shutil.copyfile(template, folder / f"{name}{template.suffix}")
    marker.write_text(json.dumps({"files": files, "templates": len(templates)}))
    return root


def video_paths(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def walk_floor(root: Path) -> dict[str, Any]:
    """Best of ``FLOOR_ROUNDS`` bare ``os.scandir`` walks listing every file."""
    best, count = float("inf"), 0
    for _ in range(FLOOR_ROUNDS):
        started = time.perf_counter()
        count, pending = 0, [os.fspath(root)]
        while pending:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif not entry.name.startswith("."):
                        count += 1
        best = min(best, time.perf_counter() - started)
    return {"files": count, "walk_seconds": round(best, 4), "walk_files_per_second": round(count / best)}


def warm_tree(paths: list[str]) -> float:
    """Read every file once, so that both scans (Reelhouse's, minidlna's) read a warm tree: seconds taken."""
    started = time.perf_counter()
    for path in paths:
        with open(path, "rb") as file:
            while file.read(1 << 20):
                pass
    return round(time.perf_counter() - started, 3)


# --- the scan through the server ------------------------------------------------


def _epoch_ms(rfc3339: str) -> int:
    return round(datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp() * 1000)


async def scan_phase(api_url: str, key: str, root: Path) -> dict[str, Any]:
    """Create the library, run one full scan, poll until it ends; its final status."""
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=api_url, headers=headers, timeout=30) as client:
        body = {"name": "Probe", "paths": [str(root)], "collectionType": "movies", "options": LIBRARY_OPTIONS}
        created = await client.post("/libraries", json=body)
        if created.status_code != 201:
            raise BenchmarkError(f"library creation answered {created.status_code}: {created.text[:200]}")
        library_id = created.json()["id"]
        posted = time.perf_counter()
        response = await client.post(f"/libraries/{library_id}/scan", json={"mode": "full"})
        if response.status_code not in (200, 202):
            raise BenchmarkError(f"scan start answered {response.status_code}: {response.text[:200]}")
        samples: list[tuple[float, int, int | None, str | None]] = []
        with trio.move_on_after(SCAN_TIMEOUT_S):
            while True:
                status = next(s for s in (await client.get("/scans/status")).json() if s["libraryId"] == library_id)
                samples.append((time.perf_counter() - posted, status["processed"], status.get("total"), status.get("phase")))
                if status.get("state") in FINAL_STATES:
                    break
                await trio.sleep(POLL_INTERVAL_S)
        wall = time.perf_counter() - posted
    if status.get("state") not in FINAL_STATES:
        raise BenchmarkError(f"the scan did not end within {SCAN_TIMEOUT_S:g} s")
    scan_seconds = (_epoch_ms(status["finishedAt"]) - _epoch_ms(status["startedAt"])) / 1000
    probe_samples = [s for s in samples if s[3] == "write"]
    return {
        "state": status["state"],
        "message": status.get("message"),
        "scan_seconds": round(scan_seconds, 3),
        "wall_seconds_client": round(wall, 3),
        "final_processed": status["processed"],
        "final_total": status.get("total"),
        "polls": len(samples),
        "probe_phase_polls": len(probe_samples),
        # from the POST to the first poll in phase write, and from there to the end (client clock, ~250 ms)
        "until_probe_phase_seconds_client": round(probe_samples[0][0], 3) if probe_samples else None,
        "probe_phase_seconds_client": round(wall - probe_samples[0][0], 3) if probe_samples else None,
        "probe_phase_processed_values": len({s[1] for s in probe_samples}),
    }


def catalogue_figures(data_dir: Path) -> dict[str, Any]:
    """What the scan left in the catalogue (the server has stopped)."""
    connection = sqlite3.connect(f"file:{data_dir / 'reelhouse.db'}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT s.probe_failure, i.probe_pending, s.probed_at IS NOT NULL, count(*) FROM media_sources s"
            " JOIN items i ON i.id = s.item_id WHERE s.remote = 0 GROUP BY 1, 2, 3"
        ).fetchall()
        streams = connection.execute("SELECT count(*) FROM media_streams WHERE is_external = 0").fetchone()[0]
        codecs = connection.execute(
            "SELECT codec, count(*) FROM media_streams WHERE is_external = 0 GROUP BY codec ORDER BY 2 DESC"
        ).fetchall()
    finally:
        connection.close()
    failures = Counter()
    probed = pending = sources = 0
    for failure, is_pending, was_probed, count in rows:
        sources += count
        pending += count if is_pending else 0
        probed += count if was_probed and failure is None else 0
        if failure is not None:
            failures[failure] += count
    return {"sources": sources, "probed_ok": probed, "probe_pending": pending, "failures": dict(failures),
            "streams": streams, "codecs": dict(codecs)}


def cpu_split(pid: int) -> dict[str, float]:
    """The server's CPU seconds so far by where they went: its event-loop thread, its other threads,
    the children it waited for (a scan's parser processes) and its living children (the probe workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    split = {"event_loop_thread": 0.0, "other_threads": 0.0, "exited_children": 0.0, "living_children": 0.0}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended meanwhile: counted in ended_threads
        split["event_loop_thread" if task.name == str(pid) else "other_threads"] += sum(int(f) for f in fields[11:13]) / tick
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    split["ended_threads"] = sum(int(f) for f in fields[11:13]) / tick - split["event_loop_thread"] - split["other_threads"]
    split["exited_children"] = sum(int(f) for f in fields[13:15]) / tick
    split["living_children"] = cpu_seconds(pid) - sum(int(f) for f in fields[11:15]) / tick
    return split


def run_scan(base: Path, root: Path, files: int, slots: int) -> dict[str, Any]:
    data_dir = base / "data"
    settings = {} if slots == DEFAULT_SLOTS else {"REELHOUSE_SCAN__PROBE_CONCURRENCY": str(slots)}
    with running_server(data_dir, None, settings) as server:
        cpu_before, split_before = cpu_seconds(server.process.pid), cpu_split(server.process.pid)
        result = trio.run(scan_phase, server.api_url, server.key, root)
        result["server_cpu_seconds"] = round(cpu_seconds(server.process.pid) - cpu_before, 2)
        split = cpu_split(server.process.pid)
        result["server_cpu_split"] = {k: round(split[k] - split_before[k], 2) for k in split}
        result["tree_rss_mb_after_scan"] = tree_rss_mb(server.process.pid)
        result["server"] = server.figures()
    result["catalogue"] = catalogue_figures(data_dir)
    result["files_per_second"] = round(files / result["scan_seconds"]) if result["scan_seconds"] else None
    cpu = result["server_cpu_seconds"]
    result["files_per_cpu_second"] = round(files / cpu) if cpu else None
    return result


def minidlna_scan(base: Path, root: Path, files: int) -> dict[str, Any]:
    """minidlna's first scan of the same tree (``_minidlna.first_scan``), or why it was skipped."""
    if (why := _minidlna.available()) is not None:
        return {"skipped": why}
    return _minidlna.first_scan(base, root, files)


def cpu_against_minidlna(report: dict[str, Any], files: int) -> dict[str, Any]:
    """Reelhouse's scan CPU over minidlna's, per file each indexed (minidlna skips extensions it does not know)."""
    peer = report["minidlna"]
    if "skipped" in peer or not peer["cpu_seconds"] or not peer["videos_indexed"]:
        return {"target": TARGET_CPU_RATIO, "measured": None, "met": None}
    ours = report["scan"]["server_cpu_seconds"] / files
    ratio = ours / (peer["cpu_seconds"] / peer["videos_indexed"])
    return {"target": TARGET_CPU_RATIO, "measured": round(ratio, 2), "met": ratio <= TARGET_CPU_RATIO,
            "whole_tree": round(report["scan"]["server_cpu_seconds"] / peer["cpu_seconds"], 2),
            "cpu_ms_per_file": {"reelhouse": round(ours * 1000, 3),
                                "minidlna": round(peer["cpu_seconds"] * 1000 / peer["videos_indexed"], 3)},
            "files_per_second": {"reelhouse": report["scan"]["files_per_second"], "minidlna": peer["files_per_second"]}}


# --- the probe path alone, and the old ffprobe path -------------------------------


async def probe_path(paths: list[str], slots: int) -> dict[str, Any]:
    """The server's pool over ``paths``: ``slots`` lanes of ``BATCH`` paths, as a scan probes."""
    pending = iter(paths)
    failures: Counter[str] = Counter()
    async with open_probe_pool(slots, timeout=30) as pool:
        await pool.probe(paths[:slots])  # start-up is a server's, once: not timed
        started = time.perf_counter()

        async def lane() -> None:
            while batch := [p for _, p in zip(range(BATCH), pending, strict=False)]:
                for answer in await pool.probe(batch):
                    if answer.failure is not None:
                        failures[answer.failure.value] += 1

        async with trio.open_nursery() as nursery:
            for _ in range(slots):
                nursery.start_soon(lane)
        seconds = time.perf_counter() - started
    return {"files": len(paths), "seconds": round(seconds, 3), "files_per_second": round(len(paths) / seconds),
            "workers": slots, "batch": BATCH, "failures": dict(failures)}


async def ffprobe_path(paths: list[str], slots: int) -> dict[str, Any]:
    """One ffprobe process per file, ``slots`` at once, its JSON parsed: the old probe path."""
    limiter = trio.CapacityLimiter(slots)
    env = {**os.environ, **FFPROBE_ENV}
    failures: Counter[str] = Counter()

    async def one(path: str) -> None:
        async with limiter:
            done = await trio.run_process(ffprobe_args(path), capture_stdout=True, capture_stderr=True, check=False, env=env)
        try:
            parse_probe(done.stdout, path_container_hint=path)
        except ProbeError as exc:
            failures[exc.failure.value] += 1

    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for path in paths:
            nursery.start_soon(one, path)
    seconds = time.perf_counter() - started
    return {"files": len(paths), "seconds": round(seconds, 3), "files_per_second": round(len(paths) / seconds),
            "concurrency": slots, "failures": dict(failures)}


# --- main -----------------------------------------------------------------------


def targets(report: dict[str, Any]) -> dict[str, Any]:
    scan_rate = report["scan"]["files_per_second"] or 0
    speedup = report["probe_path"]["files_per_second"] / report["ffprobe"]["files_per_second"]
    in_scan = scan_rate / report["ffprobe"]["files_per_second"]
    return {
        "first_scan_files_per_second": {"target": TARGET_SCAN_FILES_PER_SECOND, "measured": scan_rate,
                                        "ratio": round(scan_rate / TARGET_SCAN_FILES_PER_SECOND, 2),
                                        "met": scan_rate >= TARGET_SCAN_FILES_PER_SECOND},
        "probe_path_over_ffprobe": {"target": TARGET_SPEEDUP_OVER_FFPROBE, "measured": round(speedup, 1),
                                    "ratio": round(speedup / TARGET_SPEEDUP_OVER_FFPROBE, 2),
                                    "met": speedup >= TARGET_SPEEDUP_OVER_FFPROBE},
        "whole_scan_over_ffprobe_probing": round(in_scan, 1),
        "cpu_ratio": report["cpu_ratio"],
    }


def summary_lines(report: dict[str, Any]) -> list[str]:
    scan, floor = report["scan"], report["floor"]
    goals = report["targets"]
    return [
        f"floor: walk {floor['files']} files in {floor['walk_seconds']} s ({floor['walk_files_per_second']} files/s)",
        f"first scan with probing: {scan['scan_seconds']} s, {scan['files_per_second']} files/s "
        f"({scan['catalogue']['probed_ok']} probed, failures {scan['catalogue']['failures']}) "
        f"target {TARGET_SCAN_FILES_PER_SECOND}: {'met' if goals['first_scan_files_per_second']['met'] else 'NOT met'}",
        f"probe path: {report['probe_path']['files_per_second']} files/s; ffprobe per file: "
        f"{report['ffprobe']['files_per_second']} files/s -> {goals['probe_path_over_ffprobe']['measured']}x "
        f"(target {TARGET_SPEEDUP_OVER_FFPROBE:g}x: {'met' if goals['probe_path_over_ffprobe']['met'] else 'NOT met'})",
        _minidlna_line(report),
        f"load average before/after: {report['config']['load_average_before']} / {report['config']['load_average_after']}",
    ]


def _minidlna_line(report: dict[str, Any]) -> str:
    peer, ratio = report["minidlna"], report["cpu_ratio"]
    if "skipped" in peer:
        return f"minidlna: skipped ({peer['skipped']})"
    return (f"minidlna first scan: {peer['scan_seconds']} s, {peer['files_per_second']} files/s, {peer['cpu_seconds']} CPU-s "
            f"({peer['videos_indexed']} videos); Reelhouse {report['scan']['server_cpu_seconds']} CPU-s -> cpu_ratio "
            f"{ratio['measured']} per file (whole tree {ratio['whole_tree']}; target {TARGET_CPU_RATIO:g}: "
            f"{'met' if ratio['met'] else 'NOT met'})")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=DEFAULT_FILES, help=f"video files in the tree (default {DEFAULT_FILES})")
    parser.add_argument("--ffprobe-sample", type=int, default=DEFAULT_FFPROBE_SAMPLE,
                        help=f"files probed with one ffprobe each (default {DEFAULT_FFPROBE_SAMPLE})")
    parser.add_argument("--probe-concurrency", type=int, default=DEFAULT_SLOTS,
                        help=f"the server's scan.probe_concurrency, and the probe path's and ffprobe's (default {DEFAULT_SLOTS})")
    parser.add_argument("--cache", type=Path, default=default_cache(), help="where the tree is made once and kept")
    parser.add_argument("--workdir", type=Path, help="where the server's data go (default: system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the server's data and log")
    args = parser.parse_args()
    if args.files < 1 or args.ffprobe_sample < 1 or not 1 <= args.probe_concurrency <= 8:
        parser.error("--files and --ffprobe-sample must be positive, --probe-concurrency 1 to 8")
    return args


def main() -> int:
    args = parse_args()
    sigterm_as_interrupt()
    started = time.perf_counter()
    if shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None:
        print("probe_load: ffmpeg and ffprobe are needed (make ffmpeg)", file=sys.stderr)
        return 1
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="reelhouse-probe-bench-", dir=args.workdir))
    report: dict[str, Any] = {"benchmark": "probe_load", "config": {
        "files": args.files, "ffprobe_sample": args.ffprobe_sample, "probe_concurrency": args.probe_concurrency,
        "default_probe_concurrency": args.probe_concurrency == DEFAULT_SLOTS, "batch": BATCH,
        "cpus": os.cpu_count(), "load_average_before": os.getloadavg()}}
    try:
        log(f"the tree of {args.files} videos (cached under {args.cache})", started)
        root = ensure_tree(args.cache, args.files)
        paths = video_paths(root)
        report["floor"] = walk_floor(root)
        report["floor"]["warm_read_seconds"] = warm_tree(paths)
        log("first scan with mediaInfoTiming scan", started)
        report["scan"] = run_scan(base, root, len(paths), args.probe_concurrency)
        log("minidlna's first scan of the same tree", started)
        report["minidlna"] = minidlna_scan(base, root, len(paths))
        report["cpu_ratio"] = cpu_against_minidlna(report, len(paths))
        log("the probe path alone", started)
        report["probe_path"] = trio.run(probe_path, paths, args.probe_concurrency)
        log(f"ffprobe per file on {args.ffprobe_sample} files", started)
        step = max(1, len(paths) // args.ffprobe_sample)
        report["ffprobe"] = trio.run(ffprobe_path, paths[::step][: args.ffprobe_sample], args.probe_concurrency)
        report["targets"] = targets(report)
        report["config"]["load_average_after"] = os.getloadavg()
        report["run_seconds"] = round(time.perf_counter() - started, 1)
    except (BenchmarkError, RuntimeError, subprocess.CalledProcessError) as exc:
        print(f"probe_load: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"probe_load: kept {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(report, indent=2))
    print("\n".join(summary_lines(report)), file=sys.stderr)
    catalogue = report["scan"]["catalogue"]
    complete = report["scan"]["state"] == "completed" and catalogue["probe_pending"] == 0 and catalogue["sources"] == len(paths)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
