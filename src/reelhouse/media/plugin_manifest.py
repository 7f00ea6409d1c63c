"""A plugin's manifest (``plugin.toml``): parsing and validation, pure.

A plugin is a directory holding ``plugin.toml`` and an executable entry
point; docs/plugins.md is the format's public description. The server
reads the manifest without running anything: what a plugin offers
(capabilities, settings, tasks, paid features) is known before its process
ever starts. :func:`parse_manifest` takes the TOML text and raises
:class:`ManifestError` naming the first invalid key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

MANIFEST_NAME: Final = "plugin.toml"
# The protocol this server speaks, and the oldest it still accepts: a plugin
# declaring (or answering the handshake with) less is `incompatible`.
PROTOCOL_VERSION: Final = 2
MIN_PROTOCOL_VERSION: Final = 2

CAPABILITIES: Final = frozenset(
    {"metadata.movie", "metadata.series", "metadata.person", "images", "recognizer", "segments", "background"}
)
PERMISSIONS: Final = frozenset({"llm", "network.lan"})
MAX_CONCURRENCY: Final = 16
DEFAULT_TIMEOUT_SECONDS: Final = 30.0
DEFAULT_IDLE_SECONDS: Final = 300.0

_ID: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_KEY: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_LANG: Final = re.compile(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*")


class ManifestError(ValueError):
    """The manifest is not valid; the message names the key and why."""


@dataclass(frozen=True, slots=True)
class SettingSpec:
    key: str
    required: bool = False
    secret: bool = False  # never shown by `plugin list`, never logged
    default: str | None = None


@dataclass(frozen=True, slots=True)
class TaskSpec:
    name: str  # lower case; runs as ``pluginId.name``
    names: Mapping[str, str]  # by language, ``en`` always present
    descriptions: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PluginManifest:
    id: str
    name: str
    version: str
    protocol: int
    entry: tuple[str, ...]  # argv; relative paths are inside the plugin directory
    names: Mapping[str, str] = field(default_factory=dict)  # by language, ``en`` = name
    descriptions: Mapping[str, str] = field(default_factory=dict)
    capabilities: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()
    settings: tuple[SettingSpec, ...] = ()
    tasks: tuple[TaskSpec, ...] = ()
    features: tuple[str, ...] = ()  # paid feature codes, sorted
    paid: bool = False  # the whole plugin needs a license
    concurrency: int = 1
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    idle_seconds: float = DEFAULT_IDLE_SECONDS
    author: str | None = None
    homepage: str | None = None
    catalog: str = ""

    @property
    def description(self) -> str | None:
        return self.descriptions.get("en")

    def missing_required(self, values: Mapping[str, str]) -> list[str]:
        """Keys of required settings with neither a value nor a default, in manifest order."""
        return [s.key for s in self.settings if s.required and not values.get(s.key) and not s.default]

    def effective_settings(self, values: Mapping[str, str]) -> dict[str, str]:
        """Defaults overlaid with the values set (unknown keys kept: a newer version may use them)."""
        merged = {s.key: s.default for s in self.settings if s.default is not None}
        merged.update(values)
        return merged

    @property
    def secret_keys(self) -> frozenset[str]:
        return frozenset(s.key for s in self.settings if s.secret)


def parse_manifest(text: str) -> PluginManifest:
    """The manifest in ``text``; raises ManifestError."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"plugin.toml is not valid TOML: {exc}") from None
    plugin_id = _string(doc, "id", pattern=_ID)
    name = _string(doc, "name")
    names = {"en": name, **_texts(doc, "names")}
    descriptions = _texts(doc, "descriptions")
    if "description" in doc:
        descriptions = {"en": _string(doc, "description"), **descriptions}
    return PluginManifest(
        id=plugin_id,
        name=name,
        version=_string(doc, "version"),
        protocol=_int(doc, "protocol", low=0, high=1000),
        entry=_entry(doc),
        names=names,
        descriptions=descriptions,
        capabilities=_codes(doc, "capabilities", CAPABILITIES),
        permissions=_codes(doc, "permissions", PERMISSIONS),
        settings=_settings(doc.get("settings", [])),
        tasks=_tasks(doc.get("tasks", [])),
        features=tuple(sorted(set(_strings(doc, "features", pattern=_ID)))),
        paid=_bool(doc, "paid", False),
        concurrency=_int(doc, "concurrency", low=1, high=MAX_CONCURRENCY, default=1),
        timeout_seconds=_seconds(doc, "timeout_seconds", DEFAULT_TIMEOUT_SECONDS),
        idle_seconds=_seconds(doc, "idle_seconds", DEFAULT_IDLE_SECONDS),
        author=_optional(doc, "author"),
        homepage=_homepage(doc),
        catalog=_optional(doc, "catalog") or "",
    )


