"""Memory under a long mixed load (issue 35): the server's memory must not grow with time.

One ``reelhouse serve`` (``--backend sqlite`` or ``postgresql``) with a
movies library of ``--files`` films (``_tree.py``: NFO, poster, dummy
video) plus one film of ``--file-mb`` MiB of random bytes, and for
``--minutes`` (default 10), all at once:

- full scans of the library back to back (``POST /libraries/{id}/scan``
  with ``mode: full``, polled until it ends);
- ``--streamers`` players (signed-in devices of a member) streaming the big
  film in ``--range-mb`` MiB ranges (``_stream_clients.py``, its own
  process);
- ``--readers`` keep-alive clients with the API key reading item pages,
  item detail, search and posters (scaled to several widths) in turn
  (``_load.py``, its own process);
- ``--guessers`` clients posting wrong passwords for another member
  (``/auth/login``: 401 until the sign-in limit, then 429).

Every ``--interval`` seconds (default 10) it reads from /proc the resident
memory summed over the server and its lasting descendants (the probe
worker), apart from children under a minute old (a scan's parser process,
seconds long), and their open descriptors, and prints a progress line.
Figures (JSON on stdout): the samples, ``start_mb`` (a minute into the
load), ``at_10_min_mb`` and ``end_mb``, ``slope_mb_per_10_min`` (Theil-Sen
over the second half), answers by status of every client kind, scans
completed.

Targets (``targets``, each ``met``): slope under 1 % of the starting memory
per 10 minutes; no 5xx anywhere; every scan completed. Runs of 20 minutes
or more also check the issue's "done" figure: the memory at the end within
10 % of its level after the first 10 minutes. Exit code 1 when a target is
missed or the load could not run.

``REELHOUSE_TRACEMALLOC_SECONDS`` set in the benchmark's environment is passed to
the server (see ``reelhouse.process.memory_trace``); its log is kept with
``--keep``.

Usage: python benchmarks/soak.py [--minutes M] [--backend sqlite|postgresql] [--files N]
                                 [--readers N] [--streamers N] [--guessers N] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import trio

from _api_processes import BENCHMARKS, LoadShape, reelhouse_server, run_load
from _http_probe import BenchmarkError, Server, sigterm_as_interrupt
from _soak_figures import Sampler, targets
from _tree import write_library

MIB = 1024 * 1024
PG_URL = "postgresql://root@127.0.0.1:5432/test"
SCAN_TIMEOUT_S = 600.0
MEMBER, VICTIM, PASSWORD = "soak", "victim", "soak password"
WIDTHS = (80, 120, 160, 200, 240, 300)


def progress(message: str, _started: float = time.monotonic()) -> None:
    print(f"soak [{time.monotonic() - _started:7.1f} s] {message}", file=sys.stderr, flush=True)


# -- setting up ------------------------------------------------------------------------------


def make_tree(root: Path, files: int, file_mb: int) -> None:
    write_library(root, "movies", files)
    big = root / "Soak Stream (2001)"
    big.mkdir()
    with (big / "Soak Stream (2001).mkv").open("wb") as film:
        for _ in range(file_mb):
            film.write(os.urandom(MIB))


def cli(data_dir: Path, database_url: str, *args: str, stdin: str | None = None) -> None:
    argv = [sys.executable, "-m", "reelhouse", "--data-dir", str(data_dir), "--database", database_url, *args]
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise BenchmarkError(f"reelhouse {' '.join(args)} failed: {done.stderr.strip()}")


def add_members(data_dir: Path, database_url: str) -> None:
    for name in (MEMBER, VICTIM):
        cli(data_dir, database_url, "user", "add", name, "--password-stdin", stdin=PASSWORD + "\n")
        cli(data_dir, database_url, "user", "set", name, "--all-libraries")


async def create_library(api: httpx.AsyncClient, root: Path) -> str:
    body = {"name": "Soak", "paths": [str(root)], "collectionType": "movies", "realtimeMonitor": False,
            "options": {"remoteAllowedHosts": [], "mediaInfoTiming": "playback", "scansSuspended": True}}  # fmt: skip
    created = await api.post("/libraries", json=body)
    if created.status_code != 201:
        raise BenchmarkError(f"library creation failed: {created.status_code} {created.text}")
    return str(created.json()["id"])


async def full_scan(api: httpx.AsyncClient, library_id: str) -> str:
    """One full scan to its end; its final state ('refused: ...' when the POST failed)."""
    answer = await api.post(f"/libraries/{library_id}/scan", json={"mode": "full"})
    if answer.status_code != 200:
        return f"refused: {answer.status_code}"
    with trio.fail_after(SCAN_TIMEOUT_S):
        while True:
            await trio.sleep(0.25)
            statuses = (await api.get("/scans/status")).json()
            state = next(s for s in statuses if s["libraryId"] == library_id)["state"]
            if state not in ("running", "cancelling"):
                return str(state)


async def read_requests(api: httpx.AsyncClient, library_id: str) -> tuple[list[tuple[str, dict[str, str]]], str]:
    """The readers' requests (pages, detail, search, posters) and the big film's id."""
    page = (await api.get("/items", params={"libraryId": library_id, "recursive": "true", "limit": 200})).json()
    items = page["items"]
    found = (await api.get("/items", params={"libraryId": library_id, "nameStartsWith": "Soak Stream"})).json()
    if not found["items"]:
        raise BenchmarkError("the scan did not find the streamed film")
    big = found["items"][0]
    requests: list[tuple[str, dict[str, str]]] = []
    for n, item in enumerate(items[:100]):
        requests.append((f"/api/v1/items/{item['id']}", {}))
        requests.append((f"/api/v1/items?libraryId={library_id}&recursive=true&limit=40&offset={n * 7}", {}))
        word = item["name"].split()[0]
        requests.append((f"/api/v1/search?q={word[: 2 + n % 4]}&limit=20", {}))
        if tag := (item.get("imageTags") or {}).get("Primary"):
            width = WIDTHS[n % len(WIDTHS)]
            requests.append((f"/api/v1/images/items/{item['id']}?tag={tag}&maxWidth={width}", {}))
    return requests, str(big["id"])


async def sign_in(api_url: str, count: int) -> list[str]:
    tokens = []
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as anonymous:
        for n in range(count):
            body = {"name": MEMBER, "password": PASSWORD, "deviceName": f"soak {n}", "client": "Soak",
                    "deviceId": f"soak-{n}"}  # fmt: skip
            answer = await anonymous.post("/auth/login", json=body)
            if answer.status_code != 200:
                raise BenchmarkError(f"sign-in {n} failed: {answer.status_code} {answer.text}")
            tokens.append(answer.json()["token"])
    return tokens


# -- the load --------------------------------------------------------------------------------


async def scan_loop(api: httpx.AsyncClient, library_id: str, until: float, tally: dict[str, int]) -> None:
    while trio.current_time() < until:
        state = await full_scan(api, library_id)
        tally[state] = tally.get(state, 0) + 1


async def guess_loop(api_url: str, n: int, until: float, tally: dict[str, int]) -> None:
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as anonymous:
        while trio.current_time() < until:
            body = {"name": VICTIM, "password": secrets.token_hex(6), "deviceName": f"guess {n}", "client": "Guess"}
            try:
                status = str((await anonymous.post("/auth/login", json=body)).status_code)
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            tally[status] = tally.get(status, 0) + 1
            await trio.sleep(0.05)


async def in_process(argv: list[str], out: dict[str, Any], key: str) -> None:
    done = await trio.run_process(argv, capture_stdout=True, capture_stderr=True, check=False)
    if done.returncode != 0:
        raise BenchmarkError(f"{argv[1]} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    out[key] = json.loads(done.stdout)


async def soak(server: Server, args: argparse.Namespace, root: Path, work: Path) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {server.key}"}
    async with httpx.AsyncClient(base_url=server.api_url, headers=headers, timeout=60) as api:
        library_id = await create_library(api, root)
        first = await full_scan(api, library_id)
        if first != "completed":
            raise BenchmarkError(f"the first scan ended {first}")
        requests, film_id = await read_requests(api, library_id)
        tokens = await sign_in(server.api_url, args.streamers)
        seconds = args.minutes * 60
        host, port = server.api_url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)
        stream_spec = work / "streams.json"
        stream_spec.write_text(json.dumps({"host": host, "port": int(port), "tokens": tokens,
                                           "path": f"/api/v1/videos/{film_id}/stream",
                                           "size": args.file_mb * MIB, "span": args.range_mb * MIB,
                                           "seconds": seconds}))  # fmt: skip
        out: dict[str, Any] = {}
        scans: dict[str, int] = {}
        guesses: dict[str, int] = {}
        sampler = Sampler(server.process.pid, args.interval, progress)
        progress(f"load for {args.minutes} min: {len(requests)} read requests, {args.streamers} players")
        until = trio.current_time() + seconds
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sampler.run, until)
            nursery.start_soon(scan_loop, api, library_id, until, scans)
            for n in range(args.guessers):
                nursery.start_soon(guess_loop, server.api_url, n, until, guesses)
            if args.streamers:
                argv = [sys.executable, str(BENCHMARKS / "_stream_clients.py"), str(stream_spec)]
                nursery.start_soon(in_process, argv, out, "streams")
            if args.readers:
                shape = LoadShape(clients=args.readers, warmup=0.0, duration=seconds)
                nursery.start_soon(_readers, server, requests, headers, shape, work, out)
        return {"scans": scans, "guesses": guesses, "samples": sampler.samples, **out}


async def _readers(server: Server, requests: list[tuple[str, dict[str, str]]], headers: dict[str, str],
                   shape: LoadShape, work: Path, out: dict[str, Any]) -> None:  # fmt: skip
    base = server.api_url.rsplit("/api/v1", 1)[0]
    out["readers"] = await trio.to_thread.run_sync(lambda: run_load(
        base, requests, headers=headers, ok_statuses=(200,), shape=shape, spec_path=work / "load.json",
        server_pid=server.process.pid))  # fmt: skip


# -- running ---------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the load (default 10)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--files", type=int, default=1000, help="films in the library (default 1,000)")
    parser.add_argument("--readers", type=int, default=4, help="API-key clients reading (default 4)")
    parser.add_argument("--streamers", type=int, default=4, help="players streaming ranges (default 4)")
    parser.add_argument("--guessers", type=int, default=1, help="clients guessing a password (default 1)")
    parser.add_argument("--file-mb", type=int, default=64, help="size of the streamed film (default 64 MiB)")
    parser.add_argument("--range-mb", type=int, default=8, help="bytes per range request (default 8 MiB)")
    parser.add_argument("--interval", type=float, default=10.0, help="seconds between samples (default 10)")
    parser.add_argument("--workdir", type=Path, default=None, help="where the tree, data and logs go")
    parser.add_argument("--keep", action="store_true", help="keep the data and logs (and the schema)")
    args = parser.parse_args()
    if args.minutes <= 0 or args.files < 10 or args.range_mb > args.file_mb or args.interval <= 0:
        parser.error("--minutes and --interval positive, --files at least 10, --range-mb at most --file-mb")
    return args


def database_url(backend: str, data_dir: Path) -> tuple[str, str | None]:
    if backend == "sqlite":
        return f"sqlite:///{data_dir / 'reelhouse.db'}", None
    schema = f"bench_soak_{os.getpid()}_{secrets.token_hex(3)}"
    return f"{PG_URL}?schema={schema}", schema


def run(args: argparse.Namespace, base: Path) -> dict[str, Any]:
    root, data_dir, work = base / "library", base / "data", base / "work"
    work.mkdir(parents=True)
    progress(f"writing {args.files} films and one of {args.file_mb} MiB")
    make_tree(root, args.files, args.file_mb)
    url, schema = database_url(args.backend, data_dir)
    extra = {k: v for k, v in os.environ.items() if k == "REELHOUSE_TRACEMALLOC_SECONDS"}
    try:
        with reelhouse_server(data_dir, url, extra_env=extra) as server:
            add_members(data_dir, url)
            figures = trio.run(soak, server, args, root, work)
            figures["server"] = server.figures()
            figures["log_errors"] = _log_errors(server.log_path)
    finally:
        if schema and not args.keep:
            _drop_schema(schema)
    return figures


def _log_errors(log_path: Path) -> list[str]:
    lines = log_path.read_text(errors="replace").splitlines()
    return [line[:300] for line in lines if " ERROR " in line or "Traceback" in line][:20]


def _drop_schema(schema: str) -> None:
    from reelhouse.storage import open_store

    async def drop() -> None:
        async with open_store(PG_URL) as store:
            await store.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    trio.run(drop)


def main() -> int:
    sigterm_as_interrupt()
    args = parse_args()
    base = Path(tempfile.mkdtemp(prefix="reelhouse-soak-", dir=args.workdir))
    try:
        figures = run(args, base)
    except BenchmarkError as exc:
        print(f"soak: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"soak: kept {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)
    config = {k: v for k, v in vars(args).items() if k not in ("workdir",)}
    met = targets(figures, args.minutes)  # adds the memory figures to ``figures``
    samples = figures.pop("samples")
    report = {"config": config, **figures, "targets": met, "samples": samples}
    print(json.dumps(report, indent=1, default=str))
    missed = [t["name"] for t in report["targets"] if t["met"] is False]
    progress("targets met" if not missed else f"targets missed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
