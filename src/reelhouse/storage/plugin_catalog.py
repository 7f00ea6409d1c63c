"""Installed plugins on disk: discovery, and the administrator's choices.

- Installed plugins are directories under ``<data dir>/plugins/<id>/``
  (copied there by ``reelhouse plugin install DIR``); bundled plugins ship
  inside the package (``reelhouse/bundled_plugins/<id>/``). An installed
  copy of a bundled plugin's id replaces it (an update; ``bundledVersion``
  still says what shipped).
- What the administrator chose (enabled, settings, install times, the
  previous version) lives in ``<data dir>/plugins.json``, written whole and
  atomically (mode 0600: settings may hold secrets). Removing a plugin
  deletes its directory and keeps that entry: the plugin reads
  ``not_installed`` with its settings kept until installed again.

The command line writes; the server reads and notices changes by
:func:`fingerprint` (modification times), so a change needs no restart.
All functions block (file I/O): the server calls them in a worker thread.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from reelhouse.media.plugin_manifest import MANIFEST_NAME, ManifestError, PluginManifest, parse_manifest

from ._store import now_ms

STATE_FILE = "plugins.json"
PLUGINS_DIR = "plugins"
BUNDLED_DIR = Path(__file__).resolve().parents[1] / "bundled_plugins"
# Bundled as examples (docs/plugins.md), not as features: off until `reelhouse plugin enable`,
# so a new server lists only the core tasks (hello's "greet" would be a ninth).
SAMPLE_PLUGINS = frozenset({"hello"})


class PluginCatalogError(Exception):
    """An install, enable or setting change that cannot be done; the message says why."""


@dataclass(frozen=True, slots=True)
class PluginState:
    """The administrator's choices for one plugin (kept when it is removed)."""

    enabled: bool = True
    settings: Mapping[str, str] = field(default_factory=dict)
    installed_at_ms: int = 0
    updated_at_ms: int = 0
    name: str = ""
    version: str = ""
    previous_version: str | None = None
    concurrency_override: int | None = None
    enabled_at_ms: int = 0  # `plugin enable` bumps it: it also lifts a crash-disable


@dataclass(frozen=True, slots=True)
class PluginEntry:
    """One plugin as found: ``manifest`` None when not installed or unreadable."""

    id: str
    directory: Path | None
    manifest: PluginManifest | None
    state: PluginState
    bundled: bool = False
    bundled_version: str | None = None
    manifest_error: str | None = None

    @property
    def installed(self) -> bool:
        return self.directory is not None


def default_state(plugin_id: str) -> PluginState:
    """A plugin's state before the administrator changed anything: enabled, but for the samples."""
    return PluginState(enabled=plugin_id not in SAMPLE_PLUGINS)


def plugins_dir(data_dir: Path) -> Path:
    return data_dir / PLUGINS_DIR


def discover(data_dir: Path, bundled_dir: Path | None = BUNDLED_DIR) -> list[PluginEntry]:
    """Every plugin, bundled, installed or removed with settings kept, sorted by id."""
    states = load_states(data_dir)
    bundled = _read_dirs(bundled_dir)
    installed = _read_dirs(plugins_dir(data_dir))
    entries = []
    for plugin_id in sorted(set(bundled) | set(installed) | set(states)):
        state = states.get(plugin_id) or default_state(plugin_id)
        shipped = bundled.get(plugin_id)
        found = installed.get(plugin_id) or shipped
        bundled_version = shipped[1].version if shipped and shipped[1] else None
        if found is None:
            entries.append(PluginEntry(plugin_id, None, None, state))
            continue
        directory, manifest, error = found
        if not state.installed_at_ms:  # bundled and never touched: as old as the package's copy
            shipped_ms = (_mtime(directory / MANIFEST_NAME) or 0) // 1_000_000
            state = replace(state, installed_at_ms=shipped_ms, updated_at_ms=state.updated_at_ms or shipped_ms)
        entries.append(PluginEntry(
            plugin_id, directory, manifest, state,
            bundled=shipped is not None, bundled_version=bundled_version, manifest_error=error,
        ))
    return entries


