"""Members and player sign-ins for HTTP tests: made in the store as the command line makes them."""

from __future__ import annotations

from typing import Any

import httpx

from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, add_user, update_member

from .conftest import RunningServer


async def add_member(
    server: RunningServer, name: str, *, password: str | None = None, pin: str | None = None, admin: bool = False,
    **changes: Any,
) -> str:
    """A member's id; ``changes`` are MemberChanges fields applied after creation."""
    async with open_store(server.database_url) as store:
        user = await add_user(store, name, is_admin=admin, password=password)
        if pin is not None or changes:
            await update_member(store, name, MemberChanges(pin=pin, **changes))
    return user.id


async def login(server: RunningServer, name: str, **body: Any) -> httpx.Response:
    payload = {"name": name, "deviceName": "Living room", "client": "TestPlayer", **body}
    async with server.client(key="") as anonymous:
        return await anonymous.post("/auth/login", json=payload)


async def token_for(server: RunningServer, name: str, **body: Any) -> str:
    response = await login(server, name, **body)
    assert response.status_code == 200, response.text
    return response.json()["token"]
