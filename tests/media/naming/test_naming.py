"""Naming rules: table-driven cases from the conventions users follow.

The tables live in ``cases/`` (movies, episodes, files, groups,
classify); each test here states one rule and runs its table.
"""

from __future__ import annotations

import datetime
import string
from pathlib import PurePosixPath
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.media.naming import (
    STRM_EXTENSION,
    VIDEO_EXTENSIONS,
    EpisodeMarker,
    ExtraType,
    FileKind,
    MovieFile,
    StackPart,
    classify,
    extra_type_of,
    group_episode_versions,
    group_stacks,
    group_versions,
    is_sample,
    is_video,
    parse_episode,
    parse_movie,
    parse_season_folder,
    parse_series_folder,
    sort_name,
    split_version,
    stack_part,
)

from .cases.classify import CLASSIFY
from .cases.episodes import (
    ABSOLUTE,
    BROADCAST,
    CROSS,
    DATED,
    EPISODE_ONLY,
    EPISODE_RANGES,
    LEADING,
    LEADING_PAIRS,
    NOT_EPISODES,
    SEASON_EPISODE,
    SEASON_FOLDERS,
    WORDS,
)
from .cases.files import EXTRAS, SAMPLES, VIDEO_NAMES
from .cases.groups import EPISODE_VERSIONS, SPLIT_VERSIONS, STACK_PARTS, STACKS, VERSION_GROUPS
from .cases.movies import MOVIES, MOVIES_3D, SERIES_FOLDERS, SORT_NAMES, TAGS

# ---------------------------------------------------------------- files


def test_video_extensions_cover_at_least_forty_lowercase_containers() -> None:
    assert len(VIDEO_EXTENSIONS) >= 40
    assert all(ext.startswith(".") and ext == ext.lower() for ext in VIDEO_EXTENSIONS)
    assert STRM_EXTENSION == ".strm" and STRM_EXTENSION not in VIDEO_EXTENSIONS


@pytest.mark.parametrize("extension", sorted(VIDEO_EXTENSIONS))
def test_every_listed_container_is_a_video_in_any_case(extension: str) -> None:
    assert is_video(f"Movie (2010){extension}")
    assert is_video(f"Movie (2010){extension.upper()}")


@pytest.mark.parametrize(("name", "expected"), VIDEO_NAMES)
def test_is_video_by_extension(name: str, expected: bool) -> None:
    assert is_video(name) is expected


@pytest.mark.parametrize(("path", "expected"), SAMPLES)
def test_sample_rule(path: str, expected: bool) -> None:
    assert is_sample(path) is expected
    assert is_sample(PurePosixPath(path)) is expected


@pytest.mark.parametrize(("parts", "expected"), EXTRAS)
def test_extra_type_from_suffix_or_folder(parts: tuple[str, ...], expected: ExtraType | None) -> None:
    assert extra_type_of(parts) == expected


def test_extra_types_are_the_reference_strings() -> None:
    assert [str(t) for t in ExtraType] == [
        "Trailer", "BehindTheScenes", "DeletedScene", "Featurette", "Interview",
        "Scene", "Short", "Clip", "Other", "AdditionalPart", "ThemeSong", "ThemeVideo",
    ]
    assert extra_type_of(["Movie-trailer.mkv"]) == "Trailer"


# --------------------------------------------------------------- movies


@pytest.mark.parametrize(("name", "title", "year"), MOVIES)
def test_parse_movie_title_and_year(name: str, title: str, year: int | None) -> None:
    parsed = parse_movie(name)
    assert (parsed.title, parsed.year) == (title, year)


@pytest.mark.parametrize(("stem", "title", "year", "format3d"), MOVIES_3D)
def test_3d_markers_are_the_version_format_not_the_title(
    stem: str, title: str, year: int | None, format3d: str | None
) -> None:
    assert (parse_movie(stem).title, parse_movie(stem).year) == (title, year)
    found = classify(f"{stem}.mkv", "movies")
    assert isinstance(found, MovieFile) and found.format3d == format3d


@pytest.mark.parametrize(("name", "tags"), TAGS)
def test_parse_movie_keeps_bracketed_tags(name: str, tags: tuple[str, ...]) -> None:
    assert parse_movie(name).tags == tags


@pytest.mark.parametrize(("name", "title", "year"), SERIES_FOLDERS)
def test_parse_series_folder(name: str, title: str, year: int | None) -> None:
    parsed = parse_series_folder(name)
    assert (parsed.title, parsed.year) == (title, year)