def fingerprint(data_dir: Path, bundled_dir: Path | None = BUNDLED_DIR) -> tuple[Any, ...]:
    """Changes whenever a plugin is installed, removed, enabled or configured."""
    marks: list[Any] = [_mtime(data_dir / STATE_FILE)]
    for root in (plugins_dir(data_dir), bundled_dir):
        if root is None or not root.is_dir():
            continue
        for child in sorted(root.iterdir()):
            if not child.name.startswith("."):
                marks.append((str(child), _mtime(child / MANIFEST_NAME)))
    return tuple(marks)


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _read_dirs(root: Path | None) -> dict[str, tuple[Path, PluginManifest | None, str | None]]:
    """Plugin directories under ``root`` by id (the directory's name)."""
    found: dict[str, tuple[Path, PluginManifest | None, str | None]] = {}
    if root is None or not root.is_dir():
        return found
    for child in sorted(root.iterdir()):
        manifest_path = child / MANIFEST_NAME
        if child.name.startswith(".") or not child.is_dir() or not manifest_path.is_file():
            # (dot names: an install's staging or retired copy)
            continue
        try:
            manifest = read_manifest(child)
        except (ManifestError, OSError, UnicodeDecodeError) as exc:
            found[child.name] = (child, None, str(exc))
            continue
        if manifest.id != child.name:
            found[child.name] = (child, None, f"the directory is named {child.name!r} but id is {manifest.id!r}")
            continue
        found[manifest.id] = (child, manifest, None)
    return found


def read_manifest(directory: Path) -> PluginManifest:
    return parse_manifest((directory / MANIFEST_NAME).read_text(encoding="utf-8"))


# -- the administrator's choices ----------------------------------------------


def load_states(data_dir: Path) -> dict[str, PluginState]:
    try:
        raw = json.loads((data_dir / STATE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise PluginCatalogError(f"{data_dir / STATE_FILE} cannot be read: {exc}") from None
    return {plugin_id: _state(value) for plugin_id, value in raw.items() if isinstance(value, dict)}


def _state(value: Mapping[str, Any]) -> PluginState:
    known = {k: v for k, v in value.items() if k in PluginState.__dataclass_fields__}
    known["settings"] = {str(k): str(v) for k, v in dict(known.get("settings") or {}).items()}
    return PluginState(**known)


def save_states(data_dir: Path, states: Mapping[str, PluginState]) -> None:
    """Write every state at once: a reader sees the old file or the new one."""
    data_dir.mkdir(parents=True, exist_ok=True)
    document = {plugin_id: asdict(state) for plugin_id, state in sorted(states.items())}
    handle, temporary = tempfile.mkstemp(prefix=".plugins-", dir=data_dir)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=2, sort_keys=True)
        os.chmod(temporary, 0o600)
        os.replace(temporary, data_dir / STATE_FILE)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def install(data_dir: Path, source: Path) -> PluginEntry:
    """Copy the plugin directory ``source`` into the data directory (replacing an older copy)."""
    try:
        manifest = read_manifest(source)
    except (ManifestError, OSError, UnicodeDecodeError) as exc:
        raise PluginCatalogError(f"{source} is not a plugin: {exc}") from None
    target = plugins_dir(data_dir) / manifest.id
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{manifest.id}-", dir=target.parent))
    shutil.copytree(source, staging, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    # Swap by renames, so a server reading meanwhile sees the old copy or the new one.
    retired = target.parent / f".{manifest.id}-old-{now_ms()}"
    if target.exists():
        os.rename(target, retired)
    os.replace(staging, target)
    shutil.rmtree(retired, ignore_errors=True)
    states = load_states(data_dir)
    old = states.get(manifest.id)
    now = now_ms()
    if old is None:
        state = PluginState(installed_at_ms=now, updated_at_ms=now, name=manifest.name, version=manifest.version)
    else:
        previous = old.version if old.version and old.version != manifest.version else old.previous_version
        state = replace(old, updated_at_ms=now, installed_at_ms=old.installed_at_ms or now,
                        name=manifest.name, version=manifest.version, previous_version=previous)
    states[manifest.id] = state
    save_states(data_dir, states)
    return PluginEntry(manifest.id, target, manifest, state)


def remove(data_dir: Path, plugin_id: str) -> None:
    """Delete the installed copy; the state (settings) is kept."""
    target = plugins_dir(data_dir) / plugin_id
    if not (target / MANIFEST_NAME).is_file():
        raise PluginCatalogError(f"no installed plugin {plugin_id!r} (bundled plugins can only be disabled)")
    shutil.rmtree(target)


def update_state(data_dir: Path, plugin_id: str, **changes: Any) -> PluginState:
    """Change one plugin's state; the plugin must be known (installed, bundled or removed)."""
    if plugin_id not in {entry.id for entry in discover(data_dir)}:
        raise PluginCatalogError(f"no plugin {plugin_id!r}")
    states = load_states(data_dir)
    state = replace(states.get(plugin_id) or default_state(plugin_id), updated_at_ms=now_ms(), **changes)
    states[plugin_id] = state
    save_states(data_dir, states)
    return state
