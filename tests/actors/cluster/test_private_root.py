"""A library whose root only one node can see (a private mount namespace): only that node
leads it, and once it dies the library is offline, never empty."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import httpx
import pytest
import trio

from .nodes import TEST_CLUSTER_ENV, Node, leader_of, open_cluster, until, write_films
from .test_leaders import create_library, item_count

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

FILMS = 6
# In a mount namespace of its own, the node mounts a tmpfs on $1 and copies the films from $2
# into $1/films: that folder exists for this node alone (the others see $1 empty).
PRIVATE_MOUNT = 'mount -t tmpfs tmpfs "$1" && cp -r "$2" "$1/films" && shift 2 && exec "$@"'
# A dead node's row outlives its lease by at least two of node 0's lease rounds (one every
# lease / 3; a second's slack for the heartbeat): once node 0 logs the node gone, it has had
# its chances to take the library.
LEASE_SECONDS = float(TEST_CLUSTER_ENV["REELHOUSE_CLUSTER__LEASE_SECONDS"])
OUTLIVES_THE_LEASE = {"REELHOUSE_CLUSTER__NODE_EXPIRY_SECONDS": str(LEASE_SECONDS * 5 / 3 + 1)}


def private_mount_problem() -> str | None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "a private mount namespace needs root and unshare"
    return None


@pytest.mark.long
async def test_a_library_only_one_node_sees_is_led_there_alone_and_offline_not_empty_once_it_dies(
    tmp_path: Path, database_url: str
) -> None:
    if (problem := private_mount_problem()) is not None:
        pytest.skip(problem)
    source = write_films(tmp_path / "source", FILMS)
    mount = tmp_path / "mnt"
    mount.mkdir()
    prefix = ["unshare", "-m", "--propagation", "private", "sh", "-c", PRIVATE_MOUNT, "sh", str(mount), str(source)]
    with trio.fail_after(180):
        async with open_cluster(tmp_path, database_url, 0, env=OUTLIVES_THE_LEASE) as cluster:
            await cluster.start_nodes(Node(), Node(prefix=prefix))
            assert not (mount / "films").exists()  # not here, nor on node 0
            async with cluster.client(0) as blind, cluster.client(1) as seeing:
                library_id = await create_library(seeing, mount / "films")
                sole = await leader_of(blind, library_id)
                await until(lambda: _items_are(blind, library_id, FILMS))
                assert sole is not None and sole == await leader_of(seeing, library_id)
                assert f"cluster node {sole} at".encode() in cluster.nodes[1].log  # the node that sees it
                os.kill(cluster.nodes[1].pid, signal.SIGKILL)
                # Node 0 removes the dead node only after its lease expired and several lease rounds.
                await until(lambda: f"cluster node {sole} stopped answering".encode() in cluster.nodes[0].log)
                assert await leader_of(blind, library_id) is None  # node 0 never took it: it cannot see it
                assert await item_count(blind, library_id) == FILMS  # offline, never empty
                scan = await blind.post(f"/libraries/{library_id}/scan", json={"mode": "full"})
                assert scan.status_code == 503, scan.text
                assert scan.json()["params"]["reason"] == "library_offline"


async def _items_are(client: httpx.AsyncClient, library_id: str, count: int) -> bool:
    return await item_count(client, library_id) == count
