"""Live playback sessions under load, against the real server (issue 14's benchmark, sessions part).

One run on SQLite: ``--sessions`` sessions (default 200) are started by one
signed-in player, each then reports progress every ``REPORT_EVERY_S``
seconds for ``--duration`` seconds (staggered, so the reports spread over
the interval), while ``GET /admin/playback/sessions`` is sampled every
``LIST_EVERY_S`` seconds.  Figures:

- ``kb_per_session``: the server's RSS growth from before the sessions
  started to after they all run, divided by their number (target: under 50);
- ``progress``: p50/p99/max latency of the progress reports (target p99
  under 20 ms);
- ``admin_list``: the same for the session list while it all runs;
- every session still live at the end, and ended into history by SIGTERM
  (``recorded_at_sigterm`` counts sessions: one member, item and device,
  so the history merges them into one PlayRecord).

Stream throughput (20 sessions streaming with range requests against a
blocking-loop floor) is the stream route's part of the issue and is not
measured here.

Prints one JSON document on stdout; exits 0 when everything was measured.

Usage: python benchmarks/playback_load.py [--sessions N] [--duration S] [--quick]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import trio
from _api_processes import reelhouse_server
from _http_probe import BenchmarkError, LatencySamples, sample_latency, sigterm_as_interrupt, summarize_ms

from reelhouse.storage import Statement, open_store
from reelhouse.storage.members import MemberChanges, update_member
from reelhouse.storage.users import add_user

PASSWORD = "benchmark password"
REPORT_EVERY_S = 10.0
LIST_EVERY_S = 0.5
SETTLE_S = 2.0
TICKS = 10_000_000
MOVIE_SECONDS = 7200
TARGET_KB_PER_SESSION = 50
TARGET_PROGRESS_P99_MS = 20


async def add_catalogue(database_url: str, root: Path) -> str:
    """A member who sees every library, and one library with one movie of known duration and
    bitrate, written straight into the store; the movie's id."""
    now = int(time.time() * 1000)
    root.mkdir(parents=True, exist_ok=True)
    async with open_store(database_url) as store:
        await store.transaction([
            Statement("INSERT INTO libraries (id, name, collection_type, options, created_at, updated_at)"
             " VALUES ('benchlib', 'Films', 'movies', '{\"scansSuspended\": true}', ?, ?)", (now, now)),
            Statement("INSERT INTO library_paths (library_id, path, position) VALUES ('benchlib', ?, 0)",
                      (str(root),)),
            Statement("INSERT INTO items (id, library_id, type, name, sort_name, name_key, path, runtime_ticks,"
             " date_created, date_modified) VALUES ('benchmovie', 'benchlib', 'Movie', 'Arrival', 'Arrival',"
             " 'arrival', '/nowhere/Arrival.mkv', ?, ?, ?)", (MOVIE_SECONDS * TICKS, now, now)),
            Statement("INSERT INTO media_sources (id, item_id, path, container, size, bitrate, runtime_ticks)"
             " VALUES ('benchsrc', 'benchmovie', '/nowhere/Arrival.mkv', 'mkv', 1, 8000000, ?)",
             (MOVIE_SECONDS * TICKS,)),
        ])  # fmt: skip
        await add_user(store, "bench", is_admin=False, password=PASSWORD)
        await update_member(store, "bench", MemberChanges(all_libraries=True))
    return "benchmovie"


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchmarkError("no VmRSS")


async def report_progress(player: httpx.AsyncClient, session_id: str, offset: float, until: float,
                          durations: list[float], errors: list[int]) -> None:  # fmt: skip
    await trio.sleep(offset)
    position = 0.0
    while time.perf_counter() < until:
        position += REPORT_EVERY_S
        started = time.perf_counter()
        response = await player.post("/sessions/playing/progress", json={"sessionId": session_id, "positionSec": position})
        if response.status_code == 204:
            durations.append(time.perf_counter() - started)
        else:
            errors.append(response.status_code)
        await trio.sleep(max(0.0, REPORT_EVERY_S - (time.perf_counter() - started)))