@pytest.mark.parametrize(("title", "expected"), SORT_NAMES)
def test_sort_name_drops_leading_article(title: str, expected: str) -> None:
    assert sort_name(title) == expected


# ------------------------------------------------------------- episodes


@pytest.mark.parametrize(("stem", "season", "episode", "end", "hint", "title"), SEASON_EPISODE)
def test_season_episode_marker(
    stem: str, season: int, episode: int, end: int | None, hint: str | None, title: str | None
) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.SEASON_EPISODE
    assert (parsed.season, parsed.episode, parsed.episode_end) == (season, episode, end)
    assert (parsed.series_hint, parsed.title) == (hint, title)


@pytest.mark.parametrize(("stem", "season", "episode", "end", "hint", "title"), CROSS)
def test_cross_marker(
    stem: str, season: int, episode: int, end: int | None, hint: str | None, title: str | None
) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.CROSS
    assert (parsed.season, parsed.episode, parsed.episode_end) == (season, episode, end)
    assert (parsed.series_hint, parsed.title) == (hint, title)


@pytest.mark.parametrize(("stem", "season", "episode", "hint", "title"), WORDS)
def test_season_and_episode_in_words(
    stem: str, season: int, episode: int, hint: str | None, title: str | None
) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.WORDS
    assert (parsed.season, parsed.episode, parsed.series_hint, parsed.title) == (season, episode, hint, title)


@pytest.mark.parametrize(("stem", "air_date", "hint", "title"), DATED)
def test_dated_episode(stem: str, air_date: datetime.date, hint: str | None, title: str | None) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.DATE
    assert (parsed.air_date, parsed.season, parsed.episode) == (air_date, None, None)
    assert (parsed.series_hint, parsed.title) == (hint, title)


@pytest.mark.parametrize(("stem", "episode", "hint", "title"), EPISODE_ONLY)
def test_episode_number_without_season(stem: str, episode: int, hint: str | None, title: str | None) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.EPISODE
    assert (parsed.season, parsed.episode, parsed.series_hint, parsed.title) == (None, episode, hint, title)


@pytest.mark.parametrize(("stem", "episode", "end", "hint", "title"), EPISODE_RANGES)
def test_episode_range_without_season(
    stem: str, episode: int, end: int, hint: str | None, title: str | None
) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.EPISODE
    assert (parsed.season, parsed.episode, parsed.episode_end) == (None, episode, end)
    assert (parsed.series_hint, parsed.title) == (hint, title)


@pytest.mark.parametrize(("stem", "episode", "air_date", "hint", "title"), BROADCAST)
def test_broadcast_episode_with_its_air_date(
    stem: str, episode: int, air_date: datetime.date | None, hint: str | None, title: str | None
) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.EPISODE
    assert (parsed.episode, parsed.air_date, parsed.series_hint, parsed.title) == (episode, air_date, hint, title)


@pytest.mark.parametrize(("stem", "absolute", "hint", "title"), ABSOLUTE)
def test_absolute_numbering(stem: str, absolute: int, hint: str | None, title: str | None) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.ABSOLUTE
    assert (parsed.season, parsed.episode, parsed.absolute) == (None, None, absolute)
    assert (parsed.series_hint, parsed.title) == (hint, title)


@pytest.mark.parametrize(("stem", "episode", "title"), LEADING)
def test_leading_number(stem: str, episode: int, title: str | None) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.LEADING
    assert (parsed.season, parsed.episode, parsed.series_hint, parsed.title) == (None, episode, None, title)


@pytest.mark.parametrize(("stem", "season", "episode", "end", "title"), LEADING_PAIRS)
def test_leading_pair(stem: str, season: int | None, episode: int, end: int | None, title: str | None) -> None:
    parsed = parse_episode(stem)
    assert parsed is not None and parsed.marker is EpisodeMarker.LEADING
    assert (parsed.season, parsed.episode, parsed.episode_end, parsed.title) == (season, episode, end, title)


@pytest.mark.parametrize("stem", NOT_EPISODES)
def test_names_without_an_episode_marker(stem: str) -> None:
    assert parse_episode(stem) is None


def test_three_digit_number_is_never_split_into_season_and_episode() -> None:
    parsed = parse_episode("Show - 102")
    assert parsed is not None
    assert (parsed.season, parsed.episode, parsed.absolute) == (None, None, 102)


@pytest.mark.parametrize(("name", "season"), SEASON_FOLDERS)
def test_season_folder(name: str, season: int | None) -> None:
    assert parse_season_folder(name) == season


# --------------------------------------------------------------- groups


