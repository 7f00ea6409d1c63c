"""The issue's "done when": a plugin's life as GET /plugins/installed shows it,
on a real server, with real plugin processes; the server stays healthy."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse import server as server_module
from reelhouse.actors.plugins import PluginCallError, PluginNotRunning, call_plugin
from reelhouse.storage import plugin_catalog
from tests.actors.plugins.factory import make_plugin, processes_under

from .conftest import start_server

CAP_S = 90


@pytest.fixture
def trees(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The actor trees of servers started in this test (to call plugins as the server would)."""
    captured: list[Any] = []
    real = server_module.open_actor_tree

    @asynccontextmanager
    async def capturing(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with real(*args, **kwargs) as tree:
            captured.append(tree)
            yield tree

    monkeypatch.setattr(server_module, "open_actor_tree", capturing)
    yield captured


async def _status(client: httpx.AsyncClient, plugin_id: str) -> dict[str, Any]:
    response = await client.get("/plugins/installed")
    assert response.status_code == 200, response.text
    return next(p for p in response.json() if p["id"] == plugin_id)


async def _wait(client: httpx.AsyncClient, plugin_id: str, status: str) -> dict[str, Any]:
    while (plugin := await _status(client, plugin_id))["status"] != status:
        await trio.sleep(0.1)
    return plugin


async def test_installed_then_configured_running_idle_and_crash_disabled_while_the_server_stays_healthy(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, trees: list[Any],
) -> None:
    data_dir = tmp_path / "data"
    plugin_catalog.install(data_dir, make_plugin(
        tmp_path / "src", "needy", extra='idle_seconds = 0.5\n[[settings]]\nkey = "apiKey"\nrequired = true\n'))
    plugin_catalog.install(data_dir, make_plugin(tmp_path / "src", "crashy", "crash"))
    running = await start_server(nursery, database_url, data_dir)
    host = trees[0].plugins
    with trio.fail_after(CAP_S):
        async with running.client() as client:
            assert (await _status(client, "needy"))["status"] == "needs_configuration"
            plugin_catalog.update_state(data_dir, "needy", settings={"apiKey": "k"})
            await _wait(client, "needy", "idle")
            assert await call_plugin(host, "needy", "echo", {"a": 1}) == {"a": 1}
            plugin = await _status(client, "needy")
            assert plugin["status"] == "running"
            assert {s["code"]: s["value"] for s in plugin["stats"]}["calls"] == 1
            await _wait(client, "needy", "idle")  # after its idle time
            while (await _status(client, "crashy"))["status"] != "crash_disabled":
                try:
                    await call_plugin(host, "crashy", "echo", 1)
                except (PluginCallError, PluginNotRunning):
                    await trio.sleep(0.2)
            crashy = await _status(client, "crashy")
            assert (crashy["enabled"], crashy["disableReason"], crashy["lastErrorCode"]) == (False, "crash", "crashed")
            assert crashy["needsAttention"] is True
            health = await client.get("/system/status")
            assert health.status_code == 200
    running.shutdown.set()
    with trio.fail_after(CAP_S):
        while processes_under(tmp_path):
            await trio.sleep(0.1)
