"""Scheduler load: many rules over a simulated month, and reads while maintenance runs.

1. Autojump clock: ``--tasks`` plugin-style tasks (mixed cron, interval,
   idle, manual and continuous rules) registered with the real Scheduler
   on a real SQLite store and run by a fake plugin host that answers at
   once, over ``--days`` simulated days. Reports the scheduler process's
   CPU per simulated day, the runs started, and the largest lateness
   between a cron/interval due time and its start (target: 0).
2. Real clock: a ``--items`` catalogue (benchmarks/_catalog_rows.py) served
   by ``reelhouse serve``; ``GET /items`` latency sampled back to back with
   nothing running, then while ``database_maintenance`` and ``backup`` run
   (started through ``POST /admin/schedules/{task}/run``). Reports both p99
   and their ratio (target: under 1.5).

Prints one JSON document on stdout; asserts nothing about timings.

Usage: python benchmarks/scheduler_load.py [--tasks N] [--days N] [--items N] [--quick]
                                          [--skip-http] [--skip-autojump]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import trio
from trio.testing import MockClock

from reelhouse.actors.jobs import JobRegistry
from reelhouse.actors.schedule import (
    GetDrift,
    PlaybackActivity,
    RunEnd,
    RunPluginTask,
    ScanActivity,
    Scheduler,
    SchedulerServices,
    SyncPluginTasks,
    TaskDefinition,
    trio_wall_clock,
)
from reelhouse.media.schedule import Rule, Window
from reelhouse.runtime import Actor, spawn
from reelhouse.server_time_zone import server_time_zone
from reelhouse.storage import migrate, open_store

DEFAULT_TASKS, DEFAULT_DAYS, DEFAULT_ITEMS = 1000, 30, 100_000
QUICK_TASKS, QUICK_DAYS, QUICK_ITEMS = 200, 7, 10_000
IDLE_SAMPLE_S = 10.0
RUN_TIMEOUT_S = 600.0
JOBS_POLL_S = 0.2
# Simulated time jumps once the process has been idle this long in real
# time: the store's threads finish their writes first, as on a real clock.
AUTOJUMP_AFTER_S = 0.0005
START = datetime(2026, 3, 1, tzinfo=UTC)  # a month with a DST change in Europe/Berlin
CRONS = ("{m} */6 * * *", "{m} {h} * * *", "{m} {h} * * *", "{m} {h} * * 1-5", "{m} {h} * * 0", "@daily",
         "{m} {h} 1 * *", "{m} {h} 1,15 * *")


class Host(Actor):
    """A plugin host whose tasks finish at once."""

    def __init__(self) -> None:
        self.runs = 0

    async def handle(self, msg: object) -> object:
        if isinstance(msg, RunPluginTask):
            self.runs += 1
            return RunEnd("skipped")  # nothing to do: a continuous task then rests 15 minutes
        return None


def _rule(rng: random.Random) -> Rule:
    pick = rng.random()
    if pick < 0.45:
        expression = rng.choice(CRONS).format(m=rng.randrange(60), h=rng.randrange(24))
        window = Window(60, 360) if rng.random() < 0.1 else None
        return Rule("cron", cron=expression, window=window)
    if pick < 0.85:
        return Rule("interval", every_seconds=rng.choice((6 * 3600, 12 * 3600, 86400, 86400, 7 * 86400)))
    if pick < 0.93:
        return Rule("idle")
    if pick < 0.99:
        return Rule("manual")
    return Rule("continuous")


async def _simulate(tasks: int, days: int, workdir: Path) -> dict[str, Any]:
    rng = random.Random(15)
    async with open_store(f"sqlite:///{workdir / 'sim.db'}") as store:
        await migrate(store)
        async with trio.open_nursery() as nursery:
            jobs = await spawn(nursery, JobRegistry(), "jobs")
            host_actor = Host()
            host = await spawn(nursery, host_actor, "plugins")
            services = SchedulerServices(store=store, jobs=jobs, time_zone=server_time_zone("Europe/Berlin"))
            scheduler = await spawn(nursery, Scheduler(services, {}, trio_wall_clock(START)), "scheduler",
                                    mailbox_size=256)
            definitions = []
            for index in range(tasks):
                rules = tuple(_rule(rng) for _ in range(rng.choice((1, 1, 1, 2))))
                definitions.append(TaskDefinition(f"plugin{index % 50}.task{index}", rules, owner=f"plugin{index % 50}",
                                                  names={"en": f"Task {index}"}, runner=host))
            # Plugin tasks reach the scheduler as the follower sends them: one SyncPluginTasks.
            await scheduler.ask(SyncPluginTasks(tuple(definitions)), timeout=1e9)  # simulated time: no real limit
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            for _day in range(days):
                # A scan and an evening of playback each day: idle and afterScan see traffic.
                await scheduler.tell(ScanActivity("lib", active=True))
                await trio.sleep(1800)
                await scheduler.tell(ScanActivity("lib", active=False, completed=True))
                await trio.sleep(12 * 3600)
                await scheduler.tell(PlaybackActivity(True))
                await trio.sleep(3 * 3600)
                await scheduler.tell(PlaybackActivity(False))
                await trio.sleep(86400 - 1800 - 15 * 3600)
            cpu = time.process_time() - cpu_start
            elapsed = time.perf_counter() - wall_start
            drift = await scheduler.ask(GetDrift(), timeout=1e9)
            nursery.cancel_scope.cancel()
    return {"tasks": tasks, "simulated_days": days, "runs": host_actor.runs,
            "cpu_ms_per_simulated_day": round(cpu * 1000 / days, 1), "real_seconds": round(elapsed, 1),
            "max_drift_seconds": drift, "target_drift_seconds": 0}


async def _sample(client: httpx.AsyncClient, path: str, until: trio.Event | None, seconds: float) -> list[float]:
    durations: list[float] = []
    deadline = time.perf_counter() + seconds
    while (until is None and time.perf_counter() < deadline) or (until is not None and not until.is_set()):
        started = time.perf_counter()
        response = await client.get(path)
        if response.status_code == 200:
            durations.append(time.perf_counter() - started)
    return durations


def _p99_ms(durations: list[float]) -> float | None:
    if not durations:
        return None
    ordered = sorted(durations)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2)


async def _poll_jobs(client: httpx.AsyncClient) -> None:
    while True:
        await client.get("/jobs")
        await trio.sleep(JOBS_POLL_S)


async def _wait_done(client: httpx.AsyncClient, job_ids: set[str], done: trio.Event) -> dict[str, str]:
    states: dict[str, str] = {}
    with trio.fail_after(RUN_TIMEOUT_S):
        while True:
            jobs = {job["id"]: job for job in (await client.get("/jobs")).json()}
            states = {i: jobs.get(i, {}).get("state", "?") for i in job_ids}
            if all(s in ("succeeded", "failed", "cancelled") for s in states.values()):
                done.set()
                return states
            await trio.sleep(0.2)


async def _reads_under_maintenance(items: int, workdir: Path) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _api_processes import reelhouse_server
    from _catalog_rows import fill_catalog, write_posters

    data_dir, url = workdir / "data", f"sqlite:///{workdir / 'data' / 'reelhouse.db'}"
    data_dir.mkdir(parents=True, exist_ok=True)
    async with open_store(url) as store:
        await migrate(store)
        sample = await fill_catalog(store, items, workdir / "media", write_posters(workdir / "posters"))
    path = f"/items?libraryId={sample.movies_library}&limit=40"
    with reelhouse_server(data_dir, url) as server:
        headers = {"Authorization": f"Bearer {server.key}"}
        async with httpx.AsyncClient(base_url=server.api_url, headers=headers, timeout=30) as client:
            await _sample(client, path, None, 1.0)  # warm-up
            async with trio.open_nursery() as nursery:  # the same /jobs polling as below, nothing running
                nursery.start_soon(_poll_jobs, client)
                idle = await _sample(client, path, None, IDLE_SAMPLE_S)
                nursery.cancel_scope.cancel()
            for task in ("database_maintenance", "backup"):
                assert (await client.post(f"/admin/schedules/{task}/run")).status_code == 202
            done = trio.Event()
            async with trio.open_nursery() as nursery:
                waiting: dict[str, Any] = {}

                async def wait() -> None:
                    waiting.update(await _wait_done(client, {"task:database_maintenance", "task:backup"}, done))

                nursery.start_soon(wait)
                busy = await _sample(client, path, done, 0)
    idle_p99, busy_p99 = _p99_ms(idle), _p99_ms(busy)
    return {"items": items, "idle_requests": len(idle), "idle_p99_ms": idle_p99, "busy_requests": len(busy),
            "busy_p99_ms": busy_p99, "jobs": waiting,
            "ratio": round(busy_p99 / idle_p99, 2) if idle_p99 and busy_p99 else None, "target_ratio": 1.5}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int)
    parser.add_argument("--days", type=int)
    parser.add_argument("--items", type=int)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument("--skip-autojump", action="store_true")
    args = parser.parse_args()
    tasks = args.tasks or (QUICK_TASKS if args.quick else DEFAULT_TASKS)
    days = args.days or (QUICK_DAYS if args.quick else DEFAULT_DAYS)
    items = args.items or (QUICK_ITEMS if args.quick else DEFAULT_ITEMS)
    with tempfile.TemporaryDirectory(prefix="reelhouse-sched-") as work:
        result: dict[str, Any] = {}
        if not args.skip_autojump:
            result["autojump"] = trio.run(_simulate, tasks, days, Path(work),
                                          clock=MockClock(autojump_threshold=AUTOJUMP_AFTER_S))
            print(json.dumps(result["autojump"]), file=sys.stderr)
        if not args.skip_http:
            result["reads"] = trio.run(_reads_under_maintenance, items, Path(work))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
