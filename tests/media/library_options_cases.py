"""Shared by the library options tests: installed plugins, the preset fields,
options differing from the defaults in every field, update and create helpers."""

from __future__ import annotations

from typing import Any

import pytest

from reelhouse.errors import Invalid
from reelhouse.media.library_options import (
    CAP_BACKGROUND,
    CAP_IMAGES,
    CAP_MOVIE_METADATA,
    CAP_RECOGNIZER,
    CAP_SEGMENTS,
    CAP_SERIES_METADATA,
    LibraryOptions,
    PluginInfo,
    UpdateOutcome,
    apply_update,
)

PLUGINS = (
    PluginInfo("tmdb", True, frozenset({CAP_MOVIE_METADATA, CAP_SERIES_METADATA, CAP_IMAGES})),
    PluginInfo("tvdb", True, frozenset({CAP_SERIES_METADATA})),
    PluginInfo("omdb", False, frozenset({CAP_MOVIE_METADATA})),
    PluginInfo("fanart", True, frozenset({CAP_IMAGES})),
    PluginInfo("introdb", True, frozenset({CAP_SEGMENTS})),
    PluginInfo("namer", True, frozenset({CAP_RECOGNIZER})),
    PluginInfo("namer-off", False, frozenset({CAP_RECOGNIZER})),
    PluginInfo("trailers", False, frozenset({CAP_BACKGROUND})),
)

PRESET_CAMEL = (
    "readConcurrency",
    "mediaInfoTiming",
    "embeddedSubtitles",
    "videoCapture",
    "subtitleFullReadLimitBytes",
    "introDetection",
)


def update(
    body: dict[str, Any],
    current: LibraryOptions | None = None,
    *,
    licensed: bool = False,
    collection_type: str = "movies",
    **kwargs: Any,
) -> UpdateOutcome:
    """An update with an empty remoteAllowedHosts unless the body names it."""
    return apply_update(
        current or LibraryOptions(),
        {"remoteAllowedHosts": [], **body},
        creating=False,
        collection_type=collection_type,  # type: ignore[arg-type]
        installed_plugins=PLUGINS,
        entitled=lambda feature: licensed,
        **kwargs,
    )


def create(
    body: dict[str, Any] | None,
    *,
    collection_type: str = "movies",
    licensed: bool = False,
    **kwargs: Any,
) -> LibraryOptions:
    """A creation with an empty remoteAllowedHosts unless the body names it
    (``None``: no options sent)."""
    return apply_update(
        None,
        None if body is None else {"remoteAllowedHosts": [], **body},
        creating=True,
        collection_type=collection_type,  # type: ignore[arg-type]
        installed_plugins=PLUGINS,
        entitled=lambda feature: licensed,
        **kwargs,
    ).options


def rejected(body: dict[str, Any], current: LibraryOptions | None = None) -> Invalid:
    with pytest.raises(Invalid) as info:
        update(body, current)
    assert info.value.message
    return info.value


FULL = LibraryOptions(
    allow_deletion=True,
    auto_scrape=False,
    auto_subtitle_languages=("en", "zh-CN"),
    background_plugins=("trailers",),
    badges_on_posters=True,
    disable_series_merge=True,
    embedded_subtitles=False,
    exclude_extensions=(".iso",),
    exclude_keywords=("trailer",),
    exclude_smaller_than_bytes=1000,
    external_audio=False,
    fill_missing_from_provider=True,
    image_sources=("fanart",),
    import_collections=False,
    intro_detection=False,
    mass_missing_threshold=0.5,
    media_info_timing="playback",
    metadata_language="zh-TW",
    metadata_providers=("tmdb",),
    missing_grace_hours=24,
    read_concurrency=3,
    realtime_monitor=False,
    recognizers=("namer",),
    remote_allowed_hosts=("cdn.example.com:8443",),
    scans_suspended=True,
    segment_providers=("introdb",),
    storage="cloud",
    subtitle_full_read_limit_bytes=5,
    unrated_age=16,
    use_nfo=False,
    video_capture=True,
    write_back=True,
)