# -- keys ------------------------------------------------------------------


def _string(doc: Mapping[str, Any], key: str, *, pattern: re.Pattern[str] | None = None) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{key} is required and must be a non-empty string")
    if pattern is not None and not pattern.fullmatch(value):
        raise ManifestError(f"{key} {value!r} is not valid (expected {pattern.pattern})")
    return value


def _optional(doc: Mapping[str, Any], key: str) -> str | None:
    return _string(doc, key) if key in doc else None


def _homepage(doc: Mapping[str, Any]) -> str | None:
    homepage = _optional(doc, "homepage")
    if homepage is not None and not homepage.startswith("https://"):
        raise ManifestError("homepage must be an https:// address")
    return homepage


def _int(doc: Mapping[str, Any], key: str, *, low: int, high: int, default: int | None = None) -> int:
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ManifestError(f"{key} must be a whole number from {low} to {high}")
    return value


def _seconds(doc: Mapping[str, Any], key: str, default: float) -> float:
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 86400:
        raise ManifestError(f"{key} must be a number of seconds above 0")
    return float(value)


def _bool(doc: Mapping[str, Any], key: str, default: bool) -> bool:
    value = doc.get(key, default)
    if not isinstance(value, bool):
        raise ManifestError(f"{key} must be true or false")
    return value


def _strings(doc: Mapping[str, Any], key: str, *, pattern: re.Pattern[str] | None = None) -> list[str]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ManifestError(f"{key} must be an array of strings")
    for item in value:
        if pattern is not None and not pattern.fullmatch(item):
            raise ManifestError(f"{key}: {item!r} is not valid")
    return value


def _codes(doc: Mapping[str, Any], key: str, known: frozenset[str]) -> tuple[str, ...]:
    values = _strings(doc, key)
    for value in values:
        if value not in known:
            raise ManifestError(f"{key}: unknown value {value!r} (known: {', '.join(sorted(known))})")
    return tuple(dict.fromkeys(values))


def _entry(doc: Mapping[str, Any]) -> tuple[str, ...]:
    value = doc.get("entry")
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise ManifestError("entry is required: the program to run (a string or an array of arguments)")
    return tuple(value)


def _texts(doc: Mapping[str, Any], key: str) -> dict[str, str]:
    """A table of texts by language tag."""
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise ManifestError(f"{key} must be a table of texts by language")
    for lang, text in value.items():
        if not _LANG.fullmatch(lang) or not isinstance(text, str) or not text:
            raise ManifestError(f"{key}.{lang} must be a non-empty text under a language tag")
    return dict(value)


def _settings(raw: object) -> tuple[SettingSpec, ...]:
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        raise ManifestError("settings must be an array of tables ([[settings]])")
    specs = []
    for item in raw:
        default = item.get("default")
        if default is not None and not isinstance(default, str):
            raise ManifestError("settings.default must be a string")
        specs.append(SettingSpec(
            key=_string(item, "key", pattern=_KEY),
            required=_bool(item, "required", False),
            secret=_bool(item, "secret", False),
            default=default,
        ))
    if len({s.key for s in specs}) != len(specs):
        raise ManifestError("settings: a key is declared twice")
    return tuple(specs)


def _tasks(raw: object) -> tuple[TaskSpec, ...]:
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise ManifestError("tasks must be an array of tables ([[tasks]])")
    tasks = []
    for item in raw:
        name = _string(item, "name", pattern=_ID)
        names = _texts(item, "names")
        if "en" not in names:
            raise ManifestError(f"tasks.{name}.names must have an English (en) name")
        tasks.append(TaskSpec(name=name, names=names, descriptions=_texts(item, "descriptions")))
    return tuple(tasks)
