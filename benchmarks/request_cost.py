"""The server's CPU time for one cheap request, per route: what the HTTP stack costs every request.

A real ``reelhouse serve`` on SQLite with a small library (``--items``,
half movies, half episodes) and a member signed in through the Jellyfin
surface.  One client on one keep-alive connection (raw socket, requests
written out once: the client's own cost stays out of the server's way)
sends ``--requests`` of each route, in ``--rounds`` alternating rounds:

- ``ping``: ``GET /System/Ping`` (Jellyfin surface, no credentials, no work);
- ``health``: ``GET /health`` (no credentials, no work);
- ``native_page``: ``GET /api/v1/items?limit=40`` with the member's token;
- ``jellyfin_page``: ``GET /Items?ParentId=<movies view>&Limit=40`` with the member's token.

``--against SRC`` serves a second build beside this one (``PYTHONPATH=SRC``:
another checkout's ``src``), set up alike, and interleaves the two
route by route, so that both see the same moments of a shared machine's
load: an A/B pair in one run.

Figures: the server process's CPU (every thread, from /proc's schedstat)
per request in milliseconds, the median and the least of the rounds.  On a
shared machine the CPU figure moves much less than the rates do; compare
two builds in the same window, alternating.

``--profile DIR``: after the figures, py-spy (``PY_SPY``, or ``py-spy`` on
PATH) records ``--seconds`` of each route at ``--rate`` samples a second
(idle frames left out) into ``DIR/<route>.txt`` (collapsed stacks).

Prints one JSON document on stdout.

Usage: python benchmarks/request_cost.py [--items N] [--requests N] [--rounds N] [--profile DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from _api_processes import reelhouse_server
from _http_probe import BenchmarkError, sigterm_as_interrupt
from _tree import write_library
from jellyfin_api import AUTH, add_member, create_library, sign_in, wait_for_scans

WARMUP = 200
ROUTES = ("ping", "health", "native_page", "jellyfin_page")


def cpu_seconds(pid: int) -> float:
    """CPU seconds the process's threads have run so far, to the nanosecond (schedstat: /proc's
    user and system times count 10 ms ticks, a thousand cheap requests' worth)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended meanwhile (its time is lost: a worker thread, rarely)
    return total / 1e9


class KeepAliveClient:
    """One HTTP/1.1 connection; each request's bytes are built once, each answer read by its length."""

    def __init__(self, host: str, port: int) -> None:
        self._address = (host, port)
        self._sock = self._connect()
        self._buffer = b""

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self._address)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def ask(self, request: bytes) -> int:
        self._sock.sendall(request)
        try:
            self._fill()
        except BenchmarkError:  # closed while idle (the keep-alive timeout): once more on a new connection
            self._sock.close()
            self._sock, self._buffer = self._connect(), b""
            self._sock.sendall(request)
            self._fill()
        while b"\r\n\r\n" not in self._buffer:
            self._fill()
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        status = int(head.split(b" ", 2)[1])
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")[1:]
                       if line.lower().startswith(b"content-length:")), None)  # fmt: skip
        if length is None:
            raise BenchmarkError(f"an answer without Content-Length: {head[:200]!r}")
        while len(self._buffer) < length:
            self._fill()
        self._buffer = self._buffer[length:]
        if b"\r\nconnection: close" in head.lower():  # Hypercorn's keep_alive_max_requests (1000)
            self._sock.close()
            self._sock, self._buffer = self._connect(), b""
        return status

    def _fill(self) -> None:
        data = self._sock.recv(1 << 16)
        if not data:
            raise BenchmarkError("the server closed the connection")
        self._buffer += data

    def close(self) -> None:
        self._sock.close()


def request_bytes(host: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "User-Agent: request-cost", "Accept: */*",
             *(f"{name}: {value}" for name, value in headers.items())]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def ask_many(client: KeepAliveClient, request: bytes, count: int) -> None:
    for _ in range(count):
        status = client.ask(request)
        if status != 200:
            raise BenchmarkError(f"status {status} for {request.splitlines()[0]!r}")


def measure(targets: dict[str, Target], requests: int, rounds: int) -> dict[str, Any]:
    """Each route on each target in turn, ``rounds`` times: the targets share every moment's load."""
    cpu = {(t, r): [] for t in targets for r in ROUTES}  # type: dict[tuple[str, str], list[float]]
    rate = {(t, r): [] for t in targets for r in ROUTES}  # type: dict[tuple[str, str], list[float]]
    for target in targets.values():
        for request in target.routes.values():
            ask_many(target.client, request, WARMUP)
    for _ in range(rounds):
        for route in ROUTES:
            for name, target in targets.items():
                pid, request = target.pid, target.routes[route]
                before, started = cpu_seconds(pid), time.perf_counter()
                ask_many(target.client, request, requests)
                wall = time.perf_counter() - started
                cpu[name, route].append((cpu_seconds(pid) - before) * 1000 / requests)
                rate[name, route].append(requests / wall)
    return {name: {route: {"cpu_ms_per_request": round(statistics.median(cpu[name, route]), 3),
                           "cpu_ms_least": round(min(cpu[name, route]), 3),
                           "cpu_ms_rounds": [round(c, 3) for c in cpu[name, route]],
                           "requests_per_second": round(statistics.median(rate[name, route]))}
                   for route in ROUTES} for name in targets}  # fmt: skip


