"""Player sign-in and device-token checks, against the real server.

Three figures, in one run, on each backend (SQLite; PostgreSQL when it answers):

1. **hash cost**: one password check (argon2id with the parameters of
   ``storage/members/_accounts.py``) measured in this process, median of
   ``HASH_ROUNDS``; a sign-in pays it once.
2. **sign-in throughput**: ``--signin-clients`` HTTP clients POST
   ``/auth/login`` with the right password for ``--duration`` seconds
   against ``reelhouse serve``; sign-ins per second and latency.  Bounded by
   the hash: it runs in worker threads, at most two at a time.
3. **device token vs API key**: the same player endpoint (``GET
   /items?limit=1`` on an empty catalogue, so authentication is as large a
   share of the request as it can be) under ``--clients`` keep-alive
   clients (benchmarks/_load.py), once with the API key and once with a
   device token, alternately, ``ROUNDS`` times each; the ratio of the
   medians of requests per second (API key / device token: 1.0 = same
   cost; the issue's target is at most 1.2).

Prints one JSON document on stdout; exits 0 when everything was measured.

Usage: python benchmarks/signin_load.py [--clients N] [--signin-clients N] [--duration S]
                                        [--backends sqlite,postgresql] [--quick]
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import trio

from _api_processes import LoadShape, reelhouse_server, run_load
from _http_probe import BenchmarkError, sigterm_as_interrupt, summarize_ms
from reelhouse.storage import open_store
from reelhouse.storage.members import (
    ARGON2_MEMORY_KIB,
    ARGON2_PARALLELISM,
    ARGON2_TIME_COST,
    hash_password,
    verify_password,
)

HASH_ROUNDS = 15
ROUNDS = 3
WARMUP_S = 1.0
PG_URL = "postgresql://root@127.0.0.1:5432/test"
PASSWORD = "benchmark password"
TARGET_RATIO = 1.2
PLAYER_PATH = "/api/v1/items?limit=1"


async def hash_cost_ms() -> dict[str, float]:
    stored = await hash_password(PASSWORD)
    times = []
    for _ in range(HASH_ROUNDS):
        started = time.perf_counter()
        await verify_password(stored, PASSWORD)  # the sign-in's own call, its thread hop included
        times.append((time.perf_counter() - started) * 1000)
    return {"median_ms": round(statistics.median(times), 1), "min_ms": round(min(times), 1)}


def add_member(data_dir: Path, database_url: str, name: str) -> None:
    argv = [sys.executable, "-m", "reelhouse", "--data-dir", str(data_dir), "--database", database_url,
            "user", "add", name, "--password-stdin"]  # fmt: skip
    done = subprocess.run(argv, input=PASSWORD + "\n", capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise BenchmarkError(f"user add failed: {done.stderr.strip()}")
    # Every library: the endpoint then does the same work for both credentials, only the check differs.
    done = subprocess.run([*argv[:-3], "set", name, "--all-libraries"], capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    if done.returncode != 0:
        raise BenchmarkError(f"user set failed: {done.stderr.strip()}")


async def signin_throughput(api_url: str, name: str, clients: int, duration: float) -> dict[str, Any]:
    latencies: list[float] = []
    failures = 0
    deadline = trio.current_time() + duration

    async def client(n: int) -> None:
        nonlocal failures
        body = {"name": name, "password": PASSWORD, "deviceName": f"bench {n}", "client": "bench"}
        async with httpx.AsyncClient(base_url=api_url, timeout=30) as http:
            while trio.current_time() < deadline:
                started = time.perf_counter()
                answer = await http.post("/auth/login", json=body)
                if answer.status_code == 200:
                    latencies.append(time.perf_counter() - started)
                else:
                    failures += 1

    async with trio.open_nursery() as nursery:
        for n in range(clients):
            nursery.start_soon(client, n)
    return {"signins_per_second": round(len(latencies) / duration, 1), "failures": failures,
            **summarize_ms(latencies)}  # fmt: skip


async def device_token(api_url: str, name: str) -> str:
    body = {"name": name, "password": PASSWORD, "deviceName": "bench", "client": "bench", "deviceId": "bench"}
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as http:
        answer = await http.post("/auth/login", json=body)
    if answer.status_code != 200:
        raise BenchmarkError(f"sign-in failed: {answer.status_code} {answer.text}")
    return answer.json()["token"]


def compare(server: Any, token: str, clients: int, duration: float, workdir: Path) -> dict[str, Any]:
    shape = LoadShape(clients=clients, warmup=WARMUP_S, duration=duration)
    runs: dict[str, list[dict[str, Any]]] = {"apiKey": [], "deviceToken": []}
    for _ in range(ROUNDS):
        for kind, secret in (("apiKey", server.key), ("deviceToken", token)):
            figures = run_load(server.api_url, [(PLAYER_PATH, {})], headers={"Authorization": f"Bearer {secret}"},
                               ok_statuses=(200,), shape=shape, spec_path=workdir / "spec.json",
                               server_pid=server.process.pid)  # fmt: skip
            if figures["errors"]:
                raise BenchmarkError(f"{kind} requests failed: {figures['errors']}")
            runs[kind].append(figures)
    medians = {kind: statistics.median(r["requests_per_second"] for r in figures) for kind, figures in runs.items()}
    p50 = {kind: statistics.median(r["p50_ms"] for r in figures) for kind, figures in runs.items()}
    return {
        "requests_per_second": {k: round(v, 1) for k, v in medians.items()},
        "p50_ms": {k: round(v, 2) for k, v in p50.items()},
        "cost_ratio": round(medians["apiKey"] / medians["deviceToken"], 3),
        "target_ratio": TARGET_RATIO,
    }


def one_backend(database_url: str, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    data_dir = workdir / f"data-{secrets.token_hex(3)}"
    name = "bench" + secrets.token_hex(3)
    with reelhouse_server(data_dir, database_url) as server:
        add_member(data_dir, database_url, name)
        signins = trio.run(signin_throughput, server.api_url, name, args.signin_clients, args.duration)
        token = trio.run(device_token, server.api_url, name)
        return {"signin": signins, "player_endpoint": compare(server, token, args.clients, args.duration, workdir)}


async def drop_schema(schema: str) -> None:
    async with open_store(PG_URL) as store:
        await store.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def postgres_up() -> bool:
    import socket

    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=2).close()
    except OSError:
        return False
    return True


def main() -> int:
    sigterm_as_interrupt()
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--signin-clients", type=int, default=4)
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.duration = 1.5
    scheme = f"argon2id m={ARGON2_MEMORY_KIB} KiB t={ARGON2_TIME_COST} p={ARGON2_PARALLELISM}"
    report: dict[str, Any] = {"hash": {"scheme": scheme, **trio.run(hash_cost_ms)}}
    workdir = Path(tempfile.mkdtemp(prefix="signin-load-"))
    try:
        for backend in args.backends.split(","):
            if backend == "postgresql" and not postgres_up():
                report[backend] = {"skipped": "PostgreSQL does not answer on 127.0.0.1:5432"}
                continue
            schema = f"bench_signin_{secrets.token_hex(4)}"
            url = f"sqlite:///{workdir}/bench.db" if backend == "sqlite" else f"{PG_URL}?schema={schema}"
            print(f"signin_load: {backend}", file=sys.stderr)
            try:
                report[backend] = one_backend(url, args, workdir)
            finally:
                if backend == "postgresql":
                    trio.run(drop_schema, schema)
    except BenchmarkError as exc:
        print(f"signin_load: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
