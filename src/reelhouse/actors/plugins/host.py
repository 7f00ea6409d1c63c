"""PluginHost: the supervisor of every plugin, one PluginActor each.

It reads the catalog (``storage/plugin_catalog.py``) at start and again
whenever its fingerprint changes (polled every ``poll_seconds``: the
server passes ``[schedule] reload_poll_seconds``), so
``reelhouse plugin install|enable|disable|set|remove`` reach a running
server without a restart. It tells each plugin to check its idle time
every :data:`IDLE_TICK_SECONDS`.

A plugin's process is contained: a crash, a hang or a flood ends that
process and is counted by that plugin's actor; the host and the server
carry on. Asks:

- :class:`ListPlugins` -> ``list[PluginView]`` sorted by id
- :class:`PluginInfos` -> ``list[PluginInfo]`` (what library settings check)
- :class:`ListTasks` -> ``list[PluginTaskInfo]`` of enabled plugins
- :class:`ReadCatalog` -> None, once the catalog was read again (the web
  console's changes are then listed at once, not at the next poll)
- :class:`GetPlugin` -> the plugin's ActorRef (ask it :class:`Acquire`);
  :func:`call_plugin` and :func:`run_task` wrap that for callers.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import trio

from reelhouse import errors
from reelhouse.media.library_options import PluginInfo
from reelhouse.media.plugin_manifest import TaskSpec
from reelhouse.runtime import ActorRef, Ask, ChildSpec, Supervisor
from reelhouse.storage.plugin_catalog import BUNDLED_DIR, PluginCatalogError, PluginEntry, discover, fingerprint

from .connection import ConnectionClosed, PluginConnection, PluginNotRunning
from .plugin_actor import Acquire, Describe, HostConfig, IdleCheck, PluginActor, PluginView, Reconfigure, Startup
from .stats import PluginStats

POLL_SECONDS: Final = 2.0
IDLE_TICK_SECONDS: Final = 1.0  # a plugin idle past its idle_seconds stops within a second of it
ASK_TIMEOUT_S: Final = 15.0  # covers a cold start's handshake

_log = logging.getLogger("reelhouse.plugins")


@dataclass(frozen=True, slots=True)
class ListPlugins(Ask["list[PluginView]"]):
    pass


@dataclass(frozen=True, slots=True)
class PluginInfos(Ask["list[PluginInfo]"]):
    pass


@dataclass(frozen=True, slots=True)
class ListTasks(Ask["list[PluginTaskInfo]"]):
    pass


@dataclass(frozen=True, slots=True)
class ReadCatalog(Ask[None]):
    pass


@dataclass(frozen=True, slots=True)
class GetPlugin(Ask[ActorRef]):
    plugin_id: str


@dataclass(frozen=True, slots=True)
class PluginTaskInfo:
    """A plugin task the scheduler runs as ``key`` (``pluginId.taskName``)."""

    plugin_id: str
    task: TaskSpec

    @property
    def key(self) -> str:
        return f"{self.plugin_id}.{self.task.name}"


class PluginHost(Supervisor):
    def __init__(self, config: HostConfig, *, bundled_dir: Any = BUNDLED_DIR, poll_seconds: float = POLL_SECONDS,
                 idle_tick_seconds: float = IDLE_TICK_SECONDS) -> None:
        # A PluginActor that raises is a bug in the host, not the plugin's
        # process (whose faults are handled inside it): restart it, a few times.
        super().__init__(max_restarts=10, window=60.0)
        self._config = config
        self._bundled_dir = bundled_dir
        self._poll_seconds = poll_seconds
        self._idle_tick = idle_tick_seconds
        self._entries: dict[str, PluginEntry] = {}
        self._stats: dict[str, PluginStats] = {}
        self._fingerprint: tuple[Any, ...] | None = None

    async def on_start(self) -> None:
        await super().on_start()
        await self._rescan()
        self.nursery.start_soon(self._poll)
        self.nursery.start_soon(self._tick_idle)

    async def handle(self, msg: object) -> object:
        match msg:
            case ListPlugins():
                return await self._views()
            case PluginInfos():
                return [_info(view) for view in await self._views() if view.entry.manifest is not None]
            case ListTasks():
                return [PluginTaskInfo(view.entry.id, task) for view in await self._views()
                        if view.enabled and view.entry.manifest for task in view.entry.manifest.tasks]
            case ReadCatalog():
                await self._rescan()
                return None
            case GetPlugin(plugin_id=plugin_id):
                ref = self.child(_child_name(plugin_id))
                if ref is None:
                    raise errors.NotFound(f"No plugin {plugin_id}.", params={"pluginId": plugin_id})
                return ref
            case _:
                raise TypeError(f"unexpected message {msg!r}")

    async def _views(self) -> list[PluginView]:
        views = []
        for plugin_id in sorted(self._entries):
            ref = self.child(_child_name(plugin_id))
            if ref is not None:
                views.append(await ref.ask(Describe(), timeout=ASK_TIMEOUT_S))
        return views

    async def _rescan(self) -> None:
        try:
            mark = await trio.to_thread.run_sync(fingerprint, self._config.data_dir, self._bundled_dir)
            if mark == self._fingerprint:
                return
            entries = await trio.to_thread.run_sync(discover, self._config.data_dir, self._bundled_dir)
        except (OSError, PluginCatalogError) as exc:
            _log.error("plugins: the catalog cannot be read: %s", exc)
            return
        self._fingerprint = mark
        await self._reconcile({entry.id: entry for entry in entries})

    async def _reconcile(self, entries: Mapping[str, PluginEntry]) -> None:
        for plugin_id in set(self._entries) - set(entries):
            await self.stop_child(_child_name(plugin_id))
            del self._entries[plugin_id]
        for plugin_id, entry in entries.items():
            old = self._entries.get(plugin_id)
            self._entries[plugin_id] = entry
            ref = self.child(_child_name(plugin_id))
            if ref is None:
                stats = self._stats.setdefault(plugin_id, PluginStats(plugin_id))
                await self.start_child(ChildSpec(_child_name(plugin_id), self._factory(plugin_id, stats)))
            elif old != entry:
                await ref.tell(Reconfigure(entry))

    def _factory(self, plugin_id: str, stats: PluginStats) -> Any:
        return lambda: PluginActor(self._entries[plugin_id], self._config, stats)

    async def _poll(self) -> None:
        while True:
            await trio.sleep(self._poll_seconds)
            await self._rescan()

    async def _tick_idle(self) -> None:
        while True:
            await trio.sleep(self._idle_tick)
            for plugin_id in list(self._entries):
                ref = self.child(_child_name(plugin_id))
                if ref is not None:
                    ref.try_tell(IdleCheck())


def _child_name(plugin_id: str) -> str:
    return f"plugin-{plugin_id}"


def _info(view: PluginView) -> PluginInfo:
    manifest = view.entry.manifest
    assert manifest is not None
    return PluginInfo(id=view.entry.id, enabled=view.enabled and view.entry.installed,
                      capabilities=frozenset(manifest.capabilities), configured=not view.missing_required)


# -- for callers -------------------------------------------------------------------


async def acquire(host: ActorRef, plugin_id: str) -> PluginConnection:
    plugin: ActorRef = await host.ask(GetPlugin(plugin_id), timeout=ASK_TIMEOUT_S)
    startup: Startup = await plugin.ask(Acquire(), timeout=ASK_TIMEOUT_S)
    with trio.move_on_after(ASK_TIMEOUT_S):
        return await startup.connection()
    raise PluginNotRunning(plugin_id, "starting")


async def call_plugin(host: ActorRef, plugin_id: str, method: str, params: Any = None, *,
                      timeout: float | None = None) -> Any:
    """Call ``method`` on the plugin, starting its process if it is idle.

    ``timeout`` defaults to the manifest's ``timeout_seconds``. Raises
    PluginNotRunning, PluginCallError, NotFound. Cancelling the caller
    cancels the call (the plugin gets ``$/cancel``).
    """
    for attempt in range(2):
        connection = await acquire(host, plugin_id)
        try:
            return await connection.call(method, params, timeout=timeout)
        except ConnectionClosed:
            if attempt:  # stopped for idleness between acquire and send: once more
                raise
    raise AssertionError("unreachable")


async def run_task(host: ActorRef, key: str) -> Any:
    """Run the plugin task ``pluginId.taskName`` (the scheduler's entry point)."""
    plugin_id, _, task = key.partition(".")
    return await call_plugin(host, plugin_id, "task.run", {"task": task})
