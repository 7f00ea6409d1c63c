"""The Jellyfin-compatible surface under a large catalogue, against the real server (issue 27).

Two figures, in one run, on SQLite:

1. **home screen / native page**: the requests a Jellyfin app sends when it
   starts (``/Users/Me``, ``/UserViews``, ``/Items/Latest`` per view,
   ``/UserItems/Resume``, ``/Shows/NextUp``), sent together as an app sends
   them (and, apart, one after another) with a member's token, over ``--items`` items (half movies, half episodes), with
   a resume list and series in progress; against one native ``GET
   /api/v1/items`` first page (limit 40) with the same token.  Medians of
   ``ROUNDS`` alternating rounds; the ratio of the medians.  Target: within
   3x (Jellyfin's users report 30-50 s for "latest" alone at this size).
   Beside it, the server's CPU time per home screen against per native page
   (``cpu_ratio``), over ``CPU_ROUNDS`` of each in a block: on a machine
   shared with other work the wall-clock ratio moves with the load, the CPU
   one much less; and the CPU of each request alone (``per_request_cpu_ms``).
2. **Media/Updated to listed**: a new episode file is written into a season
   folder, ``POST /Library/Media/Updated`` names it, and the native item
   count of the library is polled every 20 ms until it is one more: the
   seconds from the POST to the first listing, median of ``UPDATES``.
   Target: 2 s.  The libraries have no realtime monitor, so only the call
   can find the file.

Prints one JSON document on stdout; exits 0 when everything was measured.

Usage: python benchmarks/jellyfin_api.py [--items N] [--quick] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from _api_processes import reelhouse_server
from _http_probe import BenchmarkError, Server, cpu_seconds, sigterm_as_interrupt
from _tree import write_library

ROUNDS = 15
CPU_ROUNDS = 100  # home screens (and three times as many native pages) per CPU figure: jiffies are 10 ms
UPDATES = 3
PASSWORD = "benchmark password"
MEMBER = "viewer"
SCAN_TIMEOUT_S = 900.0
LISTED_TIMEOUT_S = 30.0
POLL_S = 0.02
HOME_TARGET_RATIO = 3.0
LISTED_TARGET_S = 2.0
AUTH = 'MediaBrowser Client="bench", Device="bench", DeviceId="bench-device", Version="1.0"'
LIBRARY_OPTIONS = {"remoteAllowedHosts": [], "mediaInfoTiming": "playback", "realtimeMonitor": False}


def create_library(client: httpx.Client, name: str, root: Path, kind: str) -> str:
    body = {"name": name, "paths": [str(root)], "collectionType": kind, "options": LIBRARY_OPTIONS}
    answer = client.post("/libraries", json=body)
    if answer.status_code != 201:
        raise BenchmarkError(f"library creation failed: {answer.status_code} {answer.text}")
    return str(answer.json()["id"])


def wait_for_scans(client: httpx.Client, library_ids: list[str]) -> None:
    deadline = time.monotonic() + SCAN_TIMEOUT_S
    while time.monotonic() < deadline:
        states = {s["libraryId"]: s["state"] for s in client.get("/scans/status").json()}
        if all(states.get(i) in ("completed", "failed", "cancelled") for i in library_ids):
            return
        time.sleep(0.5)
    raise BenchmarkError("the scans did not finish")


def add_member(server: Server, data_dir: Path, database_url: str) -> None:
    base = [sys.executable, "-m", "reelhouse", "--data-dir", str(data_dir), "--database", database_url, "user"]
    for argv, stdin in ((["add", MEMBER, "--password-stdin"], PASSWORD + "\n"), (["set", MEMBER, "--all-libraries"], None)):
        done = subprocess.run([*base, *argv], input=stdin, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise BenchmarkError(f"user {argv[0]} failed: {done.stderr.strip()}")


def sign_in(base_url: str) -> str:
    answer = httpx.post(f"{base_url}/Users/AuthenticateByName", json={"Username": MEMBER, "Pw": PASSWORD},
                        headers={"Authorization": AUTH}, timeout=60)  # fmt: skip
    if answer.status_code != 200:
        raise BenchmarkError(f"sign-in failed: {answer.status_code} {answer.text}")
    return str(answer.json()["AccessToken"])


def watch_some(jf: httpx.Client, shows_view: str) -> None:
    """Series in progress and items to resume: a few first episodes finished, a few second ones half-way."""
    series = jf.get("/Items", params={"ParentId": shows_view, "IncludeItemTypes": "Series", "Limit": 12}).json()
    for show in series["Items"]:
        episodes = jf.get(f"/Shows/{show['Id']}/Episodes").json()["Items"]
        if len(episodes) < 2:
            continue
        jf.post(f"/UserPlayedItems/{episodes[0]['Id']}").raise_for_status()
        report = {"ItemId": episodes[1]["Id"], "PlaySessionId": f"bench-{show['Id']}", "PositionTicks": 0}
        jf.post("/Sessions/Playing", json=report).raise_for_status()
        jf.post("/Sessions/Playing/Stopped", json={**report, "PositionTicks": 10_000_000}).raise_for_status()


def home_requests(views: list[str]) -> list[tuple[str, dict[str, Any]]]:
    return [("/Users/Me", {}), ("/UserViews", {}),
                         *[("/Items/Latest", {"ParentId": v, "Limit": 16}) for v in views],
                         ("/UserItems/Resume", {"Limit": 12, "MediaTypes": "Video"}),
                         ("/Shows/NextUp", {"Limit": 24})]  # fmt: skip


def home_screen(jf: httpx.Client, views: list[str]) -> None:
    for path, params in home_requests(views):
        jf.get(path, params=params).raise_for_status()


def home_screen_at_once(jf: httpx.Client, views: list[str], pool: ThreadPoolExecutor) -> None:
    """The same requests sent together, as an app sends them (one connection each)."""
    answers = pool.map(lambda request: jf.get(request[0], params=request[1]), home_requests(views))
    for answer in answers:
        answer.raise_for_status()


def per_request_ms(jf: httpx.Client, views: list[str]) -> dict[str, float]:
    """The median of each home-screen request alone (what the ratio is made of)."""
    figures: dict[str, float] = {}
    for n, (path, params) in enumerate(home_requests(views)):
        times = [timed(functools.partial(get_ok, jf, path, params)) for _ in range(ROUNDS)]
        figures[f"{n}:{path}"] = round(statistics.median(times) * 1000, 2)
    return figures


def get_ok(client: httpx.Client, path: str, params: dict[str, Any]) -> None:
    client.get(path, params=params).raise_for_status()


def timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def server_cpu_ms(pid: int, action: Any, times: int) -> float:
    """The server's CPU milliseconds per ``action``, over ``times`` of them."""
    before = cpu_seconds(pid)
    for _ in range(times):
        action()
    return (cpu_seconds(pid) - before) * 1000 / times


