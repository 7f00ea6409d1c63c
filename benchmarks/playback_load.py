"""Playback under load (issue 14): sessions reporting progress, players streaming, the admin list.

One server (``reelhouse serve``, SQLite), one library holding one film of
``--file-mb`` MiB (random bytes, not probed: ``mediaInfoTiming`` playback),
one member who signs in from ``--sessions`` devices (no password: the name
alone, so signing in costs no password hash).  Then, for ``--seconds``:

- every device holds one playback session (``POST /sessions/playing``) and
  reports progress every ``--report-every`` seconds (the first reports
  spread over that interval);
- ``--streams`` of those devices stream the film with range requests
  (``GET /videos/{id}/stream``, ``--range-mb`` MiB at a random offset, back
  to back), their bytes counted for their sessions;
- an administrator reads ``GET /admin/playback/sessions`` every 0.5 s.

Figures (one JSON document on stdout):

- ``memory``: the server's RSS before the sessions started and once all of
  them were live and idle (before any stream), and the growth per session
  (target: under 50 KB);
- ``reports``: latency of the session reports (target: p99 under 20 ms);
- ``streams``: MB/s received by the streaming players together, against
  the **floor** measured in the same run: a plain blocking Python loop
  reading the same file in 256 KiB chunks and writing it to a local TCP
  socket drained by a thread (target: at least 50 % of it);
- ``admin_sessions``: latency of the admin list while all this runs;
- ``live_at_end`` (sessions the admin list shows at the end) and
  ``recorded_at_sigterm``: the server is stopped with SIGTERM, restarted on
  the same database, and the sessions in its history counted (every live
  session must have ended into a PlayRecord).

The session half needs the playback report routes (``POST
/sessions/playing``); when the server lacks them, it is reported skipped and
only the streams are measured.  Exits 0 when everything that exists was
measured; asserts nothing about timings.

Usage: python benchmarks/playback_load.py [--seconds S] [--sessions N] [--streams N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import trio

from _api_processes import BENCHMARKS, reelhouse_server
from _http_probe import BenchmarkError, LatencySamples, Server, sample_latency, sigterm_as_interrupt, summarize_ms

MIB = 1024 * 1024
FLOOR_CHUNK = 256 * 1024
FLOOR_SECONDS = 3.0
SCAN_TIMEOUT_S = 120.0
SETTLE_S = 2.0
ADMIN_EVERY_S = 0.5
MEMBER = "bench"
TARGETS = {"kb_per_session": 50.0, "report_p99_ms": 20.0, "stream_fraction_of_floor": 0.5}


@dataclass
class Setup:
    server: Server
    item_id: str
    tokens: list[str]
    file: Path


@dataclass
class Figures:
    reports: list[float] = field(default_factory=list)
    report_errors: dict[str, int] = field(default_factory=dict)
    streams: dict[str, Any] = field(default_factory=dict)  # what _stream_clients.py printed

    def fail(self, kind: dict[str, int], what: str) -> None:
        kind[what] = kind.get(what, 0) + 1


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchmarkError(f"no VmRSS for {pid}")


# -- the floor ----------------------------------------------------------------------------


def floor_mb_per_s(path: Path, seconds: float) -> float:
    """A blocking loop: read ``path`` in chunks, write each to a local TCP socket a thread drains."""
    listener = socket.create_server(("127.0.0.1", 0))
    sink = threading.Thread(target=_drain, args=(listener,), daemon=True)
    sink.start()
    sent, started = 0, time.perf_counter()
    with socket.create_connection(listener.getsockname()) as out:
        while time.perf_counter() - started < seconds:
            with path.open("rb", buffering=0) as film:
                while chunk := film.read(FLOOR_CHUNK):
                    out.sendall(chunk)
                    sent += len(chunk)
        elapsed = time.perf_counter() - started
    sink.join(timeout=10)
    listener.close()
    return sent / MIB / elapsed


def _drain(listener: socket.socket) -> None:
    conn, _ = listener.accept()
    with conn:
        while conn.recv(FLOOR_CHUNK):
            pass


# -- setting up ------------------------------------------------------------------------------


def add_member(server: Server, data_dir: Path, database_url: str) -> None:
    common = [sys.executable, "-m", "reelhouse", "--data-dir", str(data_dir), "--database", database_url, "user"]
    for argv in ([*common, "add", MEMBER], [*common, "set", MEMBER, "--all-libraries"]):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise BenchmarkError(f"{' '.join(argv[-3:])} failed: {done.stderr.strip()}")


async def scanned_item(api: httpx.AsyncClient, root: Path) -> str:
    body = {"name": "Bench", "paths": [str(root)], "collectionType": "movies",
            "options": {"remoteAllowedHosts": [], "mediaInfoTiming": "playback"}}  # fmt: skip
    created = await api.post("/libraries", json=body)
    if created.status_code != 201:
        raise BenchmarkError(f"library creation failed: {created.status_code} {created.text}")
    library_id = created.json()["id"]
    with trio.fail_after(SCAN_TIMEOUT_S):
        while True:
            statuses = (await api.get("/scans/status")).json()
            if next(s for s in statuses if s["libraryId"] == library_id)["state"] in ("completed", "failed"):
                break
            await trio.sleep(0.2)
    page = (await api.get("/items", params={"libraryId": library_id, "recursive": "true"})).json()
    if not page["items"]:
        raise BenchmarkError("the scan found no film")
    return str(page["items"][0]["id"])


async def sign_in_devices(api_url: str, count: int) -> list[str]:
    tokens: list[str] = []
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as anonymous:
        for n in range(count):
            body = {"name": MEMBER, "deviceName": f"bench {n}", "client": "BenchPlayer", "deviceId": f"bench-{n}"}
            answer = await anonymous.post("/auth/login", json=body)
            if answer.status_code != 200:
                raise BenchmarkError(f"sign-in {n} failed: {answer.status_code} {answer.text}")
            tokens.append(answer.json()["token"])
    return tokens


async def has_session_routes(api: httpx.AsyncClient) -> bool:
    paths = (await api.get("/openapi.json")).json()["paths"]
    return "/api/v1/sessions/playing/progress" in paths and "/api/v1/admin/playback/sessions" in paths


# -- the load ------------------------------------------------------------------------------------


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def start_sessions(client: httpx.AsyncClient, setup: Setup) -> list[str]:
    """One live session per device; their ids."""
    ids: list[str] = []
    for token in setup.tokens:
        answer = await client.post("/sessions/playing", json={"itemId": setup.item_id, "positionSec": 0},
                                   headers=bearer(token))  # fmt: skip
        if answer.status_code != 200:
            raise BenchmarkError(f"POST /sessions/playing: {answer.status_code} {answer.text}")
        ids.append(answer.json()["sessionId"])
    return ids


async def report_progress(client: httpx.AsyncClient, token: str, session_id: str, args: argparse.Namespace,
                          offset: float, figures: Figures) -> None:  # fmt: skip
    await trio.sleep(offset)
    position = offset
    while True:
        started = time.perf_counter()
        try:
            answer = await client.post("/sessions/playing/progress", headers=bearer(token),
                                       json={"sessionId": session_id, "positionSec": position, "paused": False})  # fmt: skip
        except httpx.HTTPError as exc:
            figures.fail(figures.report_errors, type(exc).__name__)
        else:
            if answer.status_code in (200, 204):
                figures.reports.append(time.perf_counter() - started)
            else:
                figures.fail(figures.report_errors, str(answer.status_code))
        position += args.report_every
        await trio.sleep(args.report_every)


async def load(setup: Setup, args: argparse.Namespace, sessions: bool) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=args.sessions + args.streams + 8)
    figures = Figures()
    report: dict[str, Any] = {}
    admin = LatencySamples("/admin/playback/sessions")
    pid = setup.server.process.pid
    async with httpx.AsyncClient(base_url=setup.server.api_url, timeout=30, limits=limits) as client:
        if sessions:
            before = rss_kb(pid)
            ids = await start_sessions(client, setup)
            await trio.sleep(SETTLE_S)
            after = rss_kb(pid)
            report["memory"] = {"rss_before_kb": before, "rss_with_sessions_kb": after, "sessions": len(ids),
                                "kb_per_session": round((after - before) / len(ids), 1)}  # fmt: skip
        async with trio.open_nursery() as nursery:
            if sessions:
                for n, (token, session_id) in enumerate(zip(setup.tokens, ids, strict=True)):
                    offset = args.report_every * n / len(ids)
                    nursery.start_soon(report_progress, client, token, session_id, args, offset, figures)
                async with httpx.AsyncClient(base_url=setup.server.api_url, headers=bearer(setup.server.key)) as api:
                    nursery.start_soon(sample_latency, api, admin, ADMIN_EVERY_S)
                    await _streams_for(nursery, setup, args, figures)
            else:
                await _streams_for(nursery, setup, args, figures)
        if sessions:
            admin_list = await client.get("/admin/playback/sessions", headers=bearer(setup.server.key))
            report["live_at_end"] = len(admin_list.json())
    report["reports"] = {**summarize_ms(figures.reports), "errors": figures.report_errors} if sessions else None
    streamed = figures.streams
    report["streams"] = {"players": args.streams, "requests": streamed["requests"], "errors": streamed["errors"],
                         "mb_per_s": round(streamed["bytes"] / MIB / streamed["seconds"], 1)}  # fmt: skip
    report["admin_sessions"] = admin.summary() if sessions else None
    return report


async def _streams_for(nursery: trio.Nursery, setup: Setup, args: argparse.Namespace, figures: Figures) -> None:
    """The streaming players (benchmarks/_stream_clients.py) for ``--seconds``; then ``nursery`` is cancelled."""
    host, port = setup.server.api_url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)
    size = setup.file.stat().st_size
    spec = {"host": host, "port": int(port), "path": f"/api/v1/videos/{setup.item_id}/stream",
            "tokens": setup.tokens[: args.streams], "size": size, "span": min(args.range_mb * MIB, size),
            "seconds": args.seconds}  # fmt: skip
    spec_path = setup.file.parent.parent.parent / "streams.json"
    spec_path.write_text(json.dumps(spec))
    done = await trio.run_process([sys.executable, str(BENCHMARKS / "_stream_clients.py"), str(spec_path)],
                                  capture_stdout=True, capture_stderr=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise BenchmarkError(f"the streaming players failed: {done.stderr.decode(errors='replace')[-500:]}")
    figures.streams = json.loads(done.stdout)
    nursery.cancel_scope.cancel()


async def recorded_sessions(server: Server) -> int:
    """Sessions in the history (a record counts the sessions merged into it)."""
    total, cursor = 0, None
    async with httpx.AsyncClient(base_url=server.api_url, headers=bearer(server.key), timeout=30) as api:
        while True:
            params = {"limit": 200, **({"cursor": cursor} if cursor else {})}
            page = (await api.get("/admin/playback/history", params=params)).json()
            total += sum(record["sessions"] for record in page["records"])
            if not (cursor := page.get("nextCursor")):
                return total


# -- the run -----------------------------------------------------------------------------------


def targets(report: dict[str, Any]) -> dict[str, Any]:
    floor = report["floor_mb_per_s"]
    fraction = round(report["streams"]["mb_per_s"] / floor, 2) if floor else None
    memory, reports = report.get("memory"), report.get("reports")
    return {
        "kb_per_session": {"measured": memory and memory["kb_per_session"], "target_under": TARGETS["kb_per_session"]},
        "report_p99_ms": {"measured": reports and reports["p99_ms"], "target_under": TARGETS["report_p99_ms"]},
        "stream_fraction_of_floor": {"measured": fraction, "target_at_least": TARGETS["stream_fraction_of_floor"]},
    }


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    root = workdir / "media"
    film = root / "Bench Film (2020)" / "Bench Film (2020).mkv"
    film.parent.mkdir(parents=True)
    with film.open("wb") as out:
        for _ in range(args.file_mb):
            out.write(os.urandom(MIB))
    data_dir, database_url = workdir / "data", f"sqlite:///{workdir}/bench.db"
    with reelhouse_server(data_dir, database_url) as server:
        add_member(server, data_dir, database_url)

        async def prepare() -> tuple[Setup, bool]:
            async with httpx.AsyncClient(base_url=server.api_url, headers=bearer(server.key), timeout=30) as api:
                item_id = await scanned_item(api, root)
                sessions = await has_session_routes(api)
            tokens = await sign_in_devices(server.api_url, max(args.sessions if sessions else 0, args.streams))
            return Setup(server, item_id, tokens, film), sessions

        print("playback_load: setting up", file=sys.stderr)
        setup, sessions = trio.run(prepare)
        print("playback_load: the floor", file=sys.stderr)
        report: dict[str, Any] = {"floor_mb_per_s": round(floor_mb_per_s(film, FLOOR_SECONDS), 1)}
        print(f"playback_load: {args.seconds:.0f} s of load", file=sys.stderr)
        report |= trio.run(load, setup, args, sessions)
        if not sessions:
            report["sessions_skipped"] = "the server has no playback report routes (POST /sessions/playing)"
        report["server"] = server.figures()
    if sessions:  # the server stopped by SIGTERM: every live session is a PlayRecord now; read them back
        with reelhouse_server(workdir / "data-again", database_url) as again:
            report["recorded_at_sigterm"] = trio.run(recorded_sessions, again)
    report["targets"] = targets(report)
    report["shape"] = {"sessions": args.sessions if sessions else 0, "streams": args.streams,
                       "seconds": args.seconds, "report_every_s": args.report_every,
                       "file_mb": args.file_mb, "range_mb": args.range_mb}  # fmt: skip
    return report


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--report-every", type=float, default=10.0)
    parser.add_argument("--file-mb", type=int, default=64)
    parser.add_argument("--range-mb", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="15 s of load")
    args = parser.parse_args()
    if args.quick:
        args.seconds = 15.0
    if args.streams > args.sessions:
        parser.error("--streams must not exceed --sessions")
    return args


def main() -> int:
    sigterm_as_interrupt()
    args = parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="playback-load-"))
    try:
        report = run(args, workdir)
    except BenchmarkError as exc:
        print(f"playback_load: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
