"""GET /plugins/installed over a real socket, with real plugin processes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.media.durations import MAX_WAIT_SECONDS
from reelhouse.storage import plugin_catalog
from tests.actors.plugins.factory import make_plugin
from tests.actors.scrape.providers import candidate
from tests.media_factory import MediaFactory

from .conftest import RunningServer, start_server
from .scanning import create_library
from .scrape_support import items_by_name, server_with_provider, wait_for_job

CAP_S = 60
LOCALIZED = '''description = "Says things"
homepage = "https://example.org/p"
author = "Someone"
capabilities = ["metadata.movie", "images"]
permissions = ["network.lan"]
features = ["zeta", "alpha"]
idle_seconds = 0.5
[names]
fr = "Bavard"
zh-CN = "话多"
[descriptions]
fr = "Dit des choses"
[[settings]]
key = "apiKey"
required = true
secret = true
[[tasks]]
name = "sync"
names = { en = "Sync", fr = "Synchroniser" }
'''


@pytest.fixture
async def plugin_server(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> AsyncIterator[RunningServer]:
    data_dir = tmp_path / "data"
    plugins = plugin_catalog.plugins_dir(data_dir)
    make_plugin(tmp_path / "src", "chatty", extra=LOCALIZED)
    plugin_catalog.install(data_dir, tmp_path / "src" / "chatty")
    make_plugin(plugins, "old", protocol=1)
    running = await start_server(nursery, database_url, data_dir)
    yield running
    running.shutdown.set()


async def _plugins(client: httpx.AsyncClient, **params: str) -> dict[str, dict]:
    response = await client.get("/plugins/installed", params=params)
    assert response.status_code == 200, response.text
    return {plugin["id"]: plugin for plugin in response.json()}


async def test_installed_plugins_show_every_field_with_texts_in_the_asked_language(plugin_server: RunningServer) -> None:
    with trio.fail_after(CAP_S):
        async with plugin_server.client() as client:
            plugins = await _plugins(client, lang="fr")
            chatty = plugins["chatty"]
            assert chatty["name"] == "Bavard" and chatty["description"] == "Dit des choses"
            assert chatty["status"] == "needs_configuration"
            assert chatty["missingRequired"] == ["apiKey"] and chatty["configured"] is False
            assert chatty["paidFeatures"] == [{"feature": "alpha", "entitled": False},
                                              {"feature": "zeta", "entitled": False}]
            assert chatty["licenseRequired"] is True
            assert chatty["capabilities"] == ["metadata.movie", "images"]
            assert chatty["permissions"] == ["network.lan"]
            assert chatty["tasks"][0]["task"] == "chatty.sync"
            assert chatty["tasks"][0]["names"]["en"] == "Sync"
            for field in ("version", "catalog", "enabled", "needsAttention", "official", "bundled", "extension",
                          "features", "allowedPermissions", "concurrency", "protocol", "installedAt", "updatedAt",
                          "stats", "homepage", "author"):
                assert field in chatty, field
            assert {s["code"] for s in chatty["stats"]} >= {"calls", "errors"}
            assert plugins["old"]["status"] == "incompatible"
            assert plugins["hello"]["bundled"] is True and plugins["hello"]["bundledVersion"] == "1.0.0"
            assert plugins["hello"]["status"] == "disabled"  # an example: off until enabled
            # English when the language is missing; Accept-Language in the chain after lang.
            english = await _plugins(client, lang="de")
            assert english["chatty"]["name"] == "Test chatty"
            chinese = await _plugins(client)
            response = await client.get("/plugins/installed", headers={"Accept-Language": "zh-CN,en;q=0.5"})
            assert {p["id"]: p["name"] for p in response.json()}["chatty"] == "话多"
            assert chinese["chatty"]["name"] == "Test chatty"


async def test_more_than_eight_languages_is_400(plugin_server: RunningServer) -> None:
    with trio.fail_after(CAP_S):
        async with plugin_server.client() as client:
            response = await client.get("/plugins/installed", params={"lang": ",".join(["en"] * 9)})
            assert response.status_code == 400
            assert response.json()["params"]["field"] == "lang"
            ok = await client.get("/plugins/installed", params={"lang": ",".join(["en"] * 8)})
            assert ok.status_code == 200


async def test_install_enable_and_configure_are_refused_over_the_api_and_change_nothing(
    plugin_server: RunningServer,
) -> None:
    with trio.fail_after(CAP_S):
        async with plugin_server.client() as client:
            before = await _plugins(client)
            for method, path in [("POST", "/plugins/installed"), ("POST", "/plugins/install"),
                                 ("POST", "/plugins/installed/chatty/enable"),
                                 ("PUT", "/plugins/installed/chatty/settings"),
                                 ("DELETE", "/plugins/installed/chatty")]:
                response = await client.request(method, path, json={"apiKey": "x"})
                assert response.status_code in (403, 405), (method, path)
                assert response.json()["code"] in ("admin_only", "forbidden", "bad_request")
            assert await _plugins(client) == before


async def test_a_change_from_the_command_line_reaches_the_running_server(plugin_server: RunningServer) -> None:
    with trio.fail_after(CAP_S):
        async with plugin_server.client() as client:
            plugin_catalog.update_state(plugin_server.data_dir, "chatty", settings={"apiKey": "secret-value"})
            while (await _plugins(client))["chatty"]["status"] != "idle":
                await trio.sleep(0.2)
            response = await client.get("/plugins/installed")
            assert "secret-value" not in response.text


async def test_the_command_line_installs_configures_disables_and_removes_for_a_running_server(
    server: RunningServer, tmp_path: Path,
) -> None:
    from reelhouse.storage import open_store
    from reelhouse.storage.activity import list_activity
    from tests.server_process import clean_environ, run_cli

    source = make_plugin(tmp_path / "src", "needy", extra='[[settings]]\nkey = "apiKey"\nrequired = true\n')
    options = ["--data-dir", str(server.data_dir), "--database", server.database_url]

    async def cli(*args: str) -> str:
        done = await run_cli([*args, *options], env=clean_environ())
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode()

    async def status(client: httpx.AsyncClient, wanted: str) -> dict:
        with trio.fail_after(CAP_S):
            while (plugin := (await _plugins(client)).get("needy", {})).get("status") != wanted:
                await trio.sleep(0.2)
        return plugin

    # Each step has its own cap (run_cli's and status's): nine command-line
    # processes under a loaded machine do not fit one minute together.
    with trio.fail_after(CAP_S * 12):
        async with server.client() as client:
            await cli("plugin", "install", str(source))
            assert (await status(client, "needs_configuration"))["missingRequired"] == ["apiKey"]
            await cli("plugin", "set", "needy", "apiKey=top-secret")
            await status(client, "idle")
            await cli("plugin", "disable", "needy")
            assert (await status(client, "disabled"))["disableReason"] == "manual"
            await cli("plugin", "enable", "needy")
            await status(client, "idle")
            await cli("plugin", "set", "needy", "--concurrency", "3")
            while (plugin := await status(client, "idle")).get("concurrencyOverride") != 3:
                await trio.sleep(0.2)
            assert plugin["concurrency"] == 3
            listing = await cli("plugin", "list")
            assert "needy\t1.0.0\tenabled\tinstalled" in listing and "top-secret" not in listing
            bad = await run_cli(["plugin", "set", "needy", "nokey=1", *options], env=clean_environ())
            assert bad.returncode == 2  # an unknown setting is refused
            await cli("plugin", "remove", "needy")
            await status(client, "not_installed")
    async with open_store(server.database_url) as store:
        entries = [e for e in await list_activity(store, 50) if e.target_kind == "plugin"]
    assert sorted(e.action for e in entries) == sorted(
        ["plugin.install", "plugin.configure", "plugin.disable", "plugin.enable", "plugin.configure",
         "plugin.remove"])
    assert all("top-secret" not in str(e.details) for e in entries)
    assert sorted(e.details["keys"][0] for e in entries if e.action == "plugin.configure") == [
        "apiKey", "concurrencyOverride"]


async def test_an_absurd_retry_after_pauses_a_day_at_most_and_the_plugin_list_still_answers(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory,
) -> None:
    catalogue = {"search": {"movie|Heat": [candidate("949", "Heat", 0.5, 1995)]}, "rateLimit": 1e30}
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, catalogue)
    media.video(tmp_path / "films" / "Heat (1995)" / "Heat (1995).mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [tmp_path / "films"])
            paused = await wait_for_job(client, library["id"], state="paused")
            plugin = (await _plugins(client))["test"]
            heat = (await items_by_name(client, library["id"]))["Heat"]
            identify = await client.post(f"/items/{heat['id']}/identify", json={"query": "Heat"})
    latest = datetime.now(UTC) + timedelta(seconds=MAX_WAIT_SECONDS + 60)
    assert paused["messageCode"] == "rateLimited"
    assert datetime.fromisoformat(paused["messageParams"]["retryAt"]) <= latest
    assert plugin["lastErrorCode"] == "rate_limited"
    assert datetime.fromisoformat(plugin["pausedUntil"]) <= latest
    assert identify.json()["code"] == "plugin_rate_limited"
    assert identify.headers["Retry-After"] == str(int(MAX_WAIT_SECONDS))
    assert identify.json()["params"]["retryAfterSeconds"] == MAX_WAIT_SECONDS
    server.shutdown.set()
