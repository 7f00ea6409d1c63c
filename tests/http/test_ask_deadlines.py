"""Ask deadlines at the HTTP edge: a create that runs out of time answers 503 and leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import httpx
import trio

from reelhouse.storage import open_store
from reelhouse.storage.libraries import list_libraries

from ..database_lock import database_write_lock
from .conftest import RunningServer, start_server

CAP_S = 60
ASK_LIMIT_S = 1.0  # the server's [http] ask_timeout_seconds: short, so the test does not wait 10 s


async def test_a_create_that_outlasts_the_ask_limit_is_503_and_creates_nothing(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await start_server(nursery, database_url, tmp_path / "data", http={"ask_timeout_seconds": ASK_LIMIT_S})
    async with server.client() as client:
        await _create_while_the_table_is_locked(server, client, tmp_path)
    server.shutdown.set()


async def _create_while_the_table_is_locked(server: RunningServer, client: httpx.AsyncClient, tmp_path: Path) -> None:
    (tmp_path / "films").mkdir()
    body = {"name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies",
            "options": {"remoteAllowedHosts": [], "scansSuspended": True}}
    with trio.fail_after(CAP_S):
        async with database_write_lock(server.database_url, "libraries"):  # the write cannot finish in time
            response = await client.post("/libraries", json=body, timeout=CAP_S)
        assert response.status_code == 503, response.text
        assert response.headers["Retry-After"].isdigit()
        assert response.json()["code"] == "service_unavailable"
        # an ask queued behind that creation in the registry's mailbox: it has ended
        assert (await client.post("/libraries/nope/scan", json={})).status_code == 404
        listed = (await client.get("/libraries")).json()
    assert listed == []
    async with open_store(server.database_url) as store:
        assert await list_libraries(store) == []
