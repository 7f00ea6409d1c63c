"""GET /activity over real HTTP on both backends: filters, cursor paging, what is recorded.

The refused filters read nothing and change nothing: they share the module's server.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.activity import ActivityRecord, record_activity

from ..server_process import run_cli
from .conftest import RunningServer
from .members import login
from .shared_server import backend, shared_client, shared_server  # noqa: F401  (fixtures)

PASSWORD = "correct horse battery"
# Eight digits: a four-digit PIN turned up by chance inside a random hex id of the log (a flaky check).
PIN = "90817263"
T0 = 1_800_000_000_000


async def plant(server: RunningServer, records: list[ActivityRecord]) -> None:
    async with open_store(server.database_url) as store:
        for record in records:
            await record_activity(store, record)


def entry(n: int, **fields: object) -> ActivityRecord:
    base: dict[str, object] = {"action": "library.scan", "category": "content", "actor_kind": "apiKey", "actor_id": "k1"}
    base.update(fields)
    return ActivityRecord(at_ms=T0 + n * 1000, **base)  # type: ignore[arg-type]


async def entries(client: httpx.AsyncClient, **params: object) -> list[dict]:
    response = await client.get("/activity", params=params)
    assert response.status_code == 200, response.text
    return response.json()["entries"]


async def test_cursor_paging_walks_every_entry_newest_first_without_repeats(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(60):
        await plant(server, [entry(n % 5) for n in range(25)])  # equal times: ties broken by id
        seen: list[str] = []
        cursor = None
        while True:
            params = {"limit": 7, "category": "content"} | ({"cursor": cursor} if cursor else {})
            page = (await client.get("/activity", params=params)).json()
            seen += [e["id"] for e in page["entries"]]
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        whole = await entries(client, category="content", limit=200)
    assert seen == [e["id"] for e in whole] and len(seen) == 25
    ats = [e["at"] for e in whole]
    assert ats == sorted(ats, reverse=True)


async def test_a_tampered_cursor_or_one_from_other_filters_is_400(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(60):
        await plant(server, [entry(n) for n in range(3)])
        cursor = (await client.get("/activity", params={"limit": 1})).json()["nextCursor"]
        tampered = await client.get("/activity", params={"cursor": cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")})
        other = await client.get("/activity", params={"cursor": cursor, "category": "security"})
    for answer in (tampered, other):
        assert answer.status_code == 400 and answer.json()["params"]["field"] == "cursor"


async def test_default_limit_is_40_and_out_of_range_is_400(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(60):
        await plant(server, [entry(n) for n in range(45)])
        page = (await client.get("/activity")).json()
        bad = [await client.get("/activity", params={"limit": value}) for value in ("0", "201", "x")]
    assert len(page["entries"]) == 40 and "nextCursor" in page
    for answer in bad:
        assert answer.status_code == 400 and answer.json()["params"]["field"] == "limit"


async def test_filters_by_actor_category_and_target(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(60):
        await plant(
            server,
            [
                entry(1, actor_kind="member", actor_id="u1", category="security", action="user.login", target_kind="user", target_id="u1"),
                entry(2, actor_kind="member", actor_id="u2", category="security", action="user.login", target_kind="user", target_id="u2"),
                entry(3, category="settings", action="library.create", target_kind="library", target_id="L1"),
                entry(4, actor_kind="system", category="settings", action="server.start", target_kind="server"),
            ],
        )
        members = await entries(client, actorKind="member")
        one = await entries(client, actorUserId="u2")
        categories = await entries(client, category=["settings", "content"])
        target = await entries(client, targetKind="library", targetId="L1")
        kind_only = await entries(client, targetKind="user")
    assert [e["actor"]["userId"] for e in members] == ["u2", "u1"]
    assert [e["actor"]["userId"] for e in one] == ["u2"]
    assert {e["action"] for e in categories} >= {"library.create", "server.start"}
    assert all(e["category"] in ("settings", "content") for e in categories)
    assert [e["target"] for e in target] == [{"kind": "library", "id": "L1"}]
    assert len(kind_only) == 2


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"actorKind": "robot"}, "actorKind"),
        ({"category": ["settings", "gossip"]}, "category"),
        ({"targetKind": "planet"}, "targetKind"),
        ({"targetId": "L1"}, "targetId"),
        ({"from": "yesterday"}, "from"),
        ({"to": "2026-01-01T00:00:00"}, "to"),
        ({"actorKind": "apiKey", "actorUserId": "u1"}, "actorUserId"),
    ],
)
async def test_bad_filters_are_400_field_invalid_naming_the_parameter(
    shared_client: httpx.AsyncClient, params: dict, field: str
) -> None:
    with trio.fail_after(30):
        answer = await shared_client.get("/activity", params=params)
    assert answer.status_code == 400
    assert answer.json()["code"] == "field_invalid" and answer.json()["params"]["field"] == field


async def test_from_is_inclusive_and_to_exclusive_with_a_millisecond_round_trip(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(30):
        await plant(server, [ActivityRecord("library.scan", "content", "system", at_ms=T0 + n) for n in (0, 1, 2)])
        middle = (await entries(client, category="content"))[1]["at"]
        since = await entries(client, category="content", **{"from": middle})
        before = await entries(client, category="content", to=middle)
    assert middle.endswith(".001Z")
    assert [e["at"] for e in since][-1] == middle and len(since) == 2
    assert len(before) == 1 and before[0]["at"] < middle


async def test_the_done_when_story_is_readable_in_the_activity_log(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    """A member made with `reelhouse user add` signs in, is listed, loses access, is limited: all logged."""
    db = ["--data-dir", str(server.data_dir), "--database", server.database_url]
    with trio.fail_after(120):
        added = await run_cli([*db, "user", "add", "Gus", "--password-stdin"], stdin=f"{PASSWORD}\n".encode())
        assert added.returncode == 0, added.stderr
        changed = await run_cli([*db, "user", "set", "Gus", "--all-libraries", "--pin-stdin"], stdin=f"{PIN}\n".encode())
        assert changed.returncode == 0, changed.stderr
        assert (await run_cli([*db, "apikey", "create", "script"])).returncode == 0
        signed = await login(server, "Gus", password=PASSWORD, deviceId="tv")
        assert signed.status_code == 200
        device = (await client.get("/devices")).json()[0]
        assert (await client.delete(f"/devices/{device['id']}")).status_code == 204
        async with server.client(key=signed.json()["token"]) as player:
            assert (await player.get("/items")).status_code == 401
        for n in range(5):
            assert (await login(server, "Gus", password=f"guess {n}")).status_code == 401
        limited = await login(server, "Gus", password=PASSWORD)
        assert limited.status_code == 429 and "Retry-After" in limited.headers
        log = await entries(client, limit=200)
    actions = [e["action"] for e in reversed(log)]
    user_id = signed.json()["userId"]
    story = [a for a in actions if a != "server.start"]
    assert story[:4] == ["user.create", "user.update", "apikey.create", "user.login"]
    assert story[4] == "device.delete"
    assert story[5:] == ["user.login_failed"] * 6
    by_action = {e["action"]: e for e in log}
    assert by_action["user.create"]["actor"]["kind"] == "system"
    assert by_action["user.update"]["details"] == {"fields": ["pin", "allLibraries"]}
    assert by_action["user.login"]["actor"] == {"kind": "member", "userId": user_id, "name": "Gus"}
    assert by_action["user.login"]["category"] == "security" and by_action["user.login"]["remoteAddr"]
    assert by_action["device.delete"]["actor"]["kind"] == "apiKey" and by_action["device.delete"]["actor"]["apiKeyId"]
    assert log[0]["details"]["reason"] == "tooManyRequests"
    text = str(log)
    assert PASSWORD not in text and PIN not in text and signed.json()["token"] not in text
