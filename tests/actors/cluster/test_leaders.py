"""A leader per library on a cluster of real server processes on one PostgreSQL schema.

Commands sent to any node reach the library's leader and answer as on one
server (409s included); when the leader is killed with -9 another node
leads, the interrupted scan is recorded failed with a reason and the next
scan completes; a paused leader cannot write once it lost its lease.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from .nodes import Node, leader_of, open_cluster, until, write_films

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

FILMS = 12


def hanging_probe_config(directory: Path) -> Path:
    """Probe workers that never answer: a scan stays running until it is cancelled or its node dies."""
    config = directory / "hanging-probe.toml"
    config.write_text('[scan]\nprobe_timeout_seconds = 600\nprobe_worker_command = ["/bin/sh", "-c", "exec sleep 600"]\n')
    return config


async def create_library(client: httpx.AsyncClient, root: Path, *, suspended: bool = False) -> str:
    body: dict[str, Any] = {"name": "Films", "paths": [str(root)], "collectionType": "movies"}
    if suspended:
        body["options"] = {"remoteAllowedHosts": [], "scansSuspended": True}
    created = await client.post("/libraries", json=body)
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


async def scan_status(client: httpx.AsyncClient, library_id: str) -> dict[str, Any]:
    answer = await client.get("/scans/status")
    assert answer.status_code == 200, answer.text
    found = [s for s in answer.json() if s["libraryId"] == library_id]
    return found[0] if found else {}


async def item_count(client: httpx.AsyncClient, library_id: str) -> int:
    answer = await client.get("/items", params={"libraryId": library_id, "limit": 200})
    assert answer.status_code == 200, answer.text
    return len(answer.json()["items"])


async def test_commands_sent_to_another_node_reach_the_leader_and_answer_as_on_one_server(
    tmp_path: Path, database_url: str
) -> None:
    films = write_films(tmp_path / "films", FILMS)
    with trio.fail_after(120):
        async with open_cluster(tmp_path, database_url, 0) as cluster:
            await cluster.start_nodes(Node(("--config", str(hanging_probe_config(tmp_path)))), Node())
            async with cluster.client(0) as leader, cluster.client(1) as other:
                library_id = await create_library(leader, films, suspended=True)
                assert await leader_of(other, library_id) == await leader_of(leader, library_id) is not None
                assert (await other.post(f"/libraries/{library_id}/cancel-scan")).status_code == 409
                changed = await other.patch(f"/libraries/{library_id}/options", json={"scansSuspended": False, "remoteAllowedHosts": []})
                assert changed.status_code == 200, changed.text
                assert (await other.post(f"/libraries/{library_id}/scan", json={"mode": "full"})).status_code == 200
                again = await other.post(f"/libraries/{library_id}/scan", json={"mode": "full"})
                assert again.status_code == 409, again.text
                assert again.json()["code"] == (await leader.post(f"/libraries/{library_id}/scan")).json()["code"]
                # The scan's job, cancelled from the node that does not run it.
                assert (await other.post(f"/jobs/scan:{library_id}/cancel")).status_code == 204
                await until(lambda: _state_is(other, library_id, "cancelled"))
                assert (await other.post(f"/libraries/{library_id}/cancel-scan")).status_code == 409
                unknown = await other.post("/libraries/nope/scan")
                assert unknown.status_code == 404


async def _state_is(client: httpx.AsyncClient, library_id: str, state: str) -> bool:
    return (await scan_status(client, library_id)).get("state") == state


async def test_a_leader_killed_during_a_scan_fails_it_with_a_reason_and_the_next_scan_completes_elsewhere(
    tmp_path: Path, database_url: str
) -> None:
    films = write_films(tmp_path / "films", FILMS)
    with trio.fail_after(180):
        async with open_cluster(tmp_path, database_url, 0) as cluster:
            await cluster.start_nodes(Node(("--config", str(hanging_probe_config(tmp_path)))), Node())
            async with cluster.client(0) as first, cluster.client(1) as second:
                library_id = await create_library(first, films)  # scans at once, on node 0, and hangs probing
                dying = await leader_of(second, library_id)
                await until(lambda: _state_is(second, library_id, "running"))
                os.kill(cluster.nodes[0].pid, signal.SIGKILL)
                killed = trio.current_time()
                await until(lambda: _led_by_another(second, library_id, dying))
                print(f"failover after kill -9: {trio.current_time() - killed:.2f} s")
                failed = await scan_status(second, library_id)
                assert failed["state"] == "failed", failed
                assert dying is not None and dying in failed["message"], failed
                assert (await second.post(f"/libraries/{library_id}/scan", json={"mode": "full"})).status_code == 200
                await until(lambda: _state_is(second, library_id, "completed"))
                assert await item_count(second, library_id) == FILMS


async def _led_by_another(client: httpx.AsyncClient, library_id: str, before: str | None) -> bool:
    leader = await leader_of(client, library_id)
    return leader is not None and leader != before


async def test_a_paused_leader_that_lost_its_lease_cannot_record_its_scan_after_the_new_leader(
    tmp_path: Path, database_url: str
) -> None:
    films = write_films(tmp_path / "films", FILMS)
    with trio.fail_after(180):
        async with open_cluster(tmp_path, database_url, 0) as cluster:
            await cluster.start_nodes(Node(("--config", str(hanging_probe_config(tmp_path)))), Node())
            async with cluster.client(0) as first, cluster.client(1) as second:
                library_id = await create_library(first, films)
                paused = await leader_of(second, library_id)
                await until(lambda: _state_is(second, library_id, "running"))
                os.kill(cluster.nodes[0].pid, signal.SIGSTOP)
                try:
                    await until(lambda: _led_by_another(second, library_id, paused))
                    taken_over = await scan_status(second, library_id)
                    assert taken_over["state"] == "failed"
                finally:
                    os.kill(cluster.nodes[0].pid, signal.SIGCONT)
                # Woken, the old leader finds its lease gone and stops its library, which cancels
                # the scan: that end is fenced out, and the record stays the new leader's.
                await until(lambda: b"lost the lease of library" in cluster.nodes[0].log)
                await until(lambda: b"is no longer held" in cluster.nodes[0].log)
                assert await scan_status(first, library_id) == await scan_status(second, library_id) == taken_over
