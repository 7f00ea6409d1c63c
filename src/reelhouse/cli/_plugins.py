"""``reelhouse plugin ...``: installing, enabling and configuring plugins.

    reelhouse plugin list
    reelhouse plugin install DIR
    reelhouse plugin enable ID | disable ID
    reelhouse plugin set ID KEY=VALUE ...     (KEY= unsets) [--concurrency N]
    reelhouse plugin remove ID                (settings are kept)

These are not in the API. They change ``<data dir>/plugins`` and
``plugins.json``; a running server notices within a few seconds. Each
change is recorded in the activity log (category ``settings``; details
name the setting keys, never their values).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from reelhouse.media.plugin_manifest import MAX_CONCURRENCY
from reelhouse.storage import Store, now_ms
from reelhouse.storage import plugin_catalog as catalog
from reelhouse.storage.activity import ActivityRecord, record_activity
from reelhouse.storage.plugin_catalog import PluginCatalogError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

Command = Callable[[Store, argparse.Namespace], Awaitable[int]]


def plugin_commands() -> dict[tuple[str, str | None], Command]:
    return {
        ("plugin", "list"): _list,
        ("plugin", "install"): _install,
        ("plugin", "enable"): _enable,
        ("plugin", "disable"): _disable,
        ("plugin", "set"): _set,
        ("plugin", "remove"): _remove,
    }


async def _list(store: Store, args: argparse.Namespace) -> int:
    for entry in await trio.to_thread.run_sync(catalog.discover, args.data_dir_path):
        manifest = entry.manifest
        version = manifest.version if manifest else entry.state.version or "-"
        state = "enabled" if entry.state.enabled else "disabled"
        where = "bundled" if entry.bundled else ("installed" if entry.installed else "not installed")
        missing = manifest.missing_required(entry.state.settings) if manifest else []
        note = f"\tmissing: {','.join(missing)}" if missing else ""
        print(f"{entry.id}\t{version}\t{state}\t{where}{note}")
    return EXIT_OK


async def _install(store: Store, args: argparse.Namespace) -> int:
    source = Path(args.directory)
    entry = await _catalog(catalog.install, args.data_dir_path, source)
    if entry is None:
        return EXIT_FAILED
    await _record(store, "plugin.install", entry.id, {"version": entry.manifest.version if entry.manifest else None})
    print(f"installed {entry.id} {entry.manifest.version if entry.manifest else ''}".rstrip())
    return EXIT_OK


async def _enable(store: Store, args: argparse.Namespace) -> int:
    if await _catalog(catalog.update_state, args.data_dir_path, args.id, enabled=True, enabled_at_ms=now_ms()) is None:
        return EXIT_FAILED
    await _record(store, "plugin.enable", args.id, {})
    print(f"enabled {args.id}")
    return EXIT_OK


async def _disable(store: Store, args: argparse.Namespace) -> int:
    if await _catalog(catalog.update_state, args.data_dir_path, args.id, enabled=False) is None:
        return EXIT_FAILED
    await _record(store, "plugin.disable", args.id, {})
    print(f"disabled {args.id}")
    return EXIT_OK


async def _set(store: Store, args: argparse.Namespace) -> int:
    if args.concurrency is not None:
        return await _set_concurrency(store, args)
    if not args.pairs:
        print("reelhouse: plugin set needs KEY=VALUE or --concurrency", file=sys.stderr)
        return EXIT_USAGE
    changes: dict[str, str] = {}
    for pair in args.pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            print(f"reelhouse: {pair!r} is not KEY=VALUE", file=sys.stderr)
            return EXIT_USAGE
        changes[key] = value
    entries = {e.id: e for e in await trio.to_thread.run_sync(catalog.discover, args.data_dir_path)}
    entry = entries.get(args.id)
    if entry is None:
        print(f"reelhouse: no plugin {args.id!r}", file=sys.stderr)
        return EXIT_FAILED
    if entry.manifest is not None:
        known = {s.key for s in entry.manifest.settings}
        unknown = sorted(set(changes) - known)
        if unknown:
            print(f"reelhouse: {args.id} has no setting {', '.join(unknown)} "
                  f"(settings: {', '.join(sorted(known)) or 'none'})", file=sys.stderr)
            return EXIT_USAGE
    settings = {**entry.state.settings, **changes}
    settings = {k: v for k, v in settings.items() if v != ""}
    if await _catalog(catalog.update_state, args.data_dir_path, args.id, settings=settings) is None:
        return EXIT_FAILED
    await _record(store, "plugin.configure", args.id, {"keys": sorted(changes)})
    print(f"updated {args.id}: {', '.join(sorted(changes))}")
    return EXIT_OK


async def _set_concurrency(store: Store, args: argparse.Namespace) -> int:
    if args.pairs or not 0 <= args.concurrency <= MAX_CONCURRENCY:
        print(f"reelhouse: --concurrency takes 0 to {MAX_CONCURRENCY}, alone", file=sys.stderr)
        return EXIT_USAGE
    override = args.concurrency or None
    if await _catalog(catalog.update_state, args.data_dir_path, args.id, concurrency_override=override) is None:
        return EXIT_FAILED
    await _record(store, "plugin.configure", args.id, {"keys": ["concurrencyOverride"]})
    print(f"updated {args.id}: concurrency {override or 'from the manifest'}")
    return EXIT_OK


async def _remove(store: Store, args: argparse.Namespace) -> int:
    if await _catalog(catalog.remove, args.data_dir_path, args.id) is None:
        return EXIT_FAILED
    await _record(store, "plugin.remove", args.id, {})
    print(f"removed {args.id} (its settings are kept)")
    return EXIT_OK


async def _catalog(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a catalog change in a thread: its result (True for none), or None after printing its refusal."""
    try:
        result = await trio.to_thread.run_sync(lambda: function(*args, **kwargs))
    except PluginCatalogError as exc:
        print(f"reelhouse: {exc}", file=sys.stderr)
        return None
    return result if result is not None else True


async def _record(store: Store, action: str, plugin_id: str, details: dict[str, Any]) -> None:
    await record_activity(store, ActivityRecord(
        action=action, category="settings", actor_kind="system", actor_name="command line",
        target_kind="plugin", target_id=plugin_id, target_name=plugin_id, details=details,
    ))
