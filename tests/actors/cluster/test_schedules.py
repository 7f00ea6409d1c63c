"""Schedules and jobs on a cluster: one Scheduler in the cluster, seen and driven from every node."""

from __future__ import annotations

import os
import signal
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import trio

from .nodes import open_cluster, until

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

SEAT_LINE = b"running the cluster's scheduler"


def schedule_view(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted((s["task"], s["paused"], s["running"], s.get("nextRunAt"), s.get("lastStartedAt"))
                  for s in answer["schedules"])


async def schedules(client: httpx.AsyncClient) -> dict[str, Any]:
    answer = await client.get("/admin/schedules")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_one_node_runs_the_scheduler_every_node_shows_and_drives_it_and_another_takes_it_over(
    tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(150):
        async with open_cluster(tmp_path, database_url, 2) as cluster:
            holders = [i for i, node in enumerate(cluster.nodes) if SEAT_LINE in node.log]
            assert len(holders) == 1, cluster.log()
            holder, other = holders[0], 1 - holders[0]
            async with cluster.client(holder) as on_holder, cluster.client(other) as on_other:
                assert schedule_view(await schedules(on_holder)) == schedule_view(await schedules(on_other))
                run = await on_other.post("/admin/schedules/database_maintenance/run")
                assert run.status_code in (200, 202), run.text
                await until(lambda: _task_job_seen(on_holder, "database_maintenance"))
                await until(lambda: _task_job_seen(on_other, "database_maintenance"))
                os.kill(cluster.nodes[holder].pid, signal.SIGKILL)
                await until(lambda: SEAT_LINE in cluster.nodes[other].log)
                after = await schedules(on_other)
                assert {s["task"] for s in after["schedules"]} >= {"database_maintenance", "cleanup"}


async def test_a_task_due_once_runs_once_in_the_cluster(tmp_path: Path, database_url: str) -> None:
    with trio.fail_after(240):
        async with open_cluster(tmp_path, database_url, 3) as cluster:
            async with cluster.client(2) as client:
                zone = ZoneInfo((await schedules(client))["timeZone"])
                # Due at the start of a minute at least 40 s away, once a day: once in this test.
                due = (datetime.now(zone) + timedelta(seconds=100)).replace(second=0, microsecond=0)
                await cluster.cli("schedule", "set", "backup", "--cron", f"{due.minute} {due.hour} * * *")
                await until(lambda: _finished(client, "backup"), interval=1)
                await trio.sleep(3)  # a second run on another node would have started by now
            made = [path.name for node in ("node0", "node1", "node2")
                    for path in (tmp_path / node / "backups").glob("*.zip")]
            assert len(made) == 1, made


async def _finished(client: httpx.AsyncClient, task: str) -> bool:
    found = [s for s in (await schedules(client))["schedules"] if s["task"] == task]
    return bool(found and found[0].get("lastFinishedAt"))


async def _task_job_seen(client: httpx.AsyncClient, task: str) -> bool:
    jobs = (await client.get("/jobs")).json()
    return any(job["id"] == f"task:{task}" for job in jobs)


async def test_a_revoked_api_key_is_refused_on_its_next_request_on_every_node(tmp_path: Path, database_url: str) -> None:
    with trio.fail_after(120):
        async with open_cluster(tmp_path, database_url, 2) as cluster:
            created = await cluster.cli("apikey", "create", "doomed")
            plaintext = created.strip().splitlines()[-1]
            key_id = created.split("created API key ", 1)[1].split(" ", 1)[0]
            headers = {"Authorization": f"Bearer {plaintext}"}
            clients = [httpx.AsyncClient(base_url=f"{url}/api/v1", headers=headers) for url in cluster.urls]
            try:
                for client in clients:
                    assert (await client.get("/libraries")).status_code == 200
                await cluster.cli("apikey", "revoke", key_id)
                for client in clients:
                    assert (await client.get("/libraries")).status_code == 401
            finally:
                for client in clients:
                    await client.aclose()
