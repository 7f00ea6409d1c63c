"""Nodes on one PostgreSQL database: every node lists every node; a SQLite server lists itself."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from .nodes import open_cluster, until

POSTGRESQL_ONLY = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


@POSTGRESQL_ONLY
async def test_every_node_lists_every_node_and_a_stopped_node_leaves_the_list(
    tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(90):
        async with open_cluster(tmp_path, database_url, 2) as cluster:
            statuses = []
            for index in range(2):
                async with cluster.client(index) as client:
                    answer = await client.get("/system/status")
                    assert answer.status_code == 200, answer.text
                    statuses.append(answer.json())
            assert [n["id"] for n in statuses[0]["nodes"]] == [n["id"] for n in statuses[1]["nodes"]]
            assert statuses[0]["serverId"] == statuses[1]["serverId"]  # one server to its clients
            assert sorted(n["address"] for n in statuses[0]["nodes"]) == sorted(cluster.urls)
            for node in statuses[0]["nodes"]:
                assert set(node) == {"id", "address", "startedAt", "lastHeartbeatAt", "librariesLed"}
            cluster.nodes[1].send_signal(15)
            assert await cluster.nodes[1].wait() == 0
            async with cluster.client(0) as client:
                async def one_left() -> bool:
                    nodes = (await client.get("/system/status")).json()["nodes"]
                    return [n["address"] for n in nodes] == [cluster.urls[0]]
                await until(one_left)


@SQLITE_ONLY
async def test_a_sqlite_server_is_a_cluster_of_one_leading_every_library(tmp_path: Path, database_url: str) -> None:
    (tmp_path / "films").mkdir()
    with trio.fail_after(60):
        async with open_cluster(tmp_path, database_url, 1) as cluster, cluster.client(0) as client:
            created = await client.post("/libraries", json={
                "name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies"})
            assert created.status_code == 201, created.text
            nodes = (await client.get("/system/status")).json()["nodes"]
            assert len(nodes) == 1
            assert nodes[0]["librariesLed"] == [created.json()["id"]]
