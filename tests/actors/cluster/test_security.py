"""Security state on a cluster: sign-in guesses spread over nodes gain nothing."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.members import add_user
from reelhouse.storage.signin_limits import NAME_LIMIT

from ...tls import shared_tls_context
from .nodes import open_cluster

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

GUESSES = 12


async def test_guesses_spread_over_two_nodes_at_once_get_no_more_tries_than_in_a_row(
    tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(120):
        async with open_cluster(tmp_path, database_url, 2) as cluster:
            async with open_store(database_url) as store:
                await add_user(store, "alice", is_admin=False, password="right horse battery")
            clients = [httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{url}/api/v1", timeout=60) for url in cluster.urls]
            statuses: list[int] = []
            waiting: list[int] = []
            go = trio.Event()
            all_waiting = trio.Event()

            async def guess(index: int) -> None:
                waiting.append(index)
                if len(waiting) == GUESSES:
                    all_waiting.set()
                await go.wait()  # all at once: none is sent before every one is ready
                answer = await clients[index % 2].post("/auth/login", json={
                    "name": "alice", "password": f"wrong {index}", "deviceName": "d", "client": "c"})
                statuses.append(answer.status_code)

            try:
                async with trio.open_nursery() as nursery:
                    for index in range(GUESSES):
                        nursery.start_soon(guess, index)
                    await all_waiting.wait()
                    go.set()
                right = await clients[0].post("/auth/login", json={
                    "name": "alice", "password": "right horse battery", "deviceName": "d", "client": "c"})
            finally:
                for client in clients:
                    await client.aclose()
            assert sorted(statuses) == [401] * NAME_LIMIT + [429] * (GUESSES - NAME_LIMIT)
            assert right.status_code == 429  # past the limit even the right password waits