def cpu_figures(jf: httpx.Client, native: httpx.Client, views: list[str], pid: int) -> dict[str, Any]:
    with ThreadPoolExecutor(max_workers=len(home_requests(views))) as pool:
        home = server_cpu_ms(pid, lambda: home_screen_at_once(jf, views, pool), CPU_ROUNDS)
    page = server_cpu_ms(pid, lambda: native.get("/items", params={"limit": 40}).raise_for_status(), CPU_ROUNDS * 3)
    return {"home_screen_cpu_ms": round(home, 2), "native_page_cpu_ms": round(page, 2), "cpu_ratio": round(home / page, 2),
            "per_request_cpu_ms": per_request_cpu_ms(jf, views, pid)}  # fmt: skip


def per_request_cpu_ms(jf: httpx.Client, views: list[str], pid: int) -> dict[str, float]:
    """The server's CPU per home-screen request, each alone (``CPU_ROUNDS * 3`` of it in a block):
    what each route costs beyond the stack's floor (benchmarks/request_cost.py)."""
    return {f"{n}:{path}": round(server_cpu_ms(pid, functools.partial(get_ok, jf, path, params), CPU_ROUNDS * 3), 2)
            for n, (path, params) in enumerate(home_requests(views))}  # fmt: skip


def home_versus_native(jf: httpx.Client, native: httpx.Client, views: list[str]) -> dict[str, Any]:
    home_screen(jf, views)  # warm both paths once
    native.get("/items", params={"limit": 40}).raise_for_status()
    at_once, one_by_one, page = [], [], []
    with ThreadPoolExecutor(max_workers=len(home_requests(views))) as pool:
        for _ in range(ROUNDS):
            at_once.append(timed(lambda: home_screen_at_once(jf, views, pool)))
            one_by_one.append(timed(lambda: home_screen(jf, views)))
            page.append(timed(lambda: native.get("/items", params={"limit": 40}).raise_for_status()))
    home_ms, page_ms = statistics.median(at_once) * 1000, statistics.median(page) * 1000
    serial_ms = statistics.median(one_by_one) * 1000
    return {"home_screen_ms": round(home_ms, 2), "native_page_ms": round(page_ms, 2),
            "ratio": round(home_ms / page_ms, 2), "target_ratio": HOME_TARGET_RATIO,
            "home_screen_one_by_one_ms": round(serial_ms, 2), "one_by_one_ratio": round(serial_ms / page_ms, 2),
            "requests_per_home_screen": 4 + len(views), "per_request_ms": per_request_ms(jf, views)}  # fmt: skip


