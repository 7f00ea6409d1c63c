"""Several ``reelhouse serve`` processes on one PostgreSQL schema: a cluster for tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import trio

from ...process import ServerProcess, clean_environ, run_cli

# Longer leases than the default 10 s: on a loaded machine (a load of 14 on 2 cores) a
# node's event loop was seen stalled for 7 s, and a leader whose loop stalls past its
# lease rightly loses it, which would move a library before the test means it to.
TEST_CLUSTER_ENV = {
    "REELHOUSE_CLUSTER__LEASE_SECONDS": "15",
    "REELHOUSE_CLUSTER__HEARTBEAT_SECONDS": "1",
    "REELHOUSE_CLUSTER__NODE_EXPIRY_SECONDS": "20",
    "REELHOUSE_CLUSTER__COMMAND_POLL_SECONDS": "0.5",
}


NODE_START_TIMEOUT_S = 120.0


class Cluster:
    """Nodes started in a nursery, each with its own data folder, one database, one API key."""

    def __init__(self, nursery: trio.Nursery, root: Path, database_url: str, env: dict[str, str] | None = None) -> None:
        self._nursery = nursery
        self._root = root
        self.database_url = database_url
        self._env = clean_environ(**TEST_CLUSTER_ENV, **(env or {}))
        self.nodes: list[ServerProcess] = []
        self.urls: list[str] = []
        self.key = ""

    async def start_node(self, *extra: str, prefix: Sequence[str] = ()) -> int:
        """Start one more node (under ``prefix``: ``unshare ...``); its index."""
        index = len(self.nodes)
        node = ServerProcess(self._root / f"node{index}", self.database_url, *extra, prefix=prefix, env=self._env)
        self.nodes.append(node)
        # Several servers start on a loaded machine (migrations fsync on a busy disk): each
        # test's own fail_after is the cap that matters.
        self.urls.append(await node.start(self._nursery, timeout=NODE_START_TIMEOUT_S))
        if not self.key:
            done = await run_cli(["--data-dir", str(self._root / "node0"), "--database", self.database_url,
                                  "apikey", "create", "cluster"], env=self._env)
            assert done.returncode == 0, done.stderr
            self.key = done.stdout.decode().strip().splitlines()[-1]
        return index

    @asynccontextmanager
    async def client(self, index: int) -> AsyncIterator[httpx.AsyncClient]:
        headers = {"Authorization": f"Bearer {self.key}"}
        async with httpx.AsyncClient(base_url=f"{self.urls[index]}/api/v1", headers=headers, timeout=30) as client:
            yield client

    async def cli(self, *args: str, stdin: bytes = b"") -> str:
        """``reelhouse ARGS`` on the cluster's database; its standard output."""
        done = await run_cli(["--data-dir", str(self._root / "cli"), "--database", self.database_url, *args],
                             stdin=stdin, env=self._env)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode()

    def kill(self) -> None:
        for node in self.nodes:
            node.kill()

    def log(self) -> str:
        return "\n".join(f"--- node {i}\n{n.log.decode(errors='replace')}" for i, n in enumerate(self.nodes))


@asynccontextmanager
async def open_cluster(root: Path, database_url: str, count: int, *, env: dict[str, str] | None = None,
                       ) -> AsyncIterator[Cluster]:
    async with trio.open_nursery() as nursery:
        cluster = Cluster(nursery, root, database_url, env)
        try:
            for _ in range(count):
                await cluster.start_node()
            yield cluster
        except BaseException:
            print(cluster.log())  # shown with the failure
            raise
        finally:
            cluster.kill()
            nursery.cancel_scope.cancel()


async def until(check: Callable[[], Any], *, interval: float = 0.1) -> Any:
    """Poll ``check`` (sync or async) until it returns something truthy; the caller caps the wait."""
    while True:
        result = check()
        if hasattr(result, "__await__"):
            result = await result
        if result:
            return result
        await trio.sleep(interval)


def write_films(root: Path, count: int) -> Path:
    for i in range(count):
        folder = root / f"Film {i} ({1950 + i % 70})"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"Film {i} ({1950 + i % 70}).mkv").write_bytes(b"\x1a\x45\xdf\xa3" + b"\0" * 1024)
    return root


async def leader_of(client: httpx.AsyncClient, library_id: str) -> str | None:
    status = (await client.get("/system/status")).json()
    for node in status["nodes"]:
        if library_id in node["librariesLed"]:
            return str(node["id"])
    return None


def node_ids(status: dict[str, Any]) -> list[str]:
    return [node["id"] for node in status["nodes"]]


