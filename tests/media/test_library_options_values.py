"""Library option values, rules 5-9 and 13: keywords, extensions, numbers,
metadata language, booleans, subtitle languages."""

from __future__ import annotations

import pytest

from reelhouse.errors import Invalid
from reelhouse.media.library_options import (
    CAMEL_NAMES,
    TIB,
)

from .library_options_cases import rejected, update

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


# --- rule 13: subtitle languages -------------------------------------------


def test_subtitle_languages_are_trimmed_and_deduplicated_ignoring_case() -> None:
    body = {"autoSubtitleLanguages": [" en ", "EN", "", "zh-Hans", "ZH-hans", "pt-BR"]}
    assert update(body).options.auto_subtitle_languages == ("en", "zh-Hans", "pt-BR")


@pytest.mark.parametrize("languages", [["en_US"], ["e"], ["english language"], "en", [1]])
def test_invalid_subtitle_languages_are_field_invalid(languages: object) -> None:
    error = rejected({"autoSubtitleLanguages": languages})
    assert (error.code, error.params["field"]) == ("field_invalid", "autoSubtitleLanguages")
