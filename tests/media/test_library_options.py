from __future__ import annotations

import json
from dataclasses import fields, replace
from typing import Any

import pytest

from reelhouse.errors import Forbidden, Invalid
from reelhouse.media.library_options import (
    CAMEL_NAMES,
    CAP_BACKGROUND,
    CAP_IMAGES,
    CAP_MOVIE_METADATA,
    CAP_RECOGNIZER,
    CAP_SEGMENTS,
    CAP_SERIES_METADATA,
    PARENTAL_CONTROLS_FEATURE,
    TIB,
    LibraryOptions,
    PluginInfo,
    UpdateHints,
    UpdateOutcome,
    apply_update,
    compute_hints,
    effective,
    effective_media_info_timing,
    effective_read_concurrency,
    is_scraping,
    parse_collection_type,
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


# --- rule 1: remoteAllowedHosts required, other fields kept ---------------


@pytest.mark.parametrize("creating", [False, True])
@pytest.mark.parametrize("body", [{}, {"remoteAllowedHosts": None}, {"useNfo": False}])
def test_options_without_remote_allowed_hosts_are_field_required(body: dict[str, Any], creating: bool) -> None:
    with pytest.raises(Invalid) as info:
        apply_update(
            LibraryOptions(), body, creating=creating, collection_type="movies",
            installed_plugins=PLUGINS, entitled=lambda f: True,
        )
    assert info.value.code == "field_required"
    assert info.value.params["field"] == "remoteAllowedHosts"


def test_creation_without_options_takes_the_defaults() -> None:
    assert create(None).remote_allowed_hosts == ()
    assert create(None, roots_have_strm=True).storage == "cloud"
    assert create(None, realtime_monitor_flag=False).realtime_monitor is False


def test_remote_allowed_hosts_replaces_the_whole_list() -> None:
    current = LibraryOptions(remote_allowed_hosts=("a.example", "b.example"))
    outcome = update({"remoteAllowedHosts": ["c.example"]}, current)
    assert outcome.options.remote_allowed_hosts == ("c.example",)


def test_omitted_fields_keep_their_current_values() -> None:
    outcome = update({"remoteAllowedHosts": list(FULL.remote_allowed_hosts)}, FULL, licensed=True)
    assert outcome.options == FULL


def test_null_fields_count_as_omitted() -> None:
    body = {camel: None for camel in CAMEL_NAMES.values() if camel != "remoteAllowedHosts"}
    assert update(body, FULL).options == replace(FULL, remote_allowed_hosts=())


def test_unknown_keys_are_ignored() -> None:
    body = effective(FULL, global_probe_limit=4)
    body["somethingNew"] = {"nested": True}
    assert update(body, FULL, licensed=True).options == FULL


def test_every_field_is_settable() -> None:
    body = FULL.to_document()
    assert update(body, licensed=True).options == FULL


def test_body_that_is_not_an_object_is_a_bad_request() -> None:
    with pytest.raises(Invalid) as info:
        apply_update(
            None, ["x"], creating=True, collection_type="movies",  # type: ignore[arg-type]
            installed_plugins=PLUGINS, entitled=lambda f: True,
        )
    assert info.value.code == "bad_request"


def test_hosts_are_lowercased_and_deduplicated() -> None:
    outcome = update({"remoteAllowedHosts": ["CDN.Example.com", "cdn.example.com", "x:81"]})
    assert outcome.options.remote_allowed_hosts == ("cdn.example.com", "x:81")


@pytest.mark.parametrize(
    "host",
    [
        "example.com",
        "example.com:8080",
        "192.168.1.10",
        "192.168.1.10:32400",
        "media_box.lan",
        "[::1]:8096",
        "[fe80::1]",
        "2001:db8::1",
        "nas",
    ],
)
def test_valid_hosts_are_accepted(host: str) -> None:
    assert update({"remoteAllowedHosts": [host]}).options.remote_allowed_hosts == (host,)


@pytest.mark.parametrize(
    "host",
    [
        "http://example.com",
        "example.com/path",
        "example.com?x=1",
        "example.com#frag",
        "user@example.com",
        "exa mple.com",
        " example.com",
        "example.com\t",
        "",
        "example.com:",
        "example.com:0",
        "example.com:65536",
        "example.com:http",
        "-bad-.com",
        "a..b",
        "[::1",
        "[nothost]:80",
        "[::1]8080",
        "ex\\ample",
    ],
)
def test_invalid_hosts_are_host_invalid(host: str) -> None:
    error = rejected({"remoteAllowedHosts": [host]})
    assert error.code == "host_invalid"
    assert error.params["field"] == "remoteAllowedHosts"


@pytest.mark.parametrize("value", ["example.com", [1], {"a": 1}])
def test_remote_allowed_hosts_must_be_an_array_of_strings(value: object) -> None:
    error = rejected({"remoteAllowedHosts": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "remoteAllowedHosts")


# --- rule 2: zero means omitted -------------------------------------------


@pytest.mark.parametrize(
    ("camel", "zero"),
    [("missingGraceHours", 0), ("massMissingThreshold", 0), ("massMissingThreshold", 0.0)],
)
def test_zero_grace_hours_and_threshold_are_treated_as_omitted(camel: str, zero: float) -> None:
    current = LibraryOptions(missing_grace_hours=12, mass_missing_threshold=0.7)
    assert update({camel: zero}, current).options == current


# --- rule 3: followStorage -------------------------------------------------


def test_follow_storage_resets_each_listed_setting_to_null() -> None:
    outcome = update({"followStorage": list(PRESET_CAMEL)}, FULL, licensed=True)
    assert outcome.options == replace(
        FULL,
        remote_allowed_hosts=(),
        read_concurrency=None,
        media_info_timing=None,
        embedded_subtitles=None,
        video_capture=None,
        subtitle_full_read_limit_bytes=None,
        intro_detection=None,
    )


def test_follow_storage_leaves_unlisted_presets_alone() -> None:
    outcome = update({"followStorage": ["readConcurrency"]}, FULL)
    assert outcome.options.read_concurrency is None
    assert outcome.options.video_capture is True


@pytest.mark.parametrize(
    ("camel", "value"),
    [
        ("readConcurrency", 2),
        ("mediaInfoTiming", "scan"),
        ("embeddedSubtitles", True),
        ("videoCapture", False),
        ("subtitleFullReadLimitBytes", 0),
        ("introDetection", True),
    ],
)
def test_value_and_follow_storage_for_one_setting_is_field_invalid(
    camel: str, value: object
) -> None:
    error = rejected({camel: value, "followStorage": [camel]})
    assert (error.code, error.params["field"]) == ("field_invalid", camel)


@pytest.mark.parametrize("value", [["storage"], ["writeBack"], "readConcurrency", [3]])
def test_follow_storage_entries_must_be_preset_fields(value: object) -> None:
    error = rejected({"followStorage": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "followStorage")


# --- rule 4: storage and real-time monitoring ------------------------------


@pytest.mark.parametrize("value", ["nas", "LOCAL", "", 1, True])
def test_invalid_storage_is_field_invalid(value: object) -> None:
    error = rejected({"storage": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "storage")


def test_storage_is_kept_when_omitted_and_changed_when_given() -> None:
    cloud = LibraryOptions(storage="cloud")
    assert update({}, cloud).options.storage == "cloud"
    assert update({"storage": "local"}, cloud).options.storage == "local"


def test_creating_without_storage_over_strm_roots_picks_cloud() -> None:
    assert create({}, roots_have_strm=True).storage == "cloud"
    assert create({}, roots_have_strm=False).storage == "local"


def test_explicit_storage_wins_over_strm_detection() -> None:
    assert create({"storage": "local"}, roots_have_strm=True).storage == "local"


def test_strm_roots_do_not_change_storage_on_update() -> None:
    assert update({}, roots_have_strm=True).options.storage == "local"


def test_creating_a_cloud_library_turns_monitoring_off() -> None:
    assert create({"storage": "cloud"}).realtime_monitor is False
    assert create({}, roots_have_strm=True).realtime_monitor is False


def test_creating_a_local_library_keeps_monitoring_on() -> None:
    assert create({}).realtime_monitor is True


@pytest.mark.parametrize(
    ("in_options", "flag", "expected"),
    [
        (True, None, True),
        (None, True, True),
        (None, False, False),
        (True, False, True),
        (False, True, False),
    ],
)
def test_explicit_monitoring_wins_and_options_beat_the_top_level_flag(
    in_options: bool | None, flag: bool | None, expected: bool
) -> None:
    body = {"storage": "cloud", "realtimeMonitor": in_options}
    assert create(body, realtime_monitor_flag=flag).realtime_monitor is expected


def test_top_level_monitoring_flag_must_be_a_boolean() -> None:
    with pytest.raises(Invalid) as info:
        create({}, realtime_monitor_flag="yes")
    assert info.value.params["field"] == "realtimeMonitor"


def test_switching_an_existing_library_to_cloud_keeps_monitoring() -> None:
    assert update({"storage": "cloud"}).options.realtime_monitor is True


# --- rules 5 and 6: exclusion keywords and extensions ----------------------


def test_keywords_are_trimmed_lowercased_and_deduplicated() -> None:
    body = {"excludeKeywords": [" Trailer ", "trailer", "", "  ", "Behind The Scenes"]}
    assert update(body).options.exclude_keywords == ("trailer", "behind the scenes")


def test_keywords_are_counted_after_normalisation() -> None:
    words = [f"w{i}" for i in range(50)] + ["W0", " w1 ", ""]
    assert len(update({"excludeKeywords": words}).options.exclude_keywords) == 50


@pytest.mark.parametrize(
    "keywords",
    [
        [f"w{i}" for i in range(51)],
        ["x" * 65],
        ["a/b"],
        ["a\\b"],
        "trailer",
        [7],
    ],
)
def test_invalid_keywords_are_field_invalid(keywords: object) -> None:
    error = rejected({"excludeKeywords": keywords})
    assert (error.code, error.params["field"]) == ("field_invalid", "excludeKeywords")


def test_keyword_of_64_characters_is_accepted() -> None:
    assert update({"excludeKeywords": ["x" * 64]}).options.exclude_keywords == ("x" * 64,)


def test_extensions_get_a_leading_dot_lowercase_and_no_duplicates() -> None:
    body = {"excludeExtensions": ["ISO", ".iso", " .Nfo ", "", "x" * 16]}
    assert update(body).options.exclude_extensions == (".iso", ".nfo", "." + "x" * 16)


@pytest.mark.parametrize(
    "extensions",
    [
        ["tar.gz"],
        [".tar.gz"],
        ["."],
        ["..iso"],
        ["m kv"],
        ["x" * 17],
        ["a/b"],
        ["a\\b"],
        [f"e{i}" for i in range(51)],
        ".iso",
        [None],
    ],
)
def test_invalid_extensions_are_field_invalid(extensions: object) -> None:
    error = rejected({"excludeExtensions": extensions})
    assert (error.code, error.params["field"]) == ("field_invalid", "excludeExtensions")


# --- rules 7-9 and the other numbers ---------------------------------------

RANGES = [
    ("excludeSmallerThanBytes", 0, TIB),
    ("subtitleFullReadLimitBytes", 0, TIB),
    ("readConcurrency", 1, 8),
]


@pytest.mark.parametrize(("camel", "low", "high"), RANGES)
def test_range_limits_are_inclusive(camel: str, low: int, high: int) -> None:
    attr = {v: k for k, v in CAMEL_NAMES.items()}[camel]
    assert getattr(update({camel: low}).options, attr) == low
    assert getattr(update({camel: high}).options, attr) == high


@pytest.mark.parametrize(("camel", "low", "high"), RANGES)
def test_values_outside_the_range_are_field_invalid(camel: str, low: int, high: int) -> None:
    for value in (low - 1, high + 1, 2.5, "4", True, [1]):
        error = rejected({camel: value})
        assert (error.code, error.params["field"]) == ("field_invalid", camel)


def test_whole_numbers_sent_as_floats_are_accepted() -> None:
    options = update({"missingGraceHours": 24.0, "readConcurrency": 3.0}).options
    assert (options.missing_grace_hours, options.read_concurrency) == (24, 3)
    assert isinstance(options.missing_grace_hours, int)


@pytest.mark.parametrize("value", [0.05, 0.5, 1, 1.0])
def test_mass_missing_threshold_accepts_fractions_up_to_one(value: float) -> None:
    assert update({"massMissingThreshold": value}).options.mass_missing_threshold == value


@pytest.mark.parametrize("value", [-0.1, 1.01, 2, "0.5", False, float("nan")])
def test_mass_missing_threshold_outside_zero_to_one_is_field_invalid(value: object) -> None:
    error = rejected({"massMissingThreshold": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "massMissingThreshold")


@pytest.mark.parametrize("value", [-1, 1.5, "24", True, 2**31])
def test_invalid_missing_grace_hours_is_field_invalid(value: object) -> None:
    error = rejected({"missingGraceHours": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "missingGraceHours")


@pytest.mark.parametrize("age", [0, 7, 12, 16, 18])
def test_unrated_age_accepts_the_reference_ages(age: int) -> None:
    assert update({"unratedAge": age}, licensed=True).options.unrated_age == age


@pytest.mark.parametrize("age", [1, 13, 21, -7, "12", True, 12.5])
def test_other_unrated_ages_are_field_invalid(age: object) -> None:
    with pytest.raises(Invalid) as info:
        update({"unratedAge": age}, licensed=True)
    assert (info.value.code, info.value.params["field"]) == ("field_invalid", "unratedAge")


@pytest.mark.parametrize("timing", ["scan", "background", "playback"])
def test_media_info_timing_accepts_its_values(timing: str) -> None:
    assert update({"mediaInfoTiming": timing}).options.media_info_timing == timing


@pytest.mark.parametrize("timing", ["Scan", "later", 1])
def test_unknown_media_info_timing_is_field_invalid(timing: object) -> None:
    error = rejected({"mediaInfoTiming": timing})
    assert (error.code, error.params["field"]) == ("field_invalid", "mediaInfoTiming")


# --- metadata language -----------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "stored"),
    [("en", "en"), ("EN", "en"), ("zh-cn", "zh-CN"), ("ZH-TW", "zh-TW"), ("", "")],
)
def test_metadata_language_is_stored_canonical(sent: str, stored: str) -> None:
    assert update({"metadataLanguage": sent}).options.metadata_language == stored


@pytest.mark.parametrize("language", ["fr", "zh", "zh_CN", "en-US", " en"])
def test_unsupported_metadata_language_is_rejected(language: str) -> None:
    error = rejected({"metadataLanguage": language})
    assert (error.code, error.params["field"]) == ("unsupported_language", "metadataLanguage")


def test_metadata_language_must_be_a_string() -> None:
    error = rejected({"metadataLanguage": 5})
    assert (error.code, error.params["field"]) == ("field_invalid", "metadataLanguage")


# --- booleans --------------------------------------------------------------

BOOLEAN_FIELDS = [
    "allowDeletion",
    "autoScrape",
    "badgesOnPosters",
    "disableSeriesMerge",
    "embeddedSubtitles",
    "externalAudio",
    "fillMissingFromProvider",
    "importCollections",
    "introDetection",
    "realtimeMonitor",
    "scansSuspended",
    "useNfo",
    "videoCapture",
    "writeBack",
]


@pytest.mark.parametrize("camel", BOOLEAN_FIELDS)
def test_booleans_must_be_booleans(camel: str) -> None:
    for value in (1, 0, "true", [True]):
        error = rejected({camel: value})
        assert (error.code, error.params["field"]) == ("field_invalid", camel)


@pytest.mark.parametrize("camel", BOOLEAN_FIELDS)
def test_booleans_are_set_both_ways(camel: str) -> None:
    attr = {v: k for k, v in CAMEL_NAMES.items()}[camel]
    assert getattr(update({camel: True}).options, attr) is True
    assert getattr(update({camel: False}).options, attr) is False


# --- rules 10 and 11: plugin lists that must be installed ------------------

PLUGIN_LISTS = [
    ("imageSources", "fanart", "image_source_not_installed"),
    ("segmentProviders", "introdb", "segment_provider_not_installed"),
    ("recognizers", "namer", "recognizer_not_installed"),
]


@pytest.mark.parametrize(("camel", "plugin", "code"), PLUGIN_LISTS)
def test_plugin_lists_keep_installed_plugins_in_order(
    camel: str, plugin: str, code: str
) -> None:
    attr = {v: k for k, v in CAMEL_NAMES.items()}[camel]
    assert getattr(update({camel: [plugin, plugin]}).options, attr) == (plugin,)
    assert getattr(update({camel: []}, FULL).options, attr) == ()


@pytest.mark.parametrize(("camel", "plugin", "code"), PLUGIN_LISTS)
@pytest.mark.parametrize("missing", ["nope", "tvdb"])  # not installed / wrong capability
def test_plugin_lists_reject_plugins_without_the_capability(
    camel: str, plugin: str, code: str, missing: str
) -> None:
    error = rejected({camel: [plugin, missing]})
    assert error.code == code
    assert error.params == {"field": camel, "provider": missing}


def test_image_sources_accept_a_plugin_among_several_capabilities() -> None:
    assert update({"imageSources": ["tmdb", "fanart"]}).options.image_sources == (
        "tmdb",
        "fanart",
    )


def test_recognizers_may_be_disabled_but_must_be_installed() -> None:
    assert update({"recognizers": ["namer-off"]}).options.recognizers == ("namer-off",)


@pytest.mark.parametrize("camel", ["imageSources", "segmentProviders", "recognizers"])
def test_plugin_lists_must_be_arrays_of_strings(camel: str) -> None:
    error = rejected({camel: "fanart"})
    assert (error.code, error.params["field"]) == ("field_invalid", camel)


def test_background_plugins_must_be_installed() -> None:
    assert update({"backgroundPlugins": ["trailers"]}).options.background_plugins == (
        "trailers",
    )
    error = rejected({"backgroundPlugins": ["trailers", "ghost"]})
    assert (error.code, error.params["field"]) == ("field_invalid", "backgroundPlugins")


# --- rule 12: metadata providers -------------------------------------------


def test_metadata_providers_not_installed_disabled_or_of_the_wrong_kind_are_dropped() -> None:
    body = {"metadataProviders": ["ghost", "omdb", "tvdb", "tmdb", "fanart"]}
    assert update(body).options.metadata_providers == ("tmdb",)
    tv = update(body, collection_type="tvshows").options.metadata_providers
    assert tv == ("tvdb", "tmdb")


def test_empty_metadata_providers_means_no_provider() -> None:
    assert update({"metadataProviders": []}, FULL).options.metadata_providers == ()
    assert create({"metadataProviders": []}).metadata_providers == ()


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("movies", ("tmdb",)), ("tvshows", ("tmdb", "tvdb")), ("mixed", ("tmdb", "tvdb"))],
)
def test_creation_without_providers_selects_every_available_one(
    kind: str, expected: tuple[str, ...]
) -> None:
    assert create({}, collection_type=kind).metadata_providers == expected


def test_creation_without_recognizers_selects_every_enabled_one() -> None:
    assert create({}).recognizers == ("namer",)
    assert create({"recognizers": []}).recognizers == ()


def test_update_never_adds_providers_or_recognizers_installed_later() -> None:
    current = LibraryOptions(metadata_providers=(), recognizers=())
    options = update({}, current).options
    assert (options.metadata_providers, options.recognizers) == ((), ())


def test_metadata_providers_must_be_an_array_of_strings() -> None:
    error = rejected({"metadataProviders": "tmdb"})
    assert (error.code, error.params["field"]) == ("field_invalid", "metadataProviders")


# --- rule 13: subtitle languages -------------------------------------------


def test_subtitle_languages_are_trimmed_and_deduplicated_ignoring_case() -> None:
    body = {"autoSubtitleLanguages": [" en ", "EN", "", "zh-Hans", "ZH-hans", "pt-BR"]}
    assert update(body).options.auto_subtitle_languages == ("en", "zh-Hans", "pt-BR")


@pytest.mark.parametrize("languages", [["en_US"], ["e"], ["english language"], "en", [1]])
def test_invalid_subtitle_languages_are_field_invalid(languages: object) -> None:
    error = rejected({"autoSubtitleLanguages": languages})
    assert (error.code, error.params["field"]) == ("field_invalid", "autoSubtitleLanguages")


# --- rule 14: unratedAge needs the parental-controls license ---------------


def test_changing_unrated_age_without_license_is_license_required() -> None:
    with pytest.raises(Forbidden) as info:
        update({"unratedAge": 18})
    assert info.value.code == "license_required"
    assert info.value.params == {"feature": PARENTAL_CONTROLS_FEATURE}
    assert info.value.message


def test_unchanged_unrated_age_is_not_checked() -> None:
    current = LibraryOptions(unrated_age=12)
    assert update({"unratedAge": 12}, current).options.unrated_age == 12


def test_license_is_asked_for_the_parental_controls_feature() -> None:
    asked: list[str] = []

    def entitled(feature: str) -> bool:
        asked.append(feature)
        return True

    apply_update(
        LibraryOptions(), {"remoteAllowedHosts": [], "unratedAge": 7}, creating=False,
        collection_type="movies", installed_plugins=(), entitled=entitled,
    )
    assert asked == [PARENTAL_CONTROLS_FEATURE]


def test_creating_with_a_non_default_unrated_age_needs_the_license() -> None:
    with pytest.raises(Forbidden):
        create({"unratedAge": 16})
    assert create({"unratedAge": 16}, licensed=True).unrated_age == 16


def test_invalid_fields_are_reported_before_the_license() -> None:
    with pytest.raises(Invalid):
        update({"unratedAge": 18, "readConcurrency": 99})


# --- hints (rule 15 and the Library hint fields) ---------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, UpdateHints()),
        ({"excludeKeywords": ["sample"]}, UpdateHints(rescan_suggested=True)),
        ({"excludeExtensions": ["iso"]}, UpdateHints(rescan_suggested=True)),
        ({"excludeSmallerThanBytes": 1}, UpdateHints(rescan_suggested=True)),
        (
            {"externalAudio": False},
            UpdateHints(rescan_suggested=True, rescan_rewrite=True),
        ),
        ({"externalAudio": True}, UpdateHints()),
        ({"writeBack": True}, UpdateHints(nfo_sync_suggested=True)),
        ({"remoteAllowedHosts": ["a.example"]}, UpdateHints(remote_reads_suggested=True)),
        ({"metadataProviders": ["tmdb"]}, UpdateHints(scrape_requeue_suggested=True)),
        ({"useNfo": False, "storage": "cloud"}, UpdateHints()),
    ],
)
def test_update_hints(body: dict[str, Any], expected: UpdateHints) -> None:
    assert update(body).hints == expected


def test_same_entries_in_another_order_are_not_a_change() -> None:
    current = LibraryOptions(
        exclude_keywords=("a", "b"), remote_allowed_hosts=("x.example", "y.example")
    )
    body = {"excludeKeywords": ["b", "a"], "remoteAllowedHosts": ["y.example", "x.example"]}
    assert update(body, current).hints == UpdateHints()


def test_write_back_turning_off_suggests_nothing() -> None:
    assert update({"writeBack": False}, LibraryOptions(write_back=True)).hints == UpdateHints()


@pytest.mark.parametrize(
    ("before", "after", "suggested"),
    [
        (LibraryOptions(auto_scrape=False, metadata_providers=("tmdb",)),
         {"autoScrape": True}, True),
        (LibraryOptions(metadata_providers=("tmdb",)), {"autoScrape": True}, False),
        (LibraryOptions(auto_scrape=False), {"metadataProviders": ["tmdb"]}, False),
        (LibraryOptions(metadata_providers=("tmdb",)), {"metadataProviders": []}, False),
    ],
)
def test_scrape_requeue_only_when_scraping_starts(
    before: LibraryOptions, after: dict[str, Any], suggested: bool
) -> None:
    assert update(after, before).hints.scrape_requeue_suggested is suggested


def test_scraping_needs_auto_scrape_and_a_provider() -> None:
    assert is_scraping(LibraryOptions(metadata_providers=("tmdb",)))
    assert not is_scraping(LibraryOptions())
    assert not is_scraping(LibraryOptions(auto_scrape=False, metadata_providers=("tmdb",)))


def test_hints_json_uses_the_reference_names() -> None:
    hints = compute_hints(LibraryOptions(), LibraryOptions(external_audio=False))
    assert hints.to_json() == {
        "rescanSuggested": True,
        "rescanRewrite": True,
        "nfoSyncSuggested": False,
        "remoteReadsSuggested": False,
        "scrapeRequeueSuggested": False,
    }


def test_turning_allow_deletion_on_asks_for_a_write_check() -> None:
    assert update({"allowDeletion": True}).check_roots_writable is True
    on = LibraryOptions(allow_deletion=True)
    assert update({"allowDeletion": True}, on).check_roots_writable is False
    assert update({"allowDeletion": False}, on).check_roots_writable is False
