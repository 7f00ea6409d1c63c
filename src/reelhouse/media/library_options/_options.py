"""Library settings: the stored options, their effective values, updates.

The public face of the library-settings domain logic (all pure):

- :class:`LibraryOptions`: the settings as stored (``None`` = follows
  storage), with ``to_json``/``from_json`` for the store (camelCase keys).
- :func:`effective` and the ``effective_*`` functions: values after the
  storage-based defaults; :func:`effective` is the ``options`` object of
  every Library response.
- :func:`apply_update`: the reference's LibraryOptionsUpdate rules, giving
  the new options and the update hints.
- :func:`parse_collection_type`: the library kind.

Storage-based defaults (a preset field set to ``None``):

=============================  ==================  ==============
setting                        local               cloud
=============================  ==================  ==============
embeddedSubtitles              on                  off
introDetection                 on                  off
videoCapture                   on                  off
readConcurrency                global probe limit  2
subtitleFullReadLimitBytes     8 GiB               0 (never)
mediaInfoTiming                scan                background
=============================  ==================  ==============
"""

from __future__ import annotations

from typing import Any, Final

from reelhouse.media.library_options._fields import (
    MAX_EXCLUSION_ENTRIES,
    MAX_EXTENSION_CHARS,
    MAX_KEYWORD_CHARS,
    SUPPORTED_METADATA_LANGUAGES,
    TIB,
    UNRATED_AGES,
)
from reelhouse.media.library_options._model import (
    CAMEL_NAMES,
    COLLECTION_TYPES,
    DEFAULT_MASS_MISSING_THRESHOLD,
    DEFAULT_MISSING_GRACE_HOURS,
    LIBRARY_STORAGES,
    MEDIA_INFO_TIMINGS,
    PRESET_FIELDS,
    CollectionType,
    LibraryOptions,
    LibraryPresetField,
    LibraryStorage,
    MediaInfoTiming,
    parse_collection_type,
)
from reelhouse.media.library_options._update import (
    CAP_BACKGROUND,
    CAP_IMAGES,
    CAP_MOVIE_METADATA,
    CAP_RECOGNIZER,
    CAP_SEGMENTS,
    CAP_SERIES_METADATA,
    MAX_MISSING_GRACE_HOURS,
    MAX_READ_CONCURRENCY,
    PARENTAL_CONTROLS_FEATURE,
    PluginInfo,
    UpdateHints,
    UpdateOutcome,
    apply_update,
    available_metadata_providers,
    available_recognizers,
    compute_hints,
    is_scraping,
)

__all__ = [
    "CAMEL_NAMES",
    "CAP_BACKGROUND",
    "CAP_IMAGES",
    "CAP_MOVIE_METADATA",
    "CAP_RECOGNIZER",
    "CAP_SEGMENTS",
    "CAP_SERIES_METADATA",
    "CLOUD_READ_CONCURRENCY",
    "COLLECTION_TYPES",
    "DEFAULT_MASS_MISSING_THRESHOLD",
    "DEFAULT_MISSING_GRACE_HOURS",
    "LIBRARY_STORAGES",
    "LOCAL_SUBTITLE_FULL_READ_LIMIT_BYTES",
    "MAX_EXCLUSION_ENTRIES",
    "MAX_EXTENSION_CHARS",
    "MAX_KEYWORD_CHARS",
    "MAX_MISSING_GRACE_HOURS",
    "MAX_READ_CONCURRENCY",
    "MEDIA_INFO_TIMINGS",
    "PARENTAL_CONTROLS_FEATURE",
    "PRESET_FIELDS",
    "SUPPORTED_METADATA_LANGUAGES",
    "TIB",
    "UNRATED_AGES",
    "CollectionType",
    "LibraryOptions",
    "LibraryPresetField",
    "LibraryStorage",
    "MediaInfoTiming",
    "PluginInfo",
    "UpdateHints",
    "UpdateOutcome",
    "apply_update",
    "available_metadata_providers",
    "available_recognizers",
    "compute_hints",
    "effective",
    "effective_embedded_subtitles",
    "effective_intro_detection",
    "effective_media_info_timing",
    "effective_read_concurrency",
    "effective_subtitle_full_read_limit_bytes",
    "effective_video_capture",
    "is_scraping",
    "parse_collection_type",
]

CLOUD_READ_CONCURRENCY: Final = 2
LOCAL_SUBTITLE_FULL_READ_LIMIT_BYTES: Final = 8 << 30


def _is_local(options: LibraryOptions) -> bool:
    return options.storage == "local"


def effective_embedded_subtitles(options: LibraryOptions) -> bool:
    """Explicit value, else on for local storage and off for cloud."""
    explicit = options.embedded_subtitles
    return _is_local(options) if explicit is None else explicit


def effective_intro_detection(options: LibraryOptions) -> bool:
    """Explicit value, else on for local storage and off for cloud."""
    explicit = options.intro_detection
    return _is_local(options) if explicit is None else explicit


def effective_video_capture(options: LibraryOptions) -> bool:
    """Explicit value, else on for local storage and off for cloud."""
    explicit = options.video_capture
    return _is_local(options) if explicit is None else explicit


def effective_read_concurrency(options: LibraryOptions, *, global_probe_limit: int) -> int:
    """Explicit value, else 2 for cloud, else ``global_probe_limit``.

    The explicit value is reported as set; the server-wide probe limiter
    still bounds the reads actually running. Raises ``ValueError`` when
    ``global_probe_limit`` is below 1.
    """
    if global_probe_limit < 1:
        raise ValueError(f"global probe limit must be at least 1, not {global_probe_limit}")
    if options.read_concurrency is not None:
        return options.read_concurrency
    return global_probe_limit if _is_local(options) else CLOUD_READ_CONCURRENCY


def effective_subtitle_full_read_limit_bytes(options: LibraryOptions) -> int:
    """Explicit value, else 8 GiB for local storage and 0 (never) for cloud."""
    explicit = options.subtitle_full_read_limit_bytes
    if explicit is not None:
        return explicit
    return LOCAL_SUBTITLE_FULL_READ_LIMIT_BYTES if _is_local(options) else 0


def effective_media_info_timing(options: LibraryOptions) -> MediaInfoTiming:
    """Explicit value, else ``scan`` for local storage and ``background`` for cloud."""
    if options.media_info_timing is not None:
        return options.media_info_timing
    return "scan" if _is_local(options) else "background"


def effective(options: LibraryOptions, *, global_probe_limit: int) -> dict[str, Any]:
    """The ``options`` object of a Library response.

    Every stored field under its camelCase name (``storage`` included); a
    preset field that follows storage is ``null``. Added: the reference's
    ``effectiveEmbeddedSubtitles``, ``effectiveIntroDetection``,
    ``effectiveVideoCapture``, ``effectiveReadConcurrency`` and
    ``effectiveSubtitleFullReadLimitBytes``, and Reelhouse's
    ``effectiveMediaInfoTiming`` (clients ignore fields they do not know).
    Raises ``ValueError`` when ``global_probe_limit`` is below 1.
    """
    view = options.to_document()
    view.update(
        effectiveEmbeddedSubtitles=effective_embedded_subtitles(options),
        effectiveIntroDetection=effective_intro_detection(options),
        effectiveMediaInfoTiming=effective_media_info_timing(options),
        effectiveReadConcurrency=effective_read_concurrency(
            options, global_probe_limit=global_probe_limit
        ),
        effectiveSubtitleFullReadLimitBytes=effective_subtitle_full_read_limit_bytes(
            options
        ),
        effectiveVideoCapture=effective_video_capture(options),
    )
    return view
