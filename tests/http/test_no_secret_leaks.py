"""Property: no response of any endpoint, and no log line, carries a password, PIN or token a test planted."""

from __future__ import annotations

import logging
import re
import secrets
from pathlib import Path

import httpx
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import start_server
from .members import add_member, login

SECRET_CHARS = st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_categories=("Cs",))
passwords = st.text(SECRET_CHARS, min_size=6, max_size=24).map(lambda s: "pw" + s)
# Eight digits, no leading zero: a shorter PIN is a number any timestamp may contain by chance.
pins = st.integers(10_000_000, 99_999_999).map(str)

ADMIN_READS = (
    "/users", "/devices", "/activity?limit=200", "/system/status", "/libraries", "/jobs",
    "/scans/status", "/scans/errors", "/items", "/search?q=pw", "/openapi.json",
)
PLAYER_READS = ("/items", "/search?q=pw", "/items/nothing", "/images/items/nothing", "/users", "/activity")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.long
@given(password=passwords, pin=pins)
async def test_no_response_or_log_line_carries_a_planted_secret(
    database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, password: str, pin: str
) -> None:
    caplog.set_level(logging.DEBUG)
    name = "m" + secrets.token_hex(4)
    bodies: list[str] = []
    async with trio.open_nursery() as nursery:
        with trio.fail_after(60):
            server = await start_server(nursery, database_url, tmp_path / "data")
            user_id = await add_member(server, name, password=password, pin=pin, all_libraries=True)
            signed = await login(server, name, password=password, deviceId="tv")
            token = signed.json()["token"]
            for answer in (
                await login(server, name, pin=pin),
                await login(server, name, password=password + "x"),
                await login(server, name, pin=pin[::-1]),
                await login(server, password, password=password),  # a password typed as the name
            ):
                bodies.append(_text(answer))
            async with server.client() as admin:
                for path in (*ADMIN_READS, f"/users/{user_id}"):
                    bodies.append(_text(await admin.get(path)))
            async with server.client(key=token) as player:
                for path in PLAYER_READS:
                    bodies.append(_text(await player.get(path)))
                bodies.append(_text(await player.post("/auth/logout")))
            server.shutdown.set()
    everything = "\n".join(bodies) + "\n" + caplog.text
    assert password not in everything
    assert token not in everything
    assert re.search(rf"(?<![0-9]){pin}(?![0-9])", everything) is None


def _text(response: httpx.Response) -> str:
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    return headers + "\n" + response.text
