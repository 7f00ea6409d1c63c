"""The PluginHost the plugin tests run against: real processes, nothing left behind."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from reelhouse.actors.plugins import HostConfig, ListPlugins, PluginHost, PluginView, call_plugin
from reelhouse.media.plugin_policy import CrashPolicy
from reelhouse.runtime import ActorRef, ChildSpec, RootActor
from reelhouse.storage import plugin_catalog

from .factory import FAST_POLL_SECONDS, host_caught_up, processes_under, zombie_children

CAP_S = 30


@dataclass
class Host:
    ref: ActorRef
    data_dir: Path
    plugins: Path
    root: RootActor

    async def stop(self) -> None:
        """Stop the host as a server's shutdown does (the fixture's own stop is then a no-op)."""
        await self.root.stop(timeout=10)

    async def view(self, plugin_id: str) -> PluginView:
        views = await self.ref.ask(ListPlugins(), timeout=10)
        return next(v for v in views if v.entry.id == plugin_id)

    async def status(self, plugin_id: str) -> str:
        return (await self.view(plugin_id)).status

    async def rescan(self) -> None:
        """Wait until the host's poll has seen what the test changed in the catalog."""
        await host_caught_up(self.ref, self.data_dir, None)

    async def call(self, plugin_id: str, method: str, params: object = None, **kwargs: float) -> object:
        return await call_plugin(self.ref, plugin_id, method, params, **kwargs)

    async def wait_view(self, plugin_id: str, predicate: Callable[[PluginView], bool]) -> PluginView:
        """The view once ``predicate`` holds (a process's end reaches its actor as a message)."""
        while not predicate(view := await self.view(plugin_id)):
            await trio.sleep(0.05)
        return view

    async def wait_status(self, plugin_id: str, wanted: str) -> None:
        while (status := await self.status(plugin_id)) != wanted:
            await trio.sleep(0.05)
        assert status == wanted


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    data_dir = tmp_path / "data"
    plugins = plugin_catalog.plugins_dir(data_dir)
    plugins.mkdir(parents=True)
    config = HostConfig(data_dir=data_dir, server_version="test",
                        policy=CrashPolicy(max_crashes=3, window=60, base=0.05, cap=0.2), idle_seconds=None)
    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as nursery:
            root = RootActor([ChildSpec("plugins", lambda: PluginHost(
                config, bundled_dir=None, poll_seconds=FAST_POLL_SECONDS, idle_tick_seconds=0.1))])
            await nursery.start(root.run)
            ref = root.child("plugins")
            assert ref is not None
            yield Host(ref, data_dir, plugins, root)
            await root.stop(timeout=10)
    # Nothing outlives the host: no orphan, no zombie.
    assert processes_under(tmp_path) == []
    assert zombie_children(os.getpid()) == []
