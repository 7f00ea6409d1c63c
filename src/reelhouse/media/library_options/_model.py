"""The stored settings of one library (the reference's LibraryOptions).

:class:`LibraryOptions` holds what is *stored*: the six "follows storage"
settings (:data:`PRESET_FIELDS`) are ``None`` while they follow the
library's storage. Lists are tuples so the value stays immutable.

The stored form is one JSON document whose keys are the reference's
camelCase field names (the same names the API uses, so one table serves
both). It is read leniently so it stays readable across versions: unknown
keys are ignored, missing keys take the default, and a value of the wrong
type (or outside an enum) also takes the default.

Everything here is pure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Final, Literal, get_args

from reelhouse.errors import Invalid

CollectionType = Literal["movies", "tvshows", "mixed"]
LibraryStorage = Literal["local", "cloud"]
MediaInfoTiming = Literal["scan", "background", "playback"]
LibraryPresetField = Literal[
    "readConcurrency",
    "mediaInfoTiming",
    "embeddedSubtitles",
    "videoCapture",
    "subtitleFullReadLimitBytes",
    "introDetection",
]

COLLECTION_TYPES: Final[tuple[str, ...]] = get_args(CollectionType)
LIBRARY_STORAGES: Final[tuple[str, ...]] = get_args(LibraryStorage)
MEDIA_INFO_TIMINGS: Final[tuple[str, ...]] = get_args(MediaInfoTiming)

DEFAULT_MASS_MISSING_THRESHOLD: Final = 0.2
DEFAULT_MISSING_GRACE_HOURS: Final = 168


@dataclass(frozen=True, slots=True)
class LibraryOptions:
    """Settings of one library as stored; defaults are the reference's.

    ``None`` in a preset field means "follows storage"; see
    :mod:`reelhouse.media.library_options` for the effective values.
    """

    allow_deletion: bool = False
    auto_scrape: bool = True
    auto_subtitle_languages: tuple[str, ...] = ()
    background_plugins: tuple[str, ...] = ()
    badges_on_posters: bool = False
    disable_series_merge: bool = False
    embedded_subtitles: bool | None = None
    exclude_extensions: tuple[str, ...] = ()
    exclude_keywords: tuple[str, ...] = ()
    exclude_smaller_than_bytes: int = 0
    external_audio: bool = True
    fill_missing_from_provider: bool = False
    image_sources: tuple[str, ...] = ()
    import_collections: bool = True
    intro_detection: bool | None = None
    mass_missing_threshold: float = DEFAULT_MASS_MISSING_THRESHOLD
    media_info_timing: MediaInfoTiming | None = None
    metadata_language: str = ""
    metadata_providers: tuple[str, ...] = ()
    missing_grace_hours: int = DEFAULT_MISSING_GRACE_HOURS
    read_concurrency: int | None = None
    realtime_monitor: bool = True
    recognizers: tuple[str, ...] = ()
    remote_allowed_hosts: tuple[str, ...] = ()
    scans_suspended: bool = False
    segment_providers: tuple[str, ...] = ()
    storage: LibraryStorage = "local"
    subtitle_full_read_limit_bytes: int | None = None
    unrated_age: int = 0
    use_nfo: bool = True
    video_capture: bool | None = None
    write_back: bool = False

    def to_document(self) -> dict[str, Any]:
        """Every field under its camelCase name, JSON-ready (lists, nulls)."""
        return {
            camel: _jsonable(getattr(self, attr)) for attr, camel in CAMEL_NAMES.items()
        }

    def to_json(self) -> str:
        """The stored form: :meth:`to_document` as compact, key-sorted JSON."""
        return json.dumps(self.to_document(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, document: str | bytes | Mapping[str, Any]) -> LibraryOptions:
        """Read the stored form (text or an already decoded object), leniently.

        Raises ``ValueError`` when the text is not JSON or not an object:
        silently falling back to defaults would lose a library's settings.
        """
        data = json.loads(document) if isinstance(document, (str, bytes)) else document
        if not isinstance(data, Mapping):
            raise ValueError("stored library options are not a JSON object")
        decoded: dict[str, Any] = {
            attr: _decode(attr, data[camel])
            for attr, camel in CAMEL_NAMES.items()
            if camel in data
        }
        return cls(**{attr: v for attr, v in decoded.items() if v is not _UNUSABLE})


def _to_camel(attr: str) -> str:
    head, *rest = attr.split("_")
    return head + "".join(part.capitalize() for part in rest)


CAMEL_NAMES: Final[Mapping[str, str]] = MappingProxyType(
    {f.name: _to_camel(f.name) for f in fields(LibraryOptions)}
)
"""Attribute name -> the reference's camelCase field name."""

ATTR_NAMES: Final[Mapping[str, str]] = MappingProxyType(
    {camel: attr for attr, camel in CAMEL_NAMES.items()}
)
"""camelCase field name -> attribute name."""

PRESET_FIELDS: Final[Mapping[str, str]] = MappingProxyType(
    {camel: ATTR_NAMES[camel] for camel in get_args(LibraryPresetField)}
)
"""The "follows storage" settings: camelCase name -> attribute name."""

_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType(
    {f.name: f.default for f in fields(LibraryOptions)}
)
# Preset fields default to None, so their value type is named here.
_PRESET_KINDS: Final[Mapping[str, type]] = MappingProxyType({
    "embedded_subtitles": bool,
    "intro_detection": bool,
    "media_info_timing": str,
    "read_concurrency": int,
    "subtitle_full_read_limit_bytes": int,
    "video_capture": bool,
})
_ENUMS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {"storage": LIBRARY_STORAGES, "media_info_timing": MEDIA_INFO_TIMINGS}
)
_UNUSABLE: Final = object()


def _jsonable(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def _decode(attr: str, raw: object) -> object:
    """The stored value for ``attr``, or ``_UNUSABLE`` to keep the default."""
    if raw is None:
        return None if attr in _PRESET_KINDS else _UNUSABLE
    kind = _PRESET_KINDS.get(attr) or type(_DEFAULTS[attr])
    if attr in _ENUMS:
        return raw if raw in _ENUMS[attr] else _UNUSABLE
    if kind is bool or kind is str:
        return raw if isinstance(raw, kind) else _UNUSABLE
    if isinstance(raw, bool):
        return _UNUSABLE
    if kind is int:
        return raw if isinstance(raw, int) else _UNUSABLE
    if kind is float:
        if isinstance(raw, (int, float)) and math.isfinite(raw):
            return float(raw)
        return _UNUSABLE
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        return tuple(raw)
    return _UNUSABLE


def parse_collection_type(
    value: object, *, default: CollectionType | None = None
) -> CollectionType:
    """``value`` as a LibraryKind.

    ``None`` gives ``default``; without a default it is 400 ``field_required``
    (field ``collectionType``). Anything not in :data:`COLLECTION_TYPES` is
    400 ``field_invalid``.
    """
    if value is None:
        if default is not None:
            return default
        raise Invalid(
            "collectionType is required.", field="collectionType", code="field_required"
        )
    if value not in COLLECTION_TYPES:
        raise Invalid(
            f"collectionType must be one of {', '.join(COLLECTION_TYPES)}.",
            field="collectionType",
        )
    return value  # type: ignore[return-value]
