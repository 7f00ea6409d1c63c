"""The console as its own pages call it, for HTTP tests: same Origin, cookies kept, no key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from ...tls import shared_tls_context
from ..conftest import RunningServer
from ..members import add_member

PASSWORD = "correct horse battery"


def browser(server: RunningServer) -> httpx.AsyncClient:
    """A client as the console's own pages are: same Origin, cookies kept, no key."""
    return httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, headers={"Origin": server.base_url}, timeout=30.0)


@asynccontextmanager
async def signed_in(server: RunningServer, name: str, *, admin: bool = False,
                    new: bool = True) -> AsyncIterator[httpx.AsyncClient]:  # fmt: skip
    """``name`` signed in to the console; a new member unless ``new`` is false."""
    if new:
        await add_member(server, name, password=PASSWORD, admin=admin, all_libraries=True)
    async with browser(server) as client:
        answer = await client.post("/web/login", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        yield client


async def activity(client: httpx.AsyncClient, action: str) -> list[dict[str, Any]]:
    """The activity log's entries of ``action``, read by a signed-in administrator, newest first."""
    entries = (await client.get("/web/admin/api/activity", params={"limit": 100})).json()["entries"]
    return [entry for entry in entries if entry["action"] == action]