def profile(pid: int, client: KeepAliveClient, routes: dict[str, bytes], out: Path, seconds: float, rate: int) -> None:
    spy = os.environ.get("PY_SPY") or shutil.which("py-spy") or "py-spy"
    out.mkdir(parents=True, exist_ok=True)
    for name, request in routes.items():
        stop = threading.Event()

        def load(request: bytes = request, stop: threading.Event = stop) -> None:
            while not stop.is_set():
                ask_many(client, request, 50)

        loader = threading.Thread(target=load)
        loader.start()
        try:
            subprocess.run([spy, "record", "--pid", str(pid), "--rate", str(rate), "--duration", str(int(seconds)),
                            "--format", "raw", "--nonblocking", "--output", str(out / f"{name}.txt")],
                           check=True, capture_output=True)  # fmt: skip
        finally:
            stop.set()
            loader.join()


@dataclass
class Target:
    """A server under test: its process, one keep-alive client and the routes' request bytes."""

    pid: int
    client: KeepAliveClient
    routes: dict[str, bytes]


@contextmanager
def served(workdir: Path, items: int, source: str | None) -> Iterator[Target]:
    """A server with a small library and a signed-in member; ``source``: the reelhouse to run (PYTHONPATH)."""
    half = items // 2
    write_library(workdir / "movies", "movies", half)
    write_library(workdir / "shows", "tvshows", half)
    data_dir, database_url = workdir / "data", f"sqlite:///{workdir / 'reelhouse.db'}"
    with reelhouse_server(data_dir, database_url, {"PYTHONPATH": source} if source else None) as server:
        base_url = server.api_url.removesuffix("/api/v1")
        with httpx.Client(base_url=server.api_url, headers={"Authorization": f"Bearer {server.key}"}, timeout=60) as admin:
            ids = [create_library(admin, "Movies", workdir / "movies", "movies"),
                   create_library(admin, "Shows", workdir / "shows", "tvshows")]  # fmt: skip
            wait_for_scans(admin, ids)
        add_member(server, data_dir, database_url)
        token = sign_in(base_url)
        jf_headers = {"Authorization": f'{AUTH}, Token="{token}"'}
        views = httpx.get(f"{base_url}/UserViews", headers=jf_headers, timeout=60).json()["Items"]
        movies_view = next(v["Id"] for v in views if v.get("CollectionType") == "movies")
        host, port = base_url.split("://", 1)[1].rsplit(":", 1)
        authority = f"{host}:{port}"
        routes = {
            "ping": request_bytes(authority, "/System/Ping", {}),
            "health": request_bytes(authority, "/health", {}),
            "native_page": request_bytes(authority, "/api/v1/items?limit=40", {"Authorization": f"Bearer {token}"}),
            "jellyfin_page": request_bytes(authority, f"/Items?ParentId={movies_view}&Limit=40", jf_headers),
        }
        client = KeepAliveClient(host, int(port))
        try:
            yield Target(server.process.pid, client, routes)
        finally:
            client.close()


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    sources = {"this": None} if args.against is None else {"this": None, "against": args.against}
    with ExitStack() as stack:
        targets = {name: stack.enter_context(served(workdir / name, args.items, source))
                   for name, source in sources.items()}  # fmt: skip
        figures = measure(targets, args.requests, args.rounds)
        if args.profile is not None:
            for name, target in targets.items():
                profile(target.pid, target.client, target.routes, args.profile / name, args.seconds, args.rate)
    return {"items": args.items, "requests_per_round": args.requests, "rounds": args.rounds,
            "load_average": os.getloadavg()[0], "against": args.against, "servers": figures}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--requests", type=int, default=1000, help="requests per route per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=Path, default=None, help="py-spy each route into this folder")
    parser.add_argument("--seconds", type=float, default=10.0, help="py-spy seconds per route")
    parser.add_argument("--rate", type=int, default=1000, help="py-spy samples per second")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--against", default=None, metavar="SRC",
                        help="also serve the reelhouse package under SRC (another checkout's src), interleaved")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="request-cost-", dir=args.workdir))
    sigterm_as_interrupt()
    try:
        figures = run(args, workdir)
    except BenchmarkError as error:
        print(f"request_cost: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
