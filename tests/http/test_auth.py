"""API-key authentication over real HTTP; the refusals share a server per backend, the key changes have their own."""

from __future__ import annotations

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.apikeys import create_api_key, list_api_keys, revoke_api_key

from ..server_process import run_cli
from ..tls import shared_tls_context
from .conftest import RunningServer
from .shared_server import backend, shared_server  # noqa: F401  (fixtures)


def assert_unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "unauthorized"
    assert body["message"]


@pytest.mark.parametrize(
    "header",
    [None, "", "Bearer", "Basic dXNlcjpwdw==", "Bearer rhk_not-a-real-key", "Bearer not-even-prefixed"],
)
async def test_request_without_a_valid_key_is_401_with_the_error_body(
    shared_server: RunningServer, header: str | None
) -> None:
    headers = {"Authorization": header} if header is not None else {}
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=shared_server.api_url, headers=headers) as client:
        with trio.fail_after(20):
            assert_unauthorized(await client.get("/system/status"))


async def test_unknown_route_without_a_key_is_401_not_404(shared_server: RunningServer) -> None:
    async with shared_server.client(key="") as client:
        with trio.fail_after(20):
            assert_unauthorized(await client.get("/no/such/route"))


async def test_revoked_key_fails_on_its_very_next_request(server: RunningServer) -> None:
    async with open_store(server.database_url) as store:
        record, key = await create_api_key(store, "short-lived")
    async with server.client(key=key) as client:
        with trio.fail_after(20):
            assert (await client.get("/system/status")).status_code == 200
            async with open_store(server.database_url) as store:
                assert await revoke_api_key(store, record.id)
            assert_unauthorized(await client.get("/system/status"))


async def test_a_key_revoked_by_the_command_line_fails_on_the_servers_very_next_request(server: RunningServer) -> None:
    async with open_store(server.database_url) as store:
        record, key = await create_api_key(store, "short-lived")
    async with server.client(key=key) as client:
        with trio.fail_after(60):
            for _ in range(3):  # verified, then remembered
                assert (await client.get("/system/status")).status_code == 200
            done = await run_cli(["--data-dir", str(server.data_dir), "--database", server.database_url,
                                  "apikey", "revoke", record.id])  # fmt: skip
            assert done.returncode == 0, done.stderr
            assert_unauthorized(await client.get("/system/status"))


async def test_only_a_hash_of_the_key_is_stored(server: RunningServer) -> None:
    async with open_store(server.database_url) as store:
        rows = await store.fetch_all("SELECT * FROM api_keys")
        keys = await list_api_keys(store)
    assert keys
    for row in rows:
        assert all(server.key not in str(value) for value in tuple(row))
