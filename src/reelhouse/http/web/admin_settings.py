"""Schedules' rules and plugins from the console: what ``reelhouse schedule`` and ``plugin`` do (the
reference leaves these to the admin console), through the same store and catalog (backups: admin_backups.py).

A rule is checked by ``media/schedule.parse_rule`` (its error codes:
``schedule_cron_invalid`` and the others) and written with a bump of the
schedule revision, which the scheduler polls.  A plugin's settings are
never answered back: the plugin list (``GET /web/admin/api/plugins/installed``)
says which are set, not their values.  A plugin is installed from a folder
on the server, as the command line does; the page cannot upload one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from pydantic import BaseModel, ConfigDict, Field
from quart import Response
from quart_schema import hide

from reelhouse import errors
from reelhouse.actors.plugins import ReadCatalog
from reelhouse.media.schedule import CORE_TASKS, RuleError, parse_rule
from reelhouse.storage import now_ms
from reelhouse.storage import plugin_catalog as catalog
from reelhouse.storage import schedules as stored

from ..activity_recording import log_activity
from ..asks import ask
from ..context import app_context
from .admin_gate import require_admin
from .blueprint import blueprint
from .forms import parse_body


class ScheduleChange(BaseModel):
    """One rule (as the API shows it: trigger, cron, everySeconds, window, afterScan), or a flag."""

    model_config = ConfigDict(extra="ignore")

    rule: dict[str, Any] | None = None
    paused: bool | None = None
    reset: bool = False


class PluginSource(BaseModel):
    model_config = ConfigDict(extra="ignore")

    directory: str = Field(min_length=1, max_length=4096, description="A folder on the server holding plugin.toml.")


class PluginChange(BaseModel):
    model_config = ConfigDict(extra="ignore")

    enabled: bool | None = None
    settings: dict[str, str] = Field(default_factory=dict, description="KEY: value; an empty value unsets.")


@blueprint.patch("/admin/schedules/<task>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def change_schedule(task: str) -> Response:
    """Set a task's rule, pause or resume it, or reset it to its default rules."""
    require_admin()
    data = await parse_body(ScheduleChange)
    store = app_context().store
    await stored.ensure_tasks(store, [(name, None, t.allows_after_scan) for name, t in CORE_TASKS.items()])
    row = (await stored.load_schedules(store)).get(task)
    if row is None:
        raise errors.NotFound(f"No task {task}.", params={"task": task})
    if data.rule is not None:
        try:
            rule = parse_rule(data.rule, allows_after_scan=row.allows_after_scan)
        except RuleError as error:
            raise errors.Invalid(error.message, code=error.code, field="rule") from None
        await stored.set_rules(store, task, (rule,))
    if data.reset:
        await stored.set_rules(store, task, None)
        await stored.set_paused(store, task, False)
    elif data.paused is not None:
        await stored.set_paused(store, task, data.paused)
    await log_activity("schedule.update", "settings", "schedule", task, task, {"fields": _fields(data)})
    return Response(b"", status=204)


def _fields(data: ScheduleChange) -> list[str]:
    return [name for name, given in (("rule", data.rule is not None), ("paused", data.paused is not None),
                                     ("reset", data.reset)) if given]  # fmt: skip


@blueprint.patch("/admin/plugins/<plugin_id>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def change_plugin(plugin_id: str) -> Response:
    """Enable or disable a plugin, or set its settings (only known keys; the values are never shown back)."""
    require_admin()
    data = await parse_body(PluginChange)
    data_dir = app_context().settings.data_dir
    entries = {e.id: e for e in await trio.to_thread.run_sync(catalog.discover, data_dir)}
    entry = entries.get(plugin_id)
    if entry is None:
        raise errors.NotFound(f"No plugin {plugin_id}.", params={"pluginId": plugin_id})
    if data.settings:
        known = {s.key for s in entry.manifest.settings} if entry.manifest is not None else set(data.settings)
        unknown = sorted(set(data.settings) - known)
        if unknown:
            raise errors.Invalid(f"{plugin_id} has no setting {', '.join(unknown)}.", field="settings")
        merged = {k: v for k, v in {**entry.state.settings, **data.settings}.items() if v != ""}
        await _catalog(catalog.update_state, data_dir, plugin_id, settings=merged)
        await log_activity("plugin.configure", "settings", "plugin", plugin_id, plugin_id,
                           {"keys": sorted(data.settings)})  # fmt: skip
    if data.enabled is not None:
        stamp: dict[str, Any] = {"enabled_at_ms": now_ms()} if data.enabled else {}
        await _catalog(catalog.update_state, data_dir, plugin_id, enabled=data.enabled, **stamp)
        await log_activity("plugin.enable" if data.enabled else "plugin.disable", "settings", "plugin",
                           plugin_id, plugin_id)  # fmt: skip
    return Response(b"", status=204)


@blueprint.post("/admin/plugins")
@hide  # the console, not the API: kept out of the OpenAPI document
async def install_plugin() -> dict[str, Any]:
    """Install (or update) the plugin in a folder on the server, as ``reelhouse plugin install DIR``."""
    require_admin()
    data = await parse_body(PluginSource)
    source = Path(data.directory)
    if not source.is_absolute():
        raise errors.Invalid(f"{data.directory} is not an absolute path.", code="path_not_absolute", field="directory")
    entry = await _catalog(catalog.install, app_context().settings.data_dir, source, field="directory")
    version = entry.manifest.version if entry.manifest else None
    await log_activity("plugin.install", "settings", "plugin", entry.id, entry.id, {"version": version})
    return {"id": entry.id, "version": version}


@blueprint.delete("/admin/plugins/<plugin_id>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def remove_plugin(plugin_id: str) -> Response:
    """Remove an installed plugin, as ``reelhouse plugin remove ID`` (its settings are kept)."""
    require_admin()
    data_dir = app_context().settings.data_dir
    entry = {e.id: e for e in await trio.to_thread.run_sync(catalog.discover, data_dir)}.get(plugin_id)
    if entry is None or entry.directory is None:
        raise errors.NotFound(f"No installed plugin {plugin_id}.", params={"pluginId": plugin_id})
    if entry.directory.parent != catalog.plugins_dir(data_dir):  # the package's own copy
        raise errors.Conflict(f"{plugin_id} comes with the server: it can be disabled, not removed.",
                              code="plugin_builtin", params={"pluginId": plugin_id})  # fmt: skip
    await _catalog(catalog.remove, data_dir, plugin_id)
    await log_activity("plugin.remove", "settings", "plugin", plugin_id, plugin_id)
    return Response(b"", status=204)


async def _catalog(function: Any, *args: Any, field: str = "pluginId", **kwargs: Any) -> Any:
    """A catalog change in a worker thread, then read by the plugin host at once (the page lists it next);
    a refusal is 400 naming ``field``."""
    try:
        done = await trio.to_thread.run_sync(lambda: function(*args, **kwargs))
    except catalog.PluginCatalogError as refused:
        raise errors.Invalid(str(refused), field=field) from None
    host = app_context().actors.plugins
    if host is not None:
        await ask(host, ReadCatalog())
    return done