def episode_count(native: httpx.Client, library_id: str) -> int:
    params = {"libraryId": library_id, "recursive": "true", "type": "Episode", "limit": 1, "includeTotal": "true"}
    return int(native.get("/items", params=params).json()["totalCount"])


def update_to_listed(base_url: str, key: str, native: httpx.Client, shows_root: Path, library_id: str) -> dict[str, Any]:
    season = next(p for p in sorted(shows_root.rglob("Season 01")) if p.is_dir())
    seconds = []
    for n in range(UPDATES):
        before = episode_count(native, library_id)
        new = season / f"{season.parent.name.rsplit(' (', 1)[0]} - S01E{90 + n:02d} - Fresh.mkv"
        new.write_bytes(b"\x1a\x45\xdf\xa3" + bytes(60))
        body = {"Updates": [{"Path": str(new), "UpdateType": "Created"}]}
        started = time.perf_counter()
        httpx.post(f"{base_url}/Library/Media/Updated", json=body, headers={"X-Emby-Token": key}).raise_for_status()
        while episode_count(native, library_id) <= before:
            if time.perf_counter() - started > LISTED_TIMEOUT_S:
                raise BenchmarkError("the new episode was never listed")
            time.sleep(POLL_S)
        seconds.append(time.perf_counter() - started)
    return {"median_seconds": round(statistics.median(seconds), 3), "seconds": [round(s, 3) for s in seconds],
            "target_seconds": LISTED_TARGET_S}  # fmt: skip


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    half = args.items // 2
    movies, shows = write_library(workdir / "movies", "movies", half), write_library(workdir / "shows", "tvshows", half)
    data_dir, database_url = workdir / "data", f"sqlite:///{workdir / 'reelhouse.db'}"
    with reelhouse_server(data_dir, database_url) as server:
        base_url = server.api_url.removesuffix("/api/v1")
        with httpx.Client(base_url=server.api_url, headers={"Authorization": f"Bearer {server.key}"}, timeout=60) as admin:
            movies_id = create_library(admin, "Movies", workdir / "movies", "movies")
            shows_id = create_library(admin, "Shows", workdir / "shows", "tvshows")
            scan_started = time.perf_counter()
            wait_for_scans(admin, [movies_id, shows_id])
            scan_seconds = time.perf_counter() - scan_started
        add_member(server, data_dir, database_url)
        token = sign_in(base_url)
        headers = {"Authorization": f'{AUTH}, Token="{token}"'}
        with httpx.Client(base_url=base_url, headers=headers, timeout=60) as jf, \
                httpx.Client(base_url=server.api_url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as native:  # fmt: skip
            views = [v["Id"] for v in jf.get("/UserViews").json()["Items"]]
            shows_view = next(v["Id"] for v in jf.get("/UserViews").json()["Items"] if v.get("CollectionType") == "tvshows")
            watch_some(jf, shows_view)
            home = home_versus_native(jf, native, views) | cpu_figures(jf, native, views, server.process.pid)
            with httpx.Client(base_url=server.api_url, headers={"Authorization": f"Bearer {server.key}"}, timeout=60) as admin:
                listed = update_to_listed(base_url, server.key, admin, workdir / "shows", shows_id)
        return {"items": {"movies": movies.videos, "episodes": shows.videos}, "scan_seconds": round(scan_seconds, 1),
                "home_screen": home, "media_updated_to_listed": listed, "server": server.figures()}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="2,000 items")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.items = min(args.items, 2_000)
    workdir = Path(tempfile.mkdtemp(prefix="jellyfin-bench-", dir=args.workdir))
    sigterm_as_interrupt()
    try:
        figures = run(args, workdir)
    except BenchmarkError as error:
        print(f"jellyfin_api: {error}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"jellyfin_api: kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
