"""Ask deadlines at the HTTP edge: a create that runs out of time answers 503 and leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import httpx
import trio

from reelhouse.storage import open_store
from reelhouse.storage.libraries import list_libraries

from ..database_lock import database_write_lock
from .conftest import RunningServer

CAP_S = 60


async def test_a_create_that_outlasts_the_ask_limit_is_503_and_creates_nothing(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path
) -> None:
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
