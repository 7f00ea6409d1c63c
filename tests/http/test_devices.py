"""GET /devices and DELETE /devices/{id} over real HTTP, on both backends.

The tests share a server per backend: each signs in members of its own and reads only
their devices (``devices_of``); the one that stops its server has its own.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import trio

from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, update_member

from .conftest import RunningServer, start_server
from .members import add_member, login, token_for
from .shared_server import backend, server, shared_server  # noqa: F401  (fixtures)

PASSWORD = "correct horse battery"


async def devices_of(client: httpx.AsyncClient, *user_ids: str) -> list[dict]:
    """The devices last used by ``user_ids``, in the listing's order: the neighbours' aside."""
    answer = await client.get("/devices")
    assert answer.status_code == 200, answer.text
    return [row for row in answer.json() if row.get("userId") in user_ids]


async def test_three_sign_ins_with_one_device_id_form_one_row_and_die_with_one_delete(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(60):
        ann = await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
        bob = await add_member(server, "Bob", password=PASSWORD, all_libraries=True)
        first = await login(server, "Ann", password=PASSWORD, deviceId="tv-1", version="1.0")
        second = await login(server, "Ann", password=PASSWORD, deviceId="tv-1", version="1.1")
        third = await login(server, "Bob", password=PASSWORD, deviceId="tv-1", version="1.2")
        tokens = [answer.json()["token"] for answer in (first, second, third)]
        devices = await devices_of(client, ann, bob)
        row = devices[0]
        for token in tokens:
            async with server.client(key=token) as player:
                assert (await player.get("/items")).status_code == 200
        deleted = await client.delete(f"/devices/{row['id']}")
        after = []
        for token in tokens:
            async with server.client(key=token) as player:
                after.append(await player.get("/items"))
        again = await client.delete(f"/devices/{row['id']}")
        listed = await devices_of(client, ann, bob)
    assert len(devices) == 1
    assert {answer.json()["deviceId"] for answer in (first, second, third)} == {row["id"]}
    assert row["loginCount"] == 3 and row["kind"] == "player" and row["client"] == "TestPlayer"
    assert row["device"] == "Living room" and row["version"] == "1.2"
    assert row["userId"] == bob and row["userName"] == "Bob"
    assert [user["id"] for user in row["users"]] == [bob, ann]
    assert row["countsTowardLimit"] is True and row["overLimit"] is False and "notCountedReason" not in row
    assert row["lastSeen"].endswith("Z")
    assert deleted.status_code == 204
    assert [answer.status_code for answer in after] == [401, 401, 401]
    assert again.status_code == 404 and again.json()["code"] == "not_found"
    assert listed == []


async def test_a_sign_in_without_device_id_is_a_row_of_its_own(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        cid = await add_member(server, "Cid", password=PASSWORD)
        await token_for(server, "Cid", password=PASSWORD)
        await token_for(server, "Cid", password=PASSWORD)
        devices = await devices_of(client, cid)
    assert len(devices) == 2 and all(row["loginCount"] == 1 for row in devices)


async def test_a_revoked_device_is_refused_on_its_next_request_while_another_keeps_working(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(30):
        await add_member(server, "Dee", password=PASSWORD)
        kept = await login(server, "Dee", password=PASSWORD, deviceId="phone")
        revoked = await login(server, "Dee", password=PASSWORD, deviceId="tablet")
        async with server.client(key=kept.json()["token"]) as keeper, server.client(key=revoked.json()["token"]) as gone:
            assert (await gone.get("/items")).status_code == 200  # remembered as verified
            assert (await client.delete(f"/devices/{revoked.json()['deviceId']}")).status_code == 204
            refused = await gone.get("/items")
            still = await keeper.get("/items")
    assert refused.status_code == 401
    assert still.status_code == 200


async def test_last_seen_follows_use_not_only_sign_in(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        eli = await add_member(server, "Eli", password=PASSWORD)
        token = await token_for(server, "Eli", password=PASSWORD)
        signed_in = (await devices_of(client, eli))[0]["lastSeen"]
        await trio.sleep(0.01)
        async with server.client(key=token) as player:
            await player.get("/items")
        used = (await devices_of(client, eli))[0]["lastSeen"]
    assert used > signed_in


async def test_a_disabled_members_device_does_not_count_and_its_token_is_refused(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(30):
        fay = await add_member(server, "Fay", password=PASSWORD)
        token = await token_for(server, "Fay", password=PASSWORD)
        async with open_store(server.database_url) as store:
            await update_member(store, "Fay", MemberChanges(disabled=True))
        (row,) = await devices_of(client, fay)
        async with server.client(key=token) as player:
            refused = await player.get("/items")
    assert row["countsTowardLimit"] is False and row["notCountedReason"] == "memberDisabled"
    assert refused.status_code == 401


async def test_use_is_noted_in_memory_without_a_write_and_written_at_shutdown(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    with trio.fail_after(60):
        server = await start_server(nursery, database_url, tmp_path / "data")
        await add_member(server, "Gil", password=PASSWORD)
        token = await token_for(server, "Gil", password=PASSWORD)
        async with open_store(server.database_url) as store:
            signed_in = await store.fetch_value("SELECT last_seen FROM device_tokens")
            await trio.sleep(0.01)
            async with server.client(key=token) as player:
                assert (await player.get("/items")).status_code == 200
            after_use = await store.fetch_value("SELECT last_seen FROM device_tokens")
            server.shutdown.set()
            await server.stopped.wait()  # serve() returned: its shutdown flush is done
            after_shutdown = await store.fetch_value("SELECT last_seen FROM device_tokens")
    assert after_use == signed_in  # no write per request
    assert after_shutdown > signed_in
