"""Library options: the defaults, the stored form, effective values and the collection type."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from reelhouse.errors import Invalid
from reelhouse.media.library_options import (
    CAMEL_NAMES,
    LibraryOptions,
    effective,
    effective_media_info_timing,
    effective_read_concurrency,
    parse_collection_type,
)

from .library_options_cases import FULL, PRESET_CAMEL

# --- defaults and the stored form ------------------------------------------


def test_defaults_are_the_references() -> None:
    options = LibraryOptions()
    assert options.to_document() == {
        "allowDeletion": False,
        "autoScrape": True,
        "autoSubtitleLanguages": [],
        "backgroundPlugins": [],
        "badgesOnPosters": False,
        "disableSeriesMerge": False,
        "embeddedSubtitles": None,
        "excludeExtensions": [],
        "excludeKeywords": [],
        "excludeSmallerThanBytes": 0,
        "externalAudio": True,
        "fillMissingFromProvider": False,
        "imageSources": [],
        "importCollections": True,
        "introDetection": None,
        "massMissingThreshold": 0.2,
        "mediaInfoTiming": None,
        "metadataLanguage": "",
        "metadataProviders": [],
        "missingGraceHours": 168,
        "readConcurrency": None,
        "realtimeMonitor": True,
        "recognizers": [],
        "remoteAllowedHosts": [],
        "scansSuspended": False,
        "segmentProviders": [],
        "storage": "local",
        "subtitleFullReadLimitBytes": None,
        "unratedAge": 0,
        "useNfo": True,
        "videoCapture": None,
        "writeBack": False,
    }


def test_full_options_differ_from_defaults_in_every_field() -> None:
    default = LibraryOptions()
    same = [f.name for f in fields(FULL) if getattr(FULL, f.name) == getattr(default, f.name)]
    assert same == []


def test_json_round_trip_keeps_every_field() -> None:
    assert LibraryOptions.from_json(FULL.to_json()) == FULL
    assert LibraryOptions.from_json(LibraryOptions().to_json()) == LibraryOptions()


def test_json_document_uses_camel_case_keys() -> None:
    stored = json.loads(FULL.to_json())
    assert set(stored) == set(CAMEL_NAMES.values())
    assert stored["excludeSmallerThanBytes"] == 1000
    assert stored["remoteAllowedHosts"] == ["cdn.example.com:8443"]


def test_from_json_ignores_unknown_keys_and_defaults_missing_ones() -> None:
    options = LibraryOptions.from_json('{"writeBack": true, "fromTheFuture": 1}')
    assert options == LibraryOptions(write_back=True)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("writeBack", "yes"),
        ("missingGraceHours", True),
        ("missingGraceHours", "168"),
        ("massMissingThreshold", "0.5"),
        ("massMissingThreshold", float("inf")),
        ("excludeKeywords", "trailer"),
        ("excludeKeywords", [1, 2]),
        ("storage", "tape"),
        ("mediaInfoTiming", "never"),
        ("readConcurrency", 2.5),
        ("metadataLanguage", None),
        ("autoScrape", None),
    ],
)
def test_from_json_takes_the_default_for_unusable_values(key: str, value: object) -> None:
    assert LibraryOptions.from_json({key: value}) == LibraryOptions()


def test_from_json_reads_integers_as_floats_for_the_threshold() -> None:
    assert LibraryOptions.from_json({"massMissingThreshold": 1}).mass_missing_threshold == 1.0


def test_from_json_keeps_null_presets_following_storage() -> None:
    stored = {camel: None for camel in PRESET_CAMEL}
    assert LibraryOptions.from_json(stored) == LibraryOptions()


def test_from_json_accepts_bytes() -> None:
    assert LibraryOptions.from_json(b'{"useNfo": false}') == LibraryOptions(use_nfo=False)


@pytest.mark.parametrize("document", ["[]", "not json", "null"])
def test_from_json_refuses_documents_that_are_not_objects(document: str) -> None:
    with pytest.raises(ValueError):
        LibraryOptions.from_json(document)


# --- effective values ------------------------------------------------------


def test_local_storage_defaults() -> None:
    view = effective(LibraryOptions(storage="local"), global_probe_limit=5)
    assert view["effectiveEmbeddedSubtitles"] is True
    assert view["effectiveIntroDetection"] is True
    assert view["effectiveVideoCapture"] is True
    assert view["effectiveReadConcurrency"] == 5
    assert view["effectiveSubtitleFullReadLimitBytes"] == 8 * 1024**3
    assert view["effectiveMediaInfoTiming"] == "scan"


def test_cloud_storage_defaults() -> None:
    view = effective(LibraryOptions(storage="cloud"), global_probe_limit=5)
    assert view["effectiveEmbeddedSubtitles"] is False
    assert view["effectiveIntroDetection"] is False
    assert view["effectiveVideoCapture"] is False
    assert view["effectiveReadConcurrency"] == 2
    assert view["effectiveSubtitleFullReadLimitBytes"] == 0
    assert view["effectiveMediaInfoTiming"] == "background"


@pytest.mark.parametrize("storage", ["local", "cloud"])
def test_explicit_values_win_over_the_storage_defaults(storage: str) -> None:
    local = storage == "local"
    options = LibraryOptions(
        storage=storage,  # type: ignore[arg-type]
        embedded_subtitles=not local,
        intro_detection=not local,
        video_capture=not local,
        read_concurrency=7,
        subtitle_full_read_limit_bytes=123,
        media_info_timing="playback",
    )
    view = effective(options, global_probe_limit=4)
    assert view["effectiveEmbeddedSubtitles"] is (not local)
    assert view["effectiveIntroDetection"] is (not local)
    assert view["effectiveVideoCapture"] is (not local)
    assert view["effectiveReadConcurrency"] == 7
    assert view["effectiveSubtitleFullReadLimitBytes"] == 123
    assert effective_media_info_timing(options) == "playback"


def test_effective_view_lists_every_field_with_null_for_presets_following_storage() -> None:
    view = effective(LibraryOptions(storage="cloud"), global_probe_limit=4)
    assert set(CAMEL_NAMES.values()) <= set(view)
    assert view["storage"] == "cloud"
    assert all(view[camel] is None for camel in PRESET_CAMEL)
    json.dumps(view)  # the HTTP layer serialises it as it is


def test_effective_read_concurrency_needs_a_positive_global_limit() -> None:
    with pytest.raises(ValueError):
        effective_read_concurrency(LibraryOptions(), global_probe_limit=0)


# --- collection type -------------------------------------------------------


@pytest.mark.parametrize("kind", ["movies", "tvshows", "mixed"])
def test_collection_types_are_accepted(kind: str) -> None:
    assert parse_collection_type(kind) == kind


@pytest.mark.parametrize("value", ["Movies", "music", 3, ["movies"]])
def test_unknown_collection_type_is_field_invalid(value: object) -> None:
    with pytest.raises(Invalid) as info:
        parse_collection_type(value)
    assert info.value.code == "field_invalid"
    assert info.value.params == {"field": "collectionType"}


def test_missing_collection_type_is_required_unless_defaulted() -> None:
    with pytest.raises(Invalid) as info:
        parse_collection_type(None)
    assert info.value.code == "field_required"
    assert parse_collection_type(None, default="mixed") == "mixed"
