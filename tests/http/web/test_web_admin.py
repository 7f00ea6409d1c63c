"""The administrator's console routes over real HTTP, on both backends: who may, keys, members,
sessionOnlyLogin, schedules' rules, plugins' secrets and backups, each as the command line does it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio

from reelhouse.storage import plugin_catalog as catalog

from ...actors.plugins.factory import make_plugin
from ..conftest import RunningServer
from ..members import token_for
from .console import PASSWORD, browser, signed_in


async def _activity(server: RunningServer, action: str) -> list[dict[str, Any]]:
    async with server.client() as key:
        entries = (await key.get("/activity", params={"limit": 100})).json()["entries"]
    return [entry for entry in entries if entry["action"] == action]


async def test_only_an_administrator_signed_in_from_the_consoles_pages_reaches_the_admin_routes(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        async with signed_in(server, "Root", admin=True) as root, signed_in(server, "Ann") as ann:
            libraries = await root.get("/web/admin/api/libraries")
            page = await root.get("/web/admin/libraries")
            member = [await ann.get("/web/admin/api/libraries"), await ann.get("/web/admin/"),
                      await ann.post("/web/admin/keys", json={"name": "x"})]  # fmt: skip
            foreign = await root.post("/web/admin/keys", json={"name": "x"}, headers={"Origin": "http://evil.example"})
            not_admin_route = await root.get("/web/admin/api/items")
            api_with_cookie = await root.get("/api/v1/libraries")
            async with browser(server) as nobody:
                anonymous = await nobody.get("/web/admin/api/libraries")
            bad_body = await root.post("/web/admin/api/libraries", json={"name": "Films"})
            item_pages = [await root.get("/web/item/anything"), await ann.get("/web/item/anything")]
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
    assert ["admin_item.js" in page.text for page in item_pages] == [True, False]  # refresh, rescan, identify


async def test_a_change_through_the_consoles_door_is_the_administrators_in_the_activity_log(
    server: RunningServer, tmp_path: Path
) -> None:
    with trio.fail_after(60):
        (tmp_path / "films").mkdir()
        async with signed_in(server, "Root", admin=True) as root:
            made = await root.post("/web/admin/api/libraries", json={"name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies"})
        created = await _activity(server, "library.create")
    assert made.status_code in (200, 201), made.text
    assert [(entry["actor"]["kind"], entry["actor"].get("name")) for entry in created] == [("member", "Root")]


async def test_a_key_made_in_the_console_is_shown_once_works_and_stops_working_when_revoked(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        async with signed_in(server, "Root", admin=True) as root:
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
        async with signed_in(server, "Root", admin=True) as root:
            added = await root.post("/web/admin/members", json={"name": "Kid", "password": PASSWORD})
            async with browser(server) as kid:
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
        async with signed_in(server, "Root", admin=True) as root:
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
        async with signed_in(server, "Root", admin=True) as root:
            made = await root.post("/web/admin/backups")
            listed = (await root.get("/web/admin/backups/list")).json()["items"]
    assert made.status_code == 200, made.text
    assert [backup["name"] for backup in listed] == [made.json()["name"]]


async def test_the_upkeep_collections_and_people_routes_open_through_the_consoles_door(server: RunningServer) -> None:
    with trio.fail_after(60):
        async with signed_in(server, "Root", admin=True) as root:
            status = (await root.get("/web/admin/api/system/status")).json()
            cleared = await root.post("/web/admin/api/system/caches/images/clear")
            unknown = await root.post("/web/admin/api/system/caches/nothing/clear")
            update = await root.get("/web/admin/api/system/update")
            jobs = [await root.post("/web/admin/api/collections/fill"), await root.post("/web/admin/api/people/source-refetch")]
        entries = await _activity(server, "system.cache_clear")
    assert [c["clearable"] for c in status["caches"] if c["name"] == "images"] == [True]
    assert cleared.status_code == 200 and cleared.json()["name"] == "images" and cleared.json()["fileCount"] == 0
    assert unknown.status_code == 404
    assert update.status_code == 200 and "enabled" in update.json()
    assert [job.status_code for job in jobs] == [202, 202]
    assert [entry["actor"].get("name") for entry in entries] == ["Root"]


async def test_a_parental_rule_is_set_with_windows_as_the_command_line_writes_them_and_cleared(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        async with signed_in(server, "Root", admin=True) as root:
            await root.post("/web/admin/members", json={"name": "Kid"})
            rule = {"maxAge": 12, "blockedGenres": [" Horror "], "dailyLimitMinutes": 90, "windows": ["1-5 16:00-20:30"]}
            set_ = await root.patch("/web/admin/members/Kid", json={"parental": rule})
            kid = await _member(root, "Kid")
            narrower = await root.patch("/web/admin/members/Kid", json={"parental": {"maxAge": 7}})
            kept = await _member(root, "Kid")
            bad_window = await root.patch("/web/admin/members/Kid", json={"parental": {"windows": ["8 16:00-20:00"]}})
            bad_age = await root.patch("/web/admin/members/Kid", json={"parental": {"maxAge": 13}})
            both = await root.patch("/web/admin/members/Kid", json={"parental": {"maxAge": 7}, "clearParental": True})
            cleared = await root.patch("/web/admin/members/Kid", json={"clearParental": True})
            after = await _member(root, "Kid")
    assert set_.status_code == 200 and set_.json()["changed"] == ["parental"]
    assert kid["policy"]["parental"] == {
        "maxAge": 12, "blockedTags": [], "blockedGenres": ["horror"], "blockedItems": [], "allowedItems": [],
        "dailyLimitMinutes": 90, "windows": [{"days": [1, 2, 3, 4, 5], "startMinute": 960, "endMinute": 1230}],
    }  # fmt: skip
    assert narrower.status_code == 200  # one field over the rule as it is, as `user set --max-age` does
    assert kept["policy"]["parental"]["maxAge"] == 7 and kept["policy"]["parental"]["dailyLimitMinutes"] == 90
    assert bad_window.status_code == 400 and bad_window.json()["params"]["field"] == "parental.windows"
    assert bad_age.status_code == 400 and bad_age.json()["params"]["field"] == "parental.maxAge"
    assert both.status_code == 400 and both.json()["params"]["field"] == "clearParental"
    assert cleared.json()["changed"] == ["parental"] and "parental" not in after["policy"]


async def _member(root: httpx.AsyncClient, name: str) -> dict[str, Any]:
    users: list[dict[str, Any]] = (await root.get("/web/admin/api/users")).json()
    return next(user for user in users if user["name"] == name)


async def test_a_plugin_is_installed_from_a_folder_on_the_server_and_removed_keeping_its_settings(
    server: RunningServer, tmp_path: Path
) -> None:
    with trio.fail_after(60):
        source = make_plugin(tmp_path / "sources", "demo", extra=SETTING)
        (tmp_path / "empty").mkdir()
        async with signed_in(server, "Root", admin=True) as root:
            installed = await root.post("/web/admin/plugins", json={"directory": str(source)})
            configured = await root.patch("/web/admin/plugins/demo", json={"settings": {"apiKey": "k-secret"}})
            listed = await _plugin_once(root, "demo", lambda p: p["status"] != "not_installed")
            not_a_plugin = await root.post("/web/admin/plugins", json={"directory": str(tmp_path / "empty")})
            relative = await root.post("/web/admin/plugins", json={"directory": "plugins/demo"})
            removed = await root.delete("/web/admin/plugins/demo")
            gone = await _plugin_once(root, "demo", lambda p: p["status"] == "not_installed")
            bundled = await root.delete("/web/admin/plugins/hello")
            unknown = await root.delete("/web/admin/plugins/nothing")
        installs = await _activity(server, "plugin.install")
    assert installed.status_code == 200 and installed.json() == {"id": "demo", "version": "1.0.0"}
    assert configured.status_code == 204 and listed["version"] == "1.0.0"
    assert not_a_plugin.status_code == 400 and not_a_plugin.json()["params"]["field"] == "directory"
    assert relative.status_code == 400 and relative.json()["code"] == "path_not_absolute"
    assert removed.status_code == 204 and gone["status"] == "not_installed"
    assert catalog.load_states(server.data_dir)["demo"].settings == {"apiKey": "k-secret"}  # kept, as the CLI keeps them
    assert not (catalog.plugins_dir(server.data_dir) / "demo").exists()
    assert bundled.status_code == 409 and bundled.json()["code"] == "plugin_builtin"
    assert unknown.status_code == 404
    assert [entry["actor"].get("name") for entry in installs] == ["Root"]


SETTING = '[[settings]]\nkey = "apiKey"\nrequired = true\nsecret = true\n'


async def _plugin_once(root: httpx.AsyncClient, plugin_id: str, ready: Any) -> dict[str, Any]:
    """The plugin as the list shows it, once the server took the change (it watches the catalog)."""
    while True:
        found = [p for p in (await root.get("/web/admin/api/plugins/installed")).json() if p["id"] == plugin_id]
        if found and ready(found[0]):
            return found[0]
        await trio.sleep(0.2)
