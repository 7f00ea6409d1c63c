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

from reelhouse.media.schedule import parse_rule
from reelhouse.storage import open_store
from reelhouse.storage import schedules as stored
from reelhouse.storage.apikeys import create_api_key, revoke_api_key

from ...tls import shared_tls_context
from .nodes import open_cluster, until

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

SEAT_LINE = b"running the cluster's scheduler"
EVERY = 300  # the shortest interval a rule may have
# Far enough ahead that every node's Scheduler reloads the rule first (a reload poll is 0.5 s).
DUE_IN_SECONDS = 2.0


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


@pytest.mark.long
async def test_a_task_due_once_runs_once_in_the_cluster(tmp_path: Path, database_url: str) -> None:
    with trio.fail_after(120):
        async with open_cluster(tmp_path, database_url, 3) as cluster:
            async with cluster.client(0) as a, cluster.client(1) as b, cluster.client(2) as c:
                due = await due_soon(database_url, "backup")
                await until(lambda: _finished(c, "backup"))
                # A Scheduler on any node would have started it at the due time by its own clock
                # (rules are reloaded within a poll, well before it): once that time has passed
                # and nothing runs on any node, every run there was to be is over.
                assert datetime.now(UTC) > due
                await until(lambda: _nothing_runs([a, b, c], "backup"))
            made = [path.name for node in ("node0", "node1", "node2")
                    for path in (tmp_path / node / "backups").glob("*.zip")]
            assert len(made) == 1, made


async def due_soon(database_url: str, task: str) -> datetime:
    """Give ``task`` a five-minute interval rule (what ``reelhouse schedule set --every 300``
    writes) counted from so long ago that it is next due DUE_IN_SECONDS from now; that time.
    No waiting for a wall-clock minute, as a cron rule would need."""
    async with open_store(database_url) as store:
        assert await stored.set_rules(store, task, (parse_rule({"trigger": "interval", "everySeconds": EVERY},
                                                               allows_after_scan=False),))
        due = datetime.now(UTC) + timedelta(seconds=DUE_IN_SECONDS)
        due_from = int((due - timedelta(seconds=EVERY)).timestamp() * 1000)
        # As if the rule had been set then; the revision bump has every Scheduler reload it.
        await store.execute("UPDATE schedules SET due_from = ? WHERE task = ?", (due_from, task))
        await store.execute("UPDATE schedule_revision SET revision = revision + 1 WHERE id = 1")
    return due


async def _nothing_runs(clients: list[httpx.AsyncClient], task: str) -> bool:
    for client in clients:
        row = [s for s in (await schedules(client))["schedules"] if s["task"] == task]
        jobs = (await client.get("/jobs")).json()
        if row[0]["running"] or any(j["id"] == f"task:{task}" and j["state"] == "running" for j in jobs):
            return False
    return True


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
            clients = [httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{url}/api/v1", headers=headers) for url in cluster.urls]
            try:
                for client in clients:
                    assert (await client.get("/libraries")).status_code == 200
                assert await revoke_api_key(store, record.id)  # what `reelhouse apikey revoke` does
                for client in clients:
                    assert (await client.get("/libraries")).status_code == 401
            finally:
                for client in clients:
                    await client.aclose()
