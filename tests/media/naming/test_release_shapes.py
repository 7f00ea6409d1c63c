"""The names downloads really leave (issue #32), one case table per shape,
and the confidence every parse carries."""

from __future__ import annotations

from typing import Any

import pytest

from reelhouse.media.naming import (
    LOW_CONFIDENCE,
    EpisodeFile,
    ExtraFile,
    MovieFile,
    SkippedFile,
    classify,
    group_episode_versions,
    season_of_absolute,
)

from .cases.release_shapes import (
    ABSOLUTE,
    BARE_NUMBERS,
    CODES,
    CONFIDENCE,
    DISC_3D_THEMES,
    EPISODE_STACKS,
    MULTI_EPISODES,
    PREFIXES,
    RELEASE_FOLDERS,
    RELEASE_WORDS,
    SEASON_FOLDERS,
    SEASON_OF_ABSOLUTE,
    SERIES_AS_WRITTEN,
    SERIES_YEARS,
)


def _fields(path: str, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    result = classify(path, kind)
    assert not isinstance(result, SkippedFile), result
    return {name: getattr(result, name) for name in fields}


@pytest.mark.parametrize(("path", "kind", "fields"), BARE_NUMBERS)
def test_a_bare_number_after_the_series_name_is_the_episode(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), CODES)
def test_three_and_four_digit_codes_are_season_and_episode(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), RELEASE_WORDS)
def test_release_words_are_left_out_of_titles(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), SERIES_YEARS)
def test_a_year_after_a_release_series_name_is_the_series_year(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), PREFIXES)
def test_site_and_language_prefixes_are_not_titles(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), MULTI_EPISODES)
def test_several_episodes_in_one_file_run_to_the_last(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), RELEASE_FOLDERS)
def test_the_release_folder_names_an_obfuscated_file(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), SEASON_FOLDERS)
def test_season_folders_in_other_forms_and_bare_numbers(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), EPISODE_STACKS)
def test_parts_inside_a_version_stack_and_titles_do_not(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


def test_titled_parts_of_one_episode_are_one_version_beside_another() -> None:
    stems = [
        "Glass Orchard - S01E01 - Pilot [4K]",
        "Glass Orchard - S01E01 - Pilot - part2",
        "Glass Orchard - S01E01 - Pilot - part1",
    ]
    [group] = group_episode_versions(stems)
    assert group.base == "Glass Orchard - S01E01 - Pilot"
    assert [(v.stem, v.label, v.parts) for v in group.versions] == [
        ("Glass Orchard - S01E01 - Pilot - part1", "", ("Glass Orchard - S01E01 - Pilot - part2",)),
        ("Glass Orchard - S01E01 - Pilot [4K]", "4K", ()),
    ]


@pytest.mark.parametrize(("path", "kind", "fields"), SERIES_AS_WRITTEN)
def test_series_names_keep_dots_and_underscores_as_written(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), DISC_3D_THEMES)
def test_disc_stubs_3d_tags_and_theme_media_are_reported(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("path", "kind", "fields"), ABSOLUTE)
def test_absolute_numbers_are_kept_as_written(path: str, kind: str, fields: dict[str, Any]) -> None:
    assert _fields(path, kind, fields) == fields


@pytest.mark.parametrize(("absolute", "sizes", "expected"), SEASON_OF_ABSOLUTE)
def test_an_absolute_number_falls_in_the_season_the_provider_counts(
    absolute: int, sizes: dict[int, int], expected: tuple[int, int] | None
) -> None:
    assert season_of_absolute(absolute, sizes) == expected


@pytest.mark.parametrize(("path", "kind", "low", "high"), CONFIDENCE)
def test_every_parse_says_how_sure_it_is(path: str, kind: str, low: float, high: float) -> None:
    result = classify(path, kind)
    assert isinstance(result, (MovieFile, EpisodeFile, ExtraFile))
    assert low <= result.confidence < high


def test_an_obfuscated_name_alone_is_left_to_identify_and_a_tidy_one_is_not() -> None:
    guess, sure = classify("161219_06.mkv", "movies"), classify("Copper Sky (2011).mkv", "movies")
    assert isinstance(guess, MovieFile) and isinstance(sure, MovieFile)
    assert guess.confidence < LOW_CONFIDENCE <= sure.confidence
