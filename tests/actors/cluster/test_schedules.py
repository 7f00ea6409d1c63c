"""Schedules and jobs on a cluster: one Scheduler in the cluster, seen and driven from every node."""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.media.schedule import CORE_TASKS, parse_rule
from reelhouse.storage import open_store
from reelhouse.storage import schedules as stored
from reelhouse.storage.apikeys import create_api_key, revoke_api_key

from ...conftest import migrated_copy
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
    with trio.fail_after(120):
        # Due a minute ago, counted from the minute before (as if set then while every node was
        # down): a node's Scheduler, were it to run one, would start it at its own start, before
        # the node serves. No waiting for a wall-clock minute, and no window to hope in: once
        # every node serves, every node has passed the due time.
        due = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=1)
        await due_once(database_url, "backup", due)
        async with open_cluster(tmp_path, database_url, 3, env={"REELHOUSE_TIME_ZONE": "UTC"}) as cluster:
            async with cluster.client(2) as client:
                await until(lambda: _finished(client, "backup"))
                (backup,) = [s for s in (await schedules(client))["schedules"] if s["task"] == "backup"]
                assert datetime.fromisoformat(backup["nextRunAt"]) > datetime.now(UTC), backup  # tomorrow's
            holders = [i for i, node in enumerate(cluster.nodes) if SEAT_LINE in node.log]
            assert len(holders) == 1, cluster.log()  # one Scheduler started in the cluster
            made = [path.name for node in ("node0", "node1", "node2")
                    for path in (tmp_path / node / "backups").glob("*.zip")]
            assert len(made) == 1, made


async def due_once(database_url: str, task: str, due: datetime) -> None:
    """Give ``task`` a daily rule due at ``due`` (UTC), counted from a minute before it: what
    ``reelhouse schedule set`` writes (the task's row made if missing), then counted from then."""
    await migrated_copy(database_url)
    async with open_store(database_url) as store:
        await stored.ensure_tasks(store, [(name, None, t.allows_after_scan) for name, t in CORE_TASKS.items()])
        rule = parse_rule({"trigger": "cron", "cron": f"{due.minute} {due.hour} * * *"}, allows_after_scan=False)
        assert await stored.set_rules(store, task, (rule,))
        await stored.record_due_passed(store, task, int((due - timedelta(minutes=1)).timestamp() * 1000))


async def _finished(client: httpx.AsyncClient, task: str) -> bool:
    found = [s for s in (await schedules(client))["schedules"] if s["task"] == task]
    return bool(found and found[0].get("lastFinishedAt"))


async def _task_job_seen(client: httpx.AsyncClient, task: str) -> bool:
    jobs = (await client.get("/jobs")).json()
    return any(job["id"] == f"task:{task}" for job in jobs)


async def test_a_revoked_api_key_is_refused_on_its_next_request_on_every_node(tmp_path: Path, database_url: str) -> None:
    with trio.fail_after(120):
        async with open_cluster(tmp_path, database_url, 2) as cluster, open_store(database_url) as store:
            record, plaintext = await create_api_key(store, "doomed")
            headers = {"Authorization": f"Bearer {plaintext}"}
            clients = [httpx.AsyncClient(base_url=f"{url}/api/v1", headers=headers) for url in cluster.urls]
            try:
                for client in clients:
                    assert (await client.get("/libraries")).status_code == 200
                assert await revoke_api_key(store, record.id)  # what `reelhouse apikey revoke` does
                for client in clients:
                    assert (await client.get("/libraries")).status_code == 401
            finally:
                for client in clients:
                    await client.aclose()
