"""Several ``reelhouse serve`` processes on one PostgreSQL schema: a cluster for tests."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import trio

from reelhouse.storage import open_store
from reelhouse.storage.apikeys import create_api_key

from ...conftest import migrated_copy
from ...server_process import ServerProcess, clean_environ
from ...tls import shared_tls_context

# What a failover test waits for is these intervals: a killed leader's lease expires
# (lease_seconds, then a renewal round of lease_seconds / 3), a killed node's row expires
# (node_expiry_seconds, looked at every heartbeat). Short, but not so short that a node
# whose event loop stalls on a loaded machine (stress --cpu 2 beside the suite) loses its
# lease or its row before the test means it to: a lease survives a stall of about
# lease_seconds * 2/3 (3.3 s), a node's row one of the expiry less a heartbeat (4.5 s).
# Every cluster test passed with a load average of 12-15 on 2 cores, and with two
# `yes > /dev/null` beside that (the old 15 s lease and 20 s expiry cost 3-4 times longer).
TEST_CLUSTER_ENV = {
    "REELHOUSE_CLUSTER__LEASE_SECONDS": "5",
    "REELHOUSE_CLUSTER__HEARTBEAT_SECONDS": "0.5",
    "REELHOUSE_CLUSTER__NODE_EXPIRY_SECONDS": "5",
    "REELHOUSE_CLUSTER__COMMAND_POLL_SECONDS": "0.5",
    # A killed node's live sessions are recorded once its row expired and another node looked.
    "REELHOUSE_CLUSTER__SESSION_SWEEP_SECONDS": "0.5",
    # A rule changed from the command line reaches the running Scheduler within this.
    "REELHOUSE_SCHEDULE__RELOAD_POLL_SECONDS": "0.5",
}


NODE_START_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Node:
    """How to start one node: extra ``serve`` arguments, and a command to run it under."""

    extra: Sequence[str] = ()
    prefix: Sequence[str] = ()


class Cluster:
    """Nodes started in a nursery, each with its own data folder, one database, one API key."""

    def __init__(self, nursery: trio.Nursery, root: Path, database_url: str, env: dict[str, str] | None = None) -> None:
        self._nursery = nursery
        self._root = root
        self.database_url = database_url
        self._env = clean_environ(**{**TEST_CLUSTER_ENV, **(env or {})})  # env overrides the defaults
        self.nodes: list[ServerProcess] = []
        self.urls: list[str] = []
        self.key = ""

    async def prepare(self) -> None:
        """The database migrated (a copy of a migrated one) and the cluster's API key made, in
        this process: each node then finds nothing to migrate, and no command-line process
        (a cold interpreter) is started for the key."""
        await migrated_copy(self.database_url)
        async with open_store(self.database_url) as store:
            _record, self.key = await create_api_key(store, "cluster")

    async def start_nodes(self, *nodes: Node) -> list[int]:
        """Start several nodes at once (each a cold interpreter: one after another they add up);
        their indexes, in the order given."""
        if not self.key:
            await self.prepare()
        indexes = []
        async with trio.open_nursery() as starting:
            for spec in nodes:
                index = len(self.nodes)
                node = ServerProcess(self._root / f"node{index}", self.database_url, *spec.extra,
                                     prefix=spec.prefix, env=self._env)
                self.nodes.append(node)
                self.urls.append("")
                indexes.append(index)
                starting.start_soon(self._start, index, node)
        return indexes

    async def _start(self, index: int, node: ServerProcess) -> None:
        # Several servers start at once on a loaded machine: each test's own fail_after is
        # the cap that matters; this one bounds a hang with the node's log.
        self.urls[index] = await node.start(self._nursery, timeout=NODE_START_TIMEOUT_S)

    @asynccontextmanager
    async def client(self, index: int) -> AsyncIterator[httpx.AsyncClient]:
        headers = {"Authorization": f"Bearer {self.key}"}
        async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{self.urls[index]}/api/v1", headers=headers, timeout=30) as client:
            yield client

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
            await cluster.start_nodes(*[Node()] * count)
            yield cluster
        except BaseException:
            print(cluster.log())  # shown with the failure
            raise
        finally:
            cluster.kill()
            nursery.cancel_scope.cancel()


async def until(check: Callable[[], Any], *, interval: float = 0.1) -> Any:
    """Poll ``check`` (sync or async) until it returns something truthy; the caller caps the wait
    (its fail_after's TooSlowError says only that time ran out: this says what was awaited)."""
    try:
        while True:
            result = check()
            if hasattr(result, "__await__"):
                result = await result
            if result:
                return result
            await trio.sleep(interval)
    except trio.Cancelled:
        print(f"gave up waiting for: {_described(check)}")  # shown with the failure
        raise


def _described(check: Callable[[], Any]) -> str:
    try:
        return inspect.getsource(check).strip()  # a lambda: the line that waits
    except (OSError, TypeError):
        return repr(check)


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