@pytest.mark.parametrize(("stem", "expected"), STACK_PARTS)
def test_stack_part_marker(stem: str, expected: tuple[str, int, bool] | None) -> None:
    assert stack_part(stem) == (None if expected is None else StackPart(*expected))


@pytest.mark.parametrize(("stems", "expected"), STACKS)
def test_group_stacks_only_real_stacks(
    stems: list[str], expected: list[tuple[str, tuple[str, ...]]]
) -> None:
    assert [(stack.base, stack.stems) for stack in group_stacks(stems)] == expected


@pytest.mark.parametrize(("stem", "base", "expected"), SPLIT_VERSIONS)
def test_split_version_label(stem: str, base: str, expected: str | None) -> None:
    assert split_version(stem, base) == expected


@pytest.mark.parametrize(("stems", "folder", "expected"), VERSION_GROUPS)
def test_group_versions_and_primary(stems: list[str], folder: str | None, expected: list[Any]) -> None:
    groups = group_versions(stems, folder)
    got = [(g.base, [(v.stem, v.label, v.parts) for v in g.versions]) for g in groups]
    assert got == expected
    assert [g.member_count for g in groups] == [len(versions) - 1 for _, versions in expected]


@pytest.mark.parametrize(("stems", "folder", "expected"), VERSION_GROUPS)
def test_group_versions_ignores_input_order(stems: list[str], folder: str | None, expected: list[Any]) -> None:
    assert group_versions(list(reversed(stems)), folder) == group_versions(stems, folder)


@pytest.mark.parametrize(("stems", "expected"), EPISODE_VERSIONS)
def test_group_episode_versions(stems: list[str], expected: list[Any]) -> None:
    groups = group_episode_versions(stems)
    assert [(g.base, [(v.stem, v.label) for v in g.versions]) for g in groups] == expected
    assert group_episode_versions(list(reversed(stems))) == groups


# ------------------------------------------------------------- classify


@pytest.mark.parametrize(("path", "kind", "cls", "fields"), CLASSIFY)
def test_classify(path: str, kind: str, cls: str, fields: dict[str, Any]) -> None:
    result = classify(PurePosixPath(path), kind)
    assert type(result).__name__ == cls
    assert result.path == path
    assert {name: getattr(result, name) for name in fields} == fields


def test_classify_accepts_strings_and_reports_the_kind() -> None:
    result = classify("Arrival (2016)/Arrival (2016).mkv", "movies")
    assert result.kind is FileKind.MOVIE
    assert classify("Show/Season 1/S01E01.mkv", "tvshows").kind is FileKind.EPISODE
    assert classify("Show/Season 1/x.nfo", "tvshows").kind is FileKind.SKIPPED


def test_classify_rejects_an_unknown_library_kind() -> None:
    with pytest.raises(ValueError, match="library kind"):
        classify("Arrival (2016).mkv", "music")


# ------------------------------------------------------------ robustness

_NAME_CHARS = string.ascii_letters + string.digits + " ._-()[]{}'&!,#"
_names = st.text(alphabet=_NAME_CHARS, min_size=1, max_size=60)


@pytest.mark.parametrize("name", ["Movie 2²33", "Movie.2²33.1080p", "Show ²⁰²¹", "Show - ٢٠١٩"])
def test_digits_that_are_not_ascii_never_break_the_parsers(name: str) -> None:
    assert parse_movie(name).title
    parse_series_folder(name)
    parse_episode(name)
    for kind in ("movies", "tvshows", "mixed"):
        assert classify(f"Folder/{name}.mkv", kind).path == f"Folder/{name}.mkv"


@settings(max_examples=300, deadline=None)
@given(name=_names)
def test_parse_movie_always_gives_a_title(name: str) -> None:
    parsed = parse_movie(name)
    assert parsed.title or not name.strip()


@settings(max_examples=300, deadline=None)
@given(
    folders=st.lists(_names.filter(lambda n: "/" not in n), max_size=4),
    stem=_names,
    ext=st.sampled_from([".mkv", ".mp4", ".strm", ".nfo", ".srt"]),
    kind=st.sampled_from(["movies", "tvshows", "mixed"]),
)
def test_classify_never_raises_on_odd_names(folders: list[str], stem: str, ext: str, kind: str) -> None:
    path = "/".join([*folders, stem + ext])
    assert classify(path, kind).path == path


@settings(max_examples=300, deadline=None)
@given(stem=_names)
def test_parsed_episode_ranges_hold(stem: str) -> None:
    parsed = parse_episode(stem)
    if parsed is not None and parsed.episode_end is not None:
        assert parsed.episode is not None and parsed.episode_end > parsed.episode
