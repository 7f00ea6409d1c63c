"""Applying a LibraryOptionsUpdate body (the reference's rules 1-15).

:func:`apply_update` turns the stored options and a request body into the
new options plus the hints an update response carries. It is pure: what it
needs from the outside (installed plugins, the license, whether the roots
hold .strm files) is passed in.

Choices the reference leaves open, made here:

- ``null`` is the same as omitting a field (clients reset a preset field
  with ``followStorage``). Unknown body keys are ignored, so a client may
  send back what it read (``effective*`` included).
- ``remoteAllowedHosts`` is required in every body, on creation too (the
  reference: CreateLibraryRequest's options are "complete settings with
  remoteAllowedHosts required"). Creating without ``options`` altogether
  (``body`` None) takes the defaults: the list is then empty.
- Fields are checked in alphabetical order; the first invalid one is
  reported. 400s come before the 403 of ``unratedAge``.
- ``metadataProviders`` keeps only plugins that are installed, enabled and
  provide metadata for the library's kind (movies: ``metadata.movie``,
  tvshows: ``metadata.series``, mixed: either); the rest are dropped
  without an error (rule 12).
- ``backgroundPlugins`` must be installed (any capability, enabled or not).
- Exclusion lists and allowed hosts count as changed only when their set
  of entries changes, not their order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from types import MappingProxyType
from typing import Any, Final

from reelhouse.errors import Forbidden, Invalid
from reelhouse.media.library_options._fields import (
    TIB,
    parse_bool,
    parse_choice,
    parse_extensions,
    parse_fraction,
    parse_hosts,
    parse_ids,
    parse_int,
    parse_keywords,
    parse_metadata_language,
    parse_strings,
    parse_subtitle_languages,
    parse_unrated_age,
)
from reelhouse.media.library_options._model import (
    ATTR_NAMES,
    LIBRARY_STORAGES,
    MEDIA_INFO_TIMINGS,
    PRESET_FIELDS,
    CollectionType,
    LibraryOptions,
)

CAP_MOVIE_METADATA: Final = "metadata.movie"
CAP_SERIES_METADATA: Final = "metadata.series"
CAP_IMAGES: Final = "images"
CAP_SEGMENTS: Final = "segments"
CAP_RECOGNIZER: Final = "recognizer"
CAP_BACKGROUND: Final = "background"
PARENTAL_CONTROLS_FEATURE: Final = "parental_controls"
MAX_READ_CONCURRENCY: Final = 8
# The reference sets no upper bound; this one keeps the value a 32-bit integer.
MAX_MISSING_GRACE_HOURS: Final = 2**31 - 1

_METADATA_CAPS: Final[Mapping[str, frozenset[str]]] = MappingProxyType({
    "movies": frozenset({CAP_MOVIE_METADATA}),
    "tvshows": frozenset({CAP_SERIES_METADATA}),
    "mixed": frozenset({CAP_MOVIE_METADATA, CAP_SERIES_METADATA}),
})
_ZERO_MEANS_OMITTED: Final = frozenset({"missingGraceHours", "massMissingThreshold"})
_EXCLUSION_ATTRS: Final = (
    "exclude_keywords", "exclude_extensions", "exclude_smaller_than_bytes"
)
_HINT_NAMES: Final[Mapping[str, str]] = MappingProxyType({
    "rescan_suggested": "rescanSuggested",
    "rescan_rewrite": "rescanRewrite",
    "nfo_sync_suggested": "nfoSyncSuggested",
    "remote_reads_suggested": "remoteReadsSuggested",
    "scrape_requeue_suggested": "scrapeRequeueSuggested",
})


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """What an installed plugin offers, as far as library settings care."""

    id: str
    enabled: bool
    capabilities: frozenset[str] = frozenset()
    configured: bool = True  # no required setting unset: it can run as it is


@dataclass(frozen=True, slots=True)
class UpdateHints:
    """The hint fields of a settings-update response."""

    rescan_suggested: bool = False
    rescan_rewrite: bool = False
    nfo_sync_suggested: bool = False
    remote_reads_suggested: bool = False
    scrape_requeue_suggested: bool = False

    def to_json(self) -> dict[str, bool]:
        """The five hints under their camelCase names, false ones included.

        ``scrapeRequeueCount`` needs the store and is the caller's to add.
        """
        return {name: getattr(self, attr) for attr, name in _HINT_NAMES.items()}


@dataclass(frozen=True, slots=True)
class UpdateOutcome:
    """The options to store, the hints, and whether allowDeletion was turned on
    (the caller must then test-write every root before saving)."""

    options: LibraryOptions
    hints: UpdateHints
    check_roots_writable: bool = False


@dataclass(frozen=True, slots=True)
class _Context:
    plugins: Mapping[str, PluginInfo]
    collection_type: CollectionType


_Parser = Callable[[str, object, _Context], object]


def apply_update(
    current: LibraryOptions | None,
    body: Mapping[str, Any] | None,
    *,
    creating: bool,
    collection_type: CollectionType,
    installed_plugins: Sequence[PluginInfo],
    entitled: Callable[[str], bool],
    roots_have_strm: bool = False,
    realtime_monitor_flag: bool | None = None,
) -> UpdateOutcome:
    """The options after applying ``body`` (camelCase keys) to ``current``.

    ``current`` is ignored when ``creating`` (the defaults are the base);
    ``None`` also means the defaults. ``body`` None (creating only) means
    no options were sent: the defaults, with nothing required. ``roots_have_strm`` and
    ``realtime_monitor_flag`` (CreateLibraryRequest's top-level
    ``realtimeMonitor``; the one in ``body`` wins) matter only when creating.

    Raises :class:`Invalid` (400; ``field_required``, ``field_invalid``,
    ``host_invalid``, ``unsupported_language``, ``*_not_installed``) naming
    the field in ``params.field``, or :class:`Forbidden` (403
    ``license_required``, ``params.feature``) when ``unratedAge`` changes
    without ``entitled(PARENTAL_CONTROLS_FEATURE)``.
    """
    options_sent = body is not None or not creating
    if body is None and creating:
        body = {}
    if not isinstance(body, Mapping):
        raise Invalid("The library options must be a JSON object.", code="bad_request")
    base = LibraryOptions() if creating or current is None else current
    given = [camel for camel in _PARSERS if _is_given(camel, body.get(camel))]
    followed = _parse_follow_storage(body.get("followStorage"), given)
    if options_sent and "remoteAllowedHosts" not in given:
        raise Invalid(
            "remoteAllowedHosts is required; send [] to allow any host.",
            field="remoteAllowedHosts",
            code="field_required",
        )
    context = _Context(
        MappingProxyType({plugin.id: plugin for plugin in installed_plugins}),
        collection_type,
    )
    changes: dict[str, Any] = {ATTR_NAMES[c]: _PARSERS[c](c, body[c], context) for c in given}
    changes.update({PRESET_FIELDS[camel]: None for camel in followed})
    if creating:
        changes.update(_creation_defaults(
            given, changes, context, roots_have_strm, realtime_monitor_flag
        ))
    options = replace(base, **changes)
    _check_license(base, options, entitled)
    return UpdateOutcome(
        options,
        compute_hints(base, options),
        check_roots_writable=options.allow_deletion and not base.allow_deletion,
    )


def compute_hints(before: LibraryOptions, after: LibraryOptions) -> UpdateHints:
    """The hints of a settings update from ``before`` to ``after``."""
    exclusions_changed = any(
        _as_set(getattr(before, attr)) != _as_set(getattr(after, attr))
        for attr in _EXCLUSION_ATTRS
    )
    audio_changed = before.external_audio != after.external_audio
    return UpdateHints(
        rescan_suggested=exclusions_changed or audio_changed,
        rescan_rewrite=audio_changed,
        nfo_sync_suggested=after.write_back and not before.write_back,
        remote_reads_suggested=(
            set(before.remote_allowed_hosts) != set(after.remote_allowed_hosts)
        ),
        scrape_requeue_suggested=is_scraping(after) and not is_scraping(before),
    )


def is_scraping(options: LibraryOptions) -> bool:
    """New items get scraped: autoScrape is on and a metadata provider is selected."""
    return options.auto_scrape and bool(options.metadata_providers)


def available_metadata_providers(
    installed_plugins: Sequence[PluginInfo], collection_type: CollectionType, *, configured_only: bool = False
) -> tuple[str, ...]:
    """Ids of enabled plugins providing metadata for this kind, in the given order
    (``configured_only``: leaving out those waiting for a required setting)."""
    wanted = _METADATA_CAPS[collection_type]
    return tuple(
        plugin.id
        for plugin in installed_plugins
        if plugin.enabled and plugin.capabilities & wanted and (plugin.configured or not configured_only)
    )


def available_recognizers(installed_plugins: Sequence[PluginInfo], *, configured_only: bool = False) -> tuple[str, ...]:
    """Ids of enabled recognizer plugins, in the given order."""
    return tuple(
        plugin.id
        for plugin in installed_plugins
        if plugin.enabled and CAP_RECOGNIZER in plugin.capabilities and (plugin.configured or not configured_only)
    )


def _is_given(camel: str, raw: object) -> bool:
    if raw is None:
        return False
    is_zero = raw == 0 and isinstance(raw, (int, float)) and not isinstance(raw, bool)
    return not (camel in _ZERO_MEANS_OMITTED and is_zero)


def _parse_follow_storage(raw: object, given: Sequence[str]) -> tuple[str, ...]:
    if raw is None:
        return ()
    names = parse_strings("followStorage", raw)
    for name in names:
        if name not in PRESET_FIELDS:
            raise Invalid(
                f"followStorage: {name!r} is not one of {', '.join(PRESET_FIELDS)}.",
                field="followStorage",
            )
        if name in given:
            raise Invalid(
                f"{name} has a value and is also listed in followStorage; "
                "send one or the other.",
                field=name,
            )
    return tuple(dict.fromkeys(names))


def _creation_defaults(
    given: Sequence[str],
    changes: Mapping[str, object],
    context: _Context,
    roots_have_strm: bool,
    realtime_monitor_flag: object,
) -> dict[str, object]:
    defaults: dict[str, object] = {}
    if "storage" not in given and roots_have_strm:
        defaults["storage"] = "cloud"
    storage = defaults.get("storage", changes.get("storage", "local"))
    if "realtimeMonitor" not in given:
        if realtime_monitor_flag is not None:
            defaults["realtime_monitor"] = parse_bool("realtimeMonitor", realtime_monitor_flag)
        elif storage == "cloud":
            defaults["realtime_monitor"] = False
    plugins = tuple(context.plugins.values())
    # A new library selects what can run now: a bundled provider still
    # waiting for its API key is left for the administrator to select.
    if "metadataProviders" not in given:
        defaults["metadata_providers"] = available_metadata_providers(
            plugins, context.collection_type, configured_only=True
        )
    if "recognizers" not in given:
        defaults["recognizers"] = available_recognizers(plugins, configured_only=True)
    return defaults


def _check_license(
    before: LibraryOptions, after: LibraryOptions, entitled: Callable[[str], bool]
) -> None:
    if after.unrated_age != before.unrated_age and not entitled(PARENTAL_CONTROLS_FEATURE):
        raise Forbidden(
            "Changing unratedAge requires a parental-controls license.",
            code="license_required",
            params={"feature": PARENTAL_CONTROLS_FEATURE},
        )


def _as_set(value: object) -> object:
    return frozenset(value) if isinstance(value, tuple) else value


# --- parsers of the settable fields, by camelCase name -----------------------


def _plain(parse: Callable[[str, object], object]) -> _Parser:
    return lambda field, raw, _context: parse(field, raw)


def _ranged(low: int, high: int) -> _Parser:
    return _plain(partial(parse_int, low=low, high=high))


def _choice(choices: tuple[str, ...]) -> _Parser:
    return _plain(partial(parse_choice, choices=choices))


def _declaring(capability: str, code: str) -> _Parser:
    """Ids of installed plugins declaring ``capability``; else 400 ``code``."""

    def parse(field: str, raw: object, context: _Context) -> tuple[str, ...]:
        ids = parse_ids(field, raw)
        for plugin_id in ids:
            plugin = context.plugins.get(plugin_id)
            if plugin is None or capability not in plugin.capabilities:
                raise Invalid(
                    f"{field}: {plugin_id!r} is not an installed plugin "
                    f"providing {capability}.",
                    field=field,
                    code=code,
                    params={"provider": plugin_id},
                )
        return ids

    return parse


def _installed(field: str, raw: object, context: _Context) -> tuple[str, ...]:
    ids = parse_ids(field, raw)
    for plugin_id in ids:
        if plugin_id not in context.plugins:
            raise Invalid(
                f"{field}: {plugin_id!r} is not an installed plugin.",
                field=field,
                params={"pluginId": plugin_id},
            )
    return ids


def _metadata_providers(field: str, raw: object, context: _Context) -> tuple[str, ...]:
    available = set(available_metadata_providers(
        tuple(context.plugins.values()), context.collection_type
    ))
    return tuple(pid for pid in parse_ids(field, raw) if pid in available)


_BOOL: Final = _plain(parse_bool)
_PARSERS: Final[Mapping[str, _Parser]] = MappingProxyType({
    "allowDeletion": _BOOL,
    "autoScrape": _BOOL,
    "autoSubtitleLanguages": _plain(parse_subtitle_languages),
    "backgroundPlugins": _installed,
    "badgesOnPosters": _BOOL,
    "disableSeriesMerge": _BOOL,
    "embeddedSubtitles": _BOOL,
    "excludeExtensions": _plain(parse_extensions),
    "excludeKeywords": _plain(parse_keywords),
    "excludeSmallerThanBytes": _ranged(0, TIB),
    "externalAudio": _BOOL,
    "fillMissingFromProvider": _BOOL,
    "imageSources": _declaring(CAP_IMAGES, "image_source_not_installed"),
    "importCollections": _BOOL,
    "introDetection": _BOOL,
    "massMissingThreshold": _plain(parse_fraction),
    "mediaInfoTiming": _choice(MEDIA_INFO_TIMINGS),
    "metadataLanguage": _plain(parse_metadata_language),
    "metadataProviders": _metadata_providers,
    "missingGraceHours": _ranged(0, MAX_MISSING_GRACE_HOURS),
    "readConcurrency": _ranged(1, MAX_READ_CONCURRENCY),
    "realtimeMonitor": _BOOL,
    "recognizers": _declaring(CAP_RECOGNIZER, "recognizer_not_installed"),
    "remoteAllowedHosts": _plain(parse_hosts),
    "scansSuspended": _BOOL,
    "segmentProviders": _declaring(CAP_SEGMENTS, "segment_provider_not_installed"),
    "storage": _choice(LIBRARY_STORAGES),
    "subtitleFullReadLimitBytes": _ranged(0, TIB),
    "unratedAge": _plain(parse_unrated_age),
    "useNfo": _BOOL,
    "videoCapture": _BOOL,
    "writeBack": _BOOL,
})
"""Every settable field: all of LibraryOptions (checked by the tests)."""