async def measure(server_pid: int, api_url: str, key: str, item_id: str, sessions: int,
                  duration: float) -> dict[str, Any]:  # fmt: skip
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=api_url, timeout=30.0, limits=limits) as anonymous:
        login = await anonymous.post("/auth/login", json={"name": "bench", "password": PASSWORD,
                                                          "deviceName": "Bench", "client": "BenchPlayer"})  # fmt: skip
        if login.status_code != 200:
            raise BenchmarkError(f"sign-in failed: {login.status_code} {login.text}")
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    admin_headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=api_url, timeout=30.0, limits=limits, headers=headers) as player, \
            httpx.AsyncClient(base_url=api_url, timeout=30.0, headers=admin_headers) as admin:  # fmt: skip
        await trio.sleep(SETTLE_S)
        before_kb = rss_kb(server_pid)
        ids = []
        for _ in range(sessions):
            started = await player.post("/sessions/playing", json={"itemId": item_id})
            if started.status_code != 200:
                raise BenchmarkError(f"playing failed: {started.status_code} {started.text}")
            ids.append(started.json()["sessionId"])
        await trio.sleep(SETTLE_S)
        after_kb = rss_kb(server_pid)
        durations: list[float] = []
        errors: list[int] = []
        listing = LatencySamples("/admin/playback/sessions")
        until = time.perf_counter() + duration
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sample_latency, admin, listing, LIST_EVERY_S)
            async with trio.open_nursery() as reporters:
                for n, session_id in enumerate(ids):
                    reporters.start_soon(report_progress, player, session_id, n * REPORT_EVERY_S / sessions, until,
                                         durations, errors)  # fmt: skip
            nursery.cancel_scope.cancel()
        live = len((await admin.get("/admin/playback/sessions")).json())
    return {
        "sessions": sessions,
        "live_at_end": live,
        "kb_per_session": round((after_kb - before_kb) / sessions, 1),
        "progress": {**summarize_ms(durations), "errors": len(errors)},
        "admin_list": listing.summary(),
    }


async def history_count(api_url: str, key: str) -> int:
    async with httpx.AsyncClient(base_url=api_url, timeout=30.0, headers={"Authorization": f"Bearer {key}"}) as c:
        total, cursor = 0, None
        while True:
            page = (await c.get("/admin/playback/history", params={"limit": 200, **({"cursor": cursor} if cursor else {})})).json()
            total += sum(record["sessions"] for record in page["records"])  # one player, one item: merged
            if not (cursor := page.get("nextCursor")):
                return total


def run(sessions: int, duration: float) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="reelhouse-playback-bench-"))
    try:
        data_dir = work / "data"
        database_url = f"sqlite:///{work / 'reelhouse.db'}"
        with reelhouse_server(data_dir, database_url) as server:
            item_id = trio.run(add_catalogue, database_url, work / "films")
            figures = trio.run(measure, server.process.pid, server.api_url, server.key, item_id, sessions, duration)
        # The server stopped by SIGTERM: every live session is a record now. Read them back.
        with reelhouse_server(work / "data-again", database_url) as again:
            figures["recorded_at_sigterm"] = trio.run(history_count, again.api_url, again.key)
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="20 s instead of the duration")
    args = parser.parse_args()
    sigterm_as_interrupt()
    figures = run(args.sessions, 20.0 if args.quick else args.duration)
    figures["targets"] = {
        "kb_per_session_under": TARGET_KB_PER_SESSION, "kb_per_session_met": figures["kb_per_session"] < TARGET_KB_PER_SESSION,
        "progress_p99_ms_under": TARGET_PROGRESS_P99_MS,
        "progress_p99_met": (figures["progress"]["p99_ms"] or 0) < TARGET_PROGRESS_P99_MS,
    }  # fmt: skip
    print(json.dumps(figures, indent=2))
    return 0 if figures["progress"]["count"] and figures["live_at_end"] == args.sessions else 1


if __name__ == "__main__":
    sys.exit(main())
