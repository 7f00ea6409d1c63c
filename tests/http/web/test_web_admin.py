"""The administrator's console routes over real HTTP, on both backends: who may, keys, members,
sessionOnlyLogin, schedules' rules, plugins' secrets and backups, each as the command line does it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import trio

from ..conftest import RunningServer
from ..members import add_member, token_for

PASSWORD = "correct horse battery"
COOKIE = "reelhouse_session"


def _browser(server: RunningServer) -> httpx.AsyncClient:
    """A client as the console's own pages are: same Origin, cookies kept, no key."""
    return httpx.AsyncClient(base_url=server.base_url, headers={"Origin": server.base_url}, timeout=30.0)


@asynccontextmanager
async def _signed_in(server: RunningServer, name: str, *, admin: bool = False) -> AsyncIterator[httpx.AsyncClient]:
    """A new member ``name`` signed in to the console."""
    await add_member(server, name, password=PASSWORD, admin=admin, all_libraries=True)
    async with _browser(server) as browser:
        answer = await browser.post("/web/login", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        yield browser


async def _activity(server: RunningServer, action: str) -> list[dict[str, Any]]:
    async with server.client() as key:
        entries = (await key.get("/activity", params={"limit": 100})).json()["entries"]
    return [entry for entry in entries if entry["action"] == action]


async def test_only_an_administrator_signed_in_from_the_consoles_pages_reaches_the_admin_routes(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        async with _signed_in(server, "Root", admin=True) as root, _signed_in(server, "Ann") as ann:
            libraries = await root.get("/web/admin/api/libraries")
            page = await root.get("/web/admin/libraries")
            member = [await ann.get("/web/admin/api/libraries"), await ann.get("/web/admin/"),
                      await ann.post("/web/admin/keys", json={"name": "x"})]  # fmt: skip
            foreign = await root.post("/web/admin/keys", json={"name": "x"}, headers={"Origin": "http://evil.example"})
            not_admin_route = await root.get("/web/admin/api/items")
            api_with_cookie = await root.get("/api/v1/libraries")
            async with _browser(server) as nobody:
                anonymous = await nobody.get("/web/admin/api/libraries")
            bad_body = await root.post("/web/admin/api/libraries", json={"name": "Films"})
    assert libraries.status_code == 200 and libraries.json() == []
    assert page.status_code == 200 and "admin_libraries.js" in page.text
    assert [answer.status_code for answer in member] == [403, 403, 403]
    assert [member[0].json()["code"], member[2].json()["code"]] == ["forbidden", "forbidden"]
    assert "Only an administrator may do this." in member[1].text  # a page: the sentence
    assert foreign.status_code == 403 and foreign.json()["code"] == "forbidden_origin"
    assert not_admin_route.status_code == 404  # a player route is reached at /api/v1, not here
    assert api_with_cookie.status_code == 403  # the key-only API still refuses the cookie
    assert anonymous.status_code == 401
    assert bad_body.status_code == 400 and bad_body.json()["code"] == "field_required"  # the API's own validation


async def test_a_change_through_the_consoles_door_is_the_administrators_in_the_activity_log(
    server: RunningServer, tmp_path: Path
) -> None:
    with trio.fail_after(60):
        (tmp_path / "films").mkdir()
        async with _signed_in(server, "Root", admin=True) as root:
            made = await root.post("/web/admin/api/libraries", json={"name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies"})
        created = await _activity(server, "library.create")
    assert made.status_code in (200, 201), made.text
    assert [(entry["actor"]["kind"], entry["actor"].get("name")) for entry in created] == [("member", "Root")]


async def test_a_key_made_in_the_console_is_shown_once_works_and_stops_working_when_revoked(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        async with _signed_in(server, "Root", admin=True) as root:
            made = (await root.post("/web/admin/keys", json={"name": "scripts"})).json()
            listed = await root.get("/web/admin/keys/list")
            async with server.client(key=made["key"]) as script:
                before = await script.get("/libraries")
                revoked = await root.delete(f"/web/admin/keys/{made['id']}")
                after = await script.get("/libraries")
            again = await root.delete(f"/web/admin/keys/{made['id']}")
            empty = await root.post("/web/admin/keys", json={"name": ""})
        created = await _activity(server, "apikey.create")
    assert made["key"].startswith("rhk_") and made["name"] == "scripts"
    assert made["key"] not in listed.text and "scripts" in listed.text
    assert (before.status_code, revoked.status_code, after.status_code) == (200, 204, 401)
    assert again.status_code == 404 and again.json()["code"] == "not_found"
    assert empty.status_code == 400 and empty.json()["params"]["field"] == "name"
    assert [entry["actor"].get("name") for entry in created if entry["target"]["id"] == made["id"]] == ["Root"]


async def test_members_are_added_and_changed_and_session_only_login_ends_their_web_sign_ins(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        async with _signed_in(server, "Root", admin=True) as root:
            added = await root.post("/web/admin/members", json={"name": "Kid", "password": PASSWORD})
            async with _browser(server) as kid:
                await kid.post("/web/login", json={"name": "Kid", "password": PASSWORD})
                player = await token_for(server, "Kid", password=PASSWORD)
                before = await kid.get("/api/v1/items")
                changed = await root.patch("/web/admin/members/Kid", json={"sessionOnlyLogin": True, "pin": "2468"})
                after = await kid.get("/api/v1/items")
                again = await kid.post("/web/login", json={"name": "Kid", "pin": "2468"})
            async with server.client(key=player) as native:
                native_after = await native.get("/items")
            bad_pin = await root.patch("/web/admin/members/Kid", json={"pin": "12"})
            unknown = await root.patch("/web/admin/members/Nobody", json={"disabled": True})
        updates = await _activity(server, "user.update")
    assert added.status_code == 200 and added.json()["isAdmin"] is False
    assert before.status_code == 200 and after.status_code == 401  # turning it on ended the lasting cookie
    assert changed.json()["changed"] == ["pin", "sessionOnlyLogin"]
    assert again.status_code == 200 and "max-age" not in again.headers["set-cookie"].lower()  # a session cookie
    assert native_after.status_code == 200  # a player's sign-in is not a web one
    assert bad_pin.status_code == 400 and bad_pin.json()["params"]["field"] == "pin"
    assert unknown.status_code == 404
    assert "2468" not in str(updates) and updates[0]["details"]["fields"] == ["pin", "sessionOnlyLogin"]


async def test_schedule_rules_and_plugin_settings_are_checked_and_a_secret_is_never_shown_back(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        async with _signed_in(server, "Root", admin=True) as root:
            bad = await root.patch("/web/admin/schedules/library_scan", json={"rule": {"trigger": "cron", "cron": "x"}})
            good = await root.patch("/web/admin/schedules/library_scan",
                                    json={"rule": {"trigger": "interval", "everySeconds": 7200}})  # fmt: skip
            scan = await _schedule_once_changed(root, "library_scan")
            unknown_task = await root.patch("/web/admin/schedules/nothing", json={"paused": True})
            secret = await root.patch("/web/admin/plugins/tmdb", json={"settings": {"apiKey": "s3cret-v4-token"}})
            unknown_key = await root.patch("/web/admin/plugins/tmdb", json={"settings": {"colour": "blue"}})
            enabled = await root.patch("/web/admin/plugins/hello", json={"enabled": True})
            plugins = await _plugins_once_enabled(root, "hello")
        configured = await _activity(server, "plugin.configure")
    assert bad.status_code == 400 and bad.json()["code"] == "schedule_cron_invalid"
    assert good.status_code == 204
    assert scan["rules"][0]["everySeconds"] == 7200
    assert unknown_task.status_code == 404
    assert secret.status_code == 204 and unknown_key.status_code == 400 and enabled.status_code == 204
    assert "s3cret-v4-token" not in plugins.text and "s3cret-v4-token" not in str(configured)


async def _schedule_once_changed(root: httpx.AsyncClient, task: str) -> dict[str, Any]:
    """The task's schedule once the scheduler took the new rule (it polls the schedule revision)."""
    while True:
        schedules = (await root.get("/web/admin/api/admin/schedules")).json()["schedules"]
        found: dict[str, Any] = next(s for s in schedules if s["task"] == task)
        if not found["isDefault"]:
            return found
        await trio.sleep(0.2)


async def _plugins_once_enabled(root: httpx.AsyncClient, plugin_id: str) -> httpx.Response:
    """The plugin list once the server took the change (it watches the plugin catalog)."""
    while True:
        plugins = await root.get("/web/admin/api/plugins/installed")
        if next(p for p in plugins.json() if p["id"] == plugin_id)["enabled"]:
            return plugins
        await trio.sleep(0.2)


async def test_a_backup_made_from_the_console_is_listed(server: RunningServer) -> None:
    with trio.fail_after(120):
        async with _signed_in(server, "Root", admin=True) as root:
            made = await root.post("/web/admin/backups")
            listed = (await root.get("/web/admin/backups/list")).json()["items"]
    assert made.status_code == 200, made.text
    assert [backup["name"] for backup in listed] == [made.json()["name"]]
