"""media.assembly: directory listings -> item drafts, on synthetic listings (no I/O)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from reelhouse.media.assembly import (
    FileStat,
    ItemDraft,
    Listing,
    ScanRules,
    assemble_directory,
    container_of,
    external_streams,
    fingerprint,
    item_id,
    metadata_from_nfo,
    person_id,
    resolve_owner,
    season_draft,
    series_draft,
    strm_target,
)
from reelhouse.media.nfo import NfoData, NfoPerson, PersonKind

ROOT = "/media/lib"


def listing(rel_dir: str, *names: str, size: int = 1000, sizes: dict[str, int] | None = None) -> Listing:
    sizes = sizes or {}
    files = tuple(FileStat(n, sizes.get(n, size), 1_000) for n in sorted(names))
    return Listing(ROOT, rel_dir, files)


def drafts(kind: str, rel_dir: str, *names: str, **rules: Any) -> list[ItemDraft]:
    return list(assemble_directory(listing(rel_dir, *names), ScanRules("lib", kind, **rules)).items)


def by_name(items: list[ItemDraft]) -> dict[str, ItemDraft]:
    return {item.path.rpartition("/")[2]: item for item in items if item.path}


def vid(rel: str) -> str:
    return item_id("lib", "video", f"{ROOT}/{rel}")


# (library kind, directory, files, {file name: expected draft attributes})
CASES: list[tuple[str, str, tuple[str, ...], dict[str, dict[str, Any]]]] = [
    # a movie in its own folder takes the folder's name, year, movie.nfo and poster
    ("movies", "Arrival (2016)", ("Arrival (2016).mkv", "movie.nfo", "poster.jpg"),
     {"Arrival (2016).mkv": {"type": "Movie", "name": "Arrival", "production_year": 2016,
                             "version_of": None, "nfo_kind": "movie"}}),
    # release names in a movie folder still take the folder's name
    ("movies", "Arrival (2016)", ("arrival.2016.1080p.bluray-grp.mkv",),
     {"arrival.2016.1080p.bluray-grp.mkv": {"name": "Arrival", "production_year": 2016}}),
    # flat movies: each file is a movie named by its stem, without the year
    ("movies", "", ("Arrival (2016).mkv", "Blade.Runner.2049.2017.1080p.BluRay.x264-GRP.mkv", "1917 (2019).mp4"),
     {"Arrival (2016).mkv": {"name": "Arrival", "production_year": 2016},
      "Blade.Runner.2049.2017.1080p.BluRay.x264-GRP.mkv": {"name": "Blade Runner 2049", "production_year": 2017},
      "1917 (2019).mp4": {"name": "1917", "production_year": 2019}}),
    # versions: the plain name is primary, the others point to it
    ("movies", "Arrival (2016)", ("Arrival (2016).mkv", "Arrival (2016) - 4K.mkv", "Arrival (2016) [1080p].mkv"),
     {"Arrival (2016).mkv": {"type": "Movie", "version_of": None},
      "Arrival (2016) - 4K.mkv": {"type": "Movie", "version_of": vid("Arrival (2016)/Arrival (2016).mkv"), "name": "Arrival"},
      "Arrival (2016) [1080p].mkv": {"version_of": vid("Arrival (2016)/Arrival (2016).mkv")}}),
    # without a plain version the highest resolution is primary
    ("movies", "Arrival (2016)", ("Arrival (2016) - 1080p.mkv", "Arrival (2016) - 4K.mkv"),
     {"Arrival (2016) - 4K.mkv": {"version_of": None},
      "Arrival (2016) - 1080p.mkv": {"version_of": vid("Arrival (2016)/Arrival (2016) - 4K.mkv")}}),
    # a stack: the first part is the movie, later parts are AdditionalPart videos it owns
    ("movies", "", ("Movie (2010) - cd1.avi", "Movie (2010) - cd2.avi", "Movie (2010) - cd3.avi"),
     {"Movie (2010) - cd1.avi": {"type": "Movie", "name": "Movie", "production_year": 2010, "extra_type": None},
      "Movie (2010) - cd2.avi": {"type": "Video", "extra_type": "AdditionalPart", "index_number": 2, "part_number": 2,
                                 "owner_id": vid("Movie (2010) - cd1.avi")},
      "Movie (2010) - cd3.avi": {"index_number": 3, "owner_id": vid("Movie (2010) - cd1.avi")}}),
    # extras: suffix, bare trailer and an extras folder (owner looked up by folder)
    ("movies", "Arrival (2016)", ("Arrival (2016).mkv", "Arrival (2016)-trailer.mkv", "trailer2.mkv"),
     {"Arrival (2016).mkv": {"type": "Movie"},
      "Arrival (2016)-trailer.mkv": {"type": "Video", "extra_type": "Trailer",
                                     "owner_id": vid("Arrival (2016)/Arrival (2016).mkv")},
      "trailer2.mkv": {"extra_type": "Trailer", "owner_id": vid("Arrival (2016)/Arrival (2016).mkv")}}),
    ("movies", "Arrival (2016)/extras", ("Making of.mkv",),
     {"Making of.mkv": {"type": "Video", "extra_type": "Other", "owner_id": None,
                        "owner_folder": f"{ROOT}/Arrival (2016)", "name": "Making of", "index_number": 1}}),
    ("movies", "Arrival (2016)/featurettes", ("A.mkv", "B.mkv"),
     {"A.mkv": {"extra_type": "Featurette", "index_number": 1}, "B.mkv": {"index_number": 2}}),
    # series: episodes in a season folder
    ("tvshows", "Dark/Season 1", ("Dark - S01E01 - Secrets.mkv", "Dark - S01E02-E03.mkv", "Dark - S01E04.mkv"),
     {"Dark - S01E01 - Secrets.mkv": {"type": "Episode", "name": "Secrets", "index_number": 1,
                                      "parent_index_number": 1, "index_number_end": None,
                                      "season_id": item_id("lib", "season", f"{ROOT}/Dark/Season 1"),
                                      "parent_id": item_id("lib", "season", f"{ROOT}/Dark/Season 1"),
                                      "series_id": item_id("lib", "series", f"{ROOT}/Dark")},
      "Dark - S01E02-E03.mkv": {"index_number": 2, "index_number_end": 3, "name": "Episode 2"},
      "Dark - S01E04.mkv": {"name": "Episode 4"}}),
    # specials are season 0
    ("tvshows", "Dark/Specials", ("Dark - S00E01.mkv",),
     {"Dark - S00E01.mkv": {"parent_index_number": 0,
                            "season_id": item_id("lib", "season", f"{ROOT}/Dark/Specials")}}),
    # episodes directly under the series folder: no season, parent is the series
    ("tvshows", "Dark", ("Dark S01E01.mkv",),
     {"Dark S01E01.mkv": {"season_id": None, "parent_id": item_id("lib", "series", f"{ROOT}/Dark"),
                          "series_id": item_id("lib", "series", f"{ROOT}/Dark"), "parent_index_number": 1}}),
    # samples are never indexed
    ("movies", "Arrival (2016)", ("Arrival (2016).mkv", "sample.mkv", "Arrival (2016)-sample.mkv"),
     {"Arrival (2016).mkv": {"type": "Movie"}}),
    # mixed libraries: movies and episodes by the naming rules
    ("mixed", "Stuff", ("Arrival (2016).mkv", "Show 1x02.mkv"),
     {"Arrival (2016).mkv": {"type": "Movie"}, "Show 1x02.mkv": {"type": "Episode", "index_number": 2}}),
    # .strm pointer files are videos too
    ("movies", "", ("Remote (2020).strm",), {"Remote (2020).strm": {"type": "Movie", "strm": True}}),
]


@pytest.mark.parametrize(("kind", "rel_dir", "names", "expected"), CASES)
def test_assemble_directory_drafts_items(kind: str, rel_dir: str, names: tuple[str, ...], expected: dict[str, dict[str, Any]]) -> None:
    found = by_name(drafts(kind, rel_dir, *names))
    assert set(found) == set(expected)
    for name, attributes in expected.items():
        for attribute, value in attributes.items():
            assert getattr(found[name], attribute) == value, (name, attribute)


def test_items_come_after_the_items_they_point_to() -> None:
    items = drafts(
        "movies", "M (2010)",
        "M (2010) - 4K.mkv", "M (2010) - 1080p.mkv", "M (2010)-trailer.mkv", "a - cd1.mkv", "a - cd2.mkv",
    )  # fmt: skip
    position = {item.id: n for n, item in enumerate(items)}
    for item in items:
        for target in (item.version_of, item.owner_id):
            if target is not None:
                assert position[target] < position[item.id]


# (files, rules, names that stay)
EXCLUSIONS: list[tuple[tuple[str, ...], dict[str, Any], set[str]]] = [
    # keywords: whole words of the stem, case-insensitive; "_" and "." separate words
    (("Movie.CAM.mkv", "Camera (2010).mkv", "Other_cam_rip.mkv", "Fine (2001).mkv"),
     {"exclude_keywords": ("cam",)}, {"Camera (2010).mkv", "Fine (2001).mkv"}),
    (("Movie (2001) - Dubbed Version.mkv", "Movie (2002).mkv"),
     {"exclude_keywords": ("dubbed version",)}, {"Movie (2002).mkv"}),
    # extensions, with or without the dot
    (("A (2001).mkv", "B (2002).avi", "C (2003).wmv"), {"exclude_extensions": (".avi", "wmv")}, {"A (2001).mkv"}),
    # size: a file exactly at the threshold is kept; .strm files are never size-excluded
    (("Small (2001).mkv", "Exact (2002).mkv", "Big (2003).mkv", "Tiny (2004).strm"),
     {"exclude_smaller_than_bytes": 1000}, {"Exact (2002).mkv", "Big (2003).mkv", "Tiny (2004).strm"}),
    # nor are .disc stubs (a disc's label)
    (("Shelf (2005).disc", "Small (2001).mkv"), {"exclude_smaller_than_bytes": 1000}, {"Shelf (2005).disc"}),
]
SIZES = {
    "Small (2001).mkv": 999, "Exact (2002).mkv": 1000, "Big (2003).mkv": 5000, "Tiny (2004).strm": 10,
    "Shelf (2005).disc": 20,
}


@pytest.mark.parametrize(("names", "rules", "kept"), EXCLUSIONS)
def test_exclusion_rules_drop_media_files(names: tuple[str, ...], rules: dict[str, Any], kept: set[str]) -> None:
    found = assemble_directory(listing("", *names, sizes=SIZES), ScanRules("lib", "movies", **rules))
    assert {item.path.rpartition("/")[2] for item in found.items if item.path} == kept


def test_exclusion_keywords_never_match_directory_names() -> None:
    found = assemble_directory(listing("CAM Stuff/Movie (2001)", "Movie (2001).mkv"), ScanRules("lib", "movies", exclude_keywords=("cam",)))
    assert [item.name for item in found.items] == ["Movie"]


def test_local_images_go_to_the_folder_movie_and_to_their_video() -> None:
    found = by_name(drafts(
        "movies", "", "A (2001).mkv", "A (2001)-poster.jpg", "A (2001)-fanart2.png", "B (2002).mkv", "B (2002).jpg", "poster.jpg",
    ))  # fmt: skip
    assert [(i.file.name, i.kind, i.index) for i in found["A (2001).mkv"].images] == [
        ("A (2001)-fanart2.png", "backdrop", 2), ("A (2001)-poster.jpg", "primary", 0),
    ]  # fmt: skip
    assert [i.file.name for i in found["B (2002).mkv"].images] == ["B (2002).jpg"]  # poster.jpg: no owner in a flat folder


def test_companions_follow_their_video_and_external_audio_can_be_off() -> None:
    names = ("Movie (2001).mkv", "Movie (2001).en.srt", "Movie (2001).de.forced.ass", "Movie (2001).commentary.mka")
    found = by_name(drafts("movies", "Movie (2001)", *names))["Movie (2001).mkv"]
    streams = external_streams(found)
    assert [(s.type, s.codec, s.language, s.is_forced) for s in streams] == [
        ("Audio", "mka", None, False), ("Subtitle", "ass", "ger", True), ("Subtitle", "subrip", "eng", False),
    ]  # fmt: skip
    assert [s.index for s in streams] == [0, 1, 2]
    without_audio = by_name(drafts("movies", "Movie (2001)", *names, external_audio=False))["Movie (2001).mkv"]
    assert {c.companion.kind.value for c in without_audio.companions} == {"Subtitle"}


def test_a_movie_nfo_is_only_used_in_the_movie_own_folder() -> None:
    flat = by_name(drafts("movies", "", "A (2001).mkv", "movie.nfo"))["A (2001).mkv"]
    assert flat.nfo is None
    own = by_name(drafts("movies", "A (2001)", "A (2001).mkv", "A (2001).nfo", "movie.nfo"))["A (2001).mkv"]
    assert own.nfo is not None and own.nfo.name == "A (2001).nfo"


def test_episode_nfo_is_named_after_the_video_case_insensitively() -> None:
    found = by_name(drafts("tvshows", "S/Season 1", "S - S01E01.mkv", "s - s01e01.NFO"))["S - S01E01.mkv"]
    assert found.nfo is not None and found.nfo_kind == "episode"


def test_series_and_season_drafts_come_from_their_folders() -> None:
    result = assemble_directory(listing("Dark/Season 1", "Dark - S01E01.mkv"), ScanRules("lib", "tvshows"))
    (series_ref,) = result.series
    (season_ref,) = result.seasons
    rules = ScanRules("lib", "tvshows")
    series = series_draft(series_ref, listing("Dark", "tvshow.nfo", "poster.jpg", "season01-poster.jpg"), rules)
    assert (series.type, series.name, series.path, series.nfo_kind) == ("Series", "Dark", f"{ROOT}/Dark", "tvshow")
    assert [i.file.name for i in series.images] == ["poster.jpg"]
    season = season_draft(season_ref, listing("Dark/Season 1"), listing("Dark", "season01-poster.jpg"), rules)
    assert (season.type, season.name, season.index_number, season.parent_id) == ("Season", "Season 1", 1, series.id)
    assert [i.path for i in season.images] == [f"{ROOT}/Dark/season01-poster.jpg"]


def test_specials_season_is_named_specials() -> None:
    result = assemble_directory(listing("Dark/Season 00", "Dark - S00E01.mkv"), ScanRules("lib", "tvshows"))
    season = season_draft(result.seasons[0], None, None, ScanRules("lib", "tvshows"))
    assert (season.name, season.index_number) == ("Specials", 0)


def test_episodes_at_the_root_without_a_folder_form_a_series_named_by_the_files() -> None:
    result = assemble_directory(listing("", "Show.S01E01.mkv", "Other.S01E01.mkv"), ScanRules("lib", "tvshows"))
    assert sorted((s.title, s.rel_folder) for s in result.series) == [("Other", None), ("Show", None)]
    assert series_draft(result.series[0], None, ScanRules("lib", "tvshows")).path is None


def test_root_season_folders_belong_to_the_root_as_series() -> None:
    result = assemble_directory(Listing("/media/Dark (2017)", "Season 1", (FileStat("S01E01.mkv", 1, 1),)), ScanRules("lib", "tvshows"))
    assert [(s.title, s.year, s.rel_folder) for s in result.series] == [("Dark", 2017, "")]


def test_a_release_season_folder_at_the_root_names_its_series() -> None:
    result = assemble_directory(
        listing("The.Show.S01.720p.WEB", "The.Show.S01E01.720p.mkv", "The.Show.S01E02.720p.mkv"),
        ScanRules("lib", "tvshows"),
    )
    assert [(s.title, s.rel_folder) for s in result.series] == [("The Show", None)]
    assert [(s.rel_folder, s.number) for s in result.seasons] == [("The.Show.S01.720p.WEB", 1)]


def test_a_disc_folder_inside_a_season_folder_keeps_the_season_and_series() -> None:
    result = assemble_directory(listing("Show/Season 10/Disc 1", "Show S10E01.mkv"), ScanRules("lib", "tvshows"))
    assert [(s.title, s.rel_folder) for s in result.series] == [("Show", "Show")]
    assert [(s.rel_folder, s.number) for s in result.seasons] == [("Show/Season 10", 10)]


def test_episode_versions_point_to_their_primary() -> None:
    items = by_name(drafts(
        "tvshows", "Show/Season 1",
        "Show - S01E01 - 720p.mkv", "Show - S01E01 - 1080p.mkv", "Show - S01E02 - 720p.mkv",
    ))
    primary = items["Show - S01E01 - 1080p.mkv"]
    assert primary.version_of is None
    assert items["Show - S01E01 - 720p.mkv"].version_of == primary.id
    assert items["Show - S01E02 - 720p.mkv"].version_of is None
    assert (primary.index_number, items["Show - S01E01 - 720p.mkv"].index_number) == (1, 1)


def test_theme_song_next_to_a_movie_is_its_theme_song_extra() -> None:
    items = by_name(drafts("movies", "Arrival (2016)", "Arrival (2016).mkv", "theme.mp3", "Arrival (2016).en.mp3"))
    movie, theme = items["Arrival (2016).mkv"], items["theme.mp3"]
    assert (theme.type, theme.extra_type, theme.owner_id) == ("Video", "ThemeSong", movie.id)
    # other audio files stay companions (external audio), not extras
    assert [c.file.name for c in movie.companions] == ["Arrival (2016).en.mp3"]


def test_theme_videos_in_backdrops_belong_to_the_folder_above() -> None:
    (theme,) = drafts("movies", "Arrival (2016)/backdrops", "intro.mp4")
    assert (theme.type, theme.extra_type, theme.owner_id) == ("Video", "ThemeVideo", None)
    assert theme.owner_folder == f"{ROOT}/Arrival (2016)"


def test_a_disc_stub_is_an_offline_item() -> None:
    items = by_name(drafts("movies", "Arrival (2016)", "Arrival (2016).disc", "Other (2001).mkv"))
    assert (items["Arrival (2016).disc"].type, items["Arrival (2016).disc"].offline) == ("Movie", True)
    assert items["Other (2001).mkv"].offline is False
    (episode,) = drafts("tvshows", "Show/Season 1", "Show - S01E01.disc")
    assert (episode.type, episode.index_number, episode.offline) == ("Episode", 1, True)


def test_a_3d_version_carries_its_format() -> None:
    items = by_name(drafts("movies", "Avatar (2009)", "Avatar (2009).mkv", "Avatar (2009) - 3D HSBS.mkv"))
    plain, three_d = items["Avatar (2009).mkv"], items["Avatar (2009) - 3D HSBS.mkv"]
    assert (plain.format3d, plain.version_of) == (None, None)
    assert (three_d.format3d, three_d.version_of, three_d.name) == ("HSBS", plain.id, "Avatar")


def test_resolving_an_extra_without_owner_makes_it_a_standalone_video() -> None:
    (extra,) = drafts("movies", "Collection/extras", "Thing.mkv")
    assert extra.owner_folder == f"{ROOT}/Collection"
    owned = resolve_owner(extra, "owner-id")
    assert (owned.owner_id, owned.owner_folder, owned.extra_type) == ("owner-id", None, "Other")
    alone = resolve_owner(extra, None)
    assert (alone.owner_id, alone.extra_type, alone.index_number) == (None, None, None)


def test_item_ids_are_deterministic_short_and_url_safe() -> None:
    first = item_id("lib", "video", "/a/b.mkv")
    assert first == item_id("lib", "video", "/a/b.mkv")
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", first)
    assert len({first, item_id("lib", "series", "/a/b.mkv"), item_id("lib2", "video", "/a/b.mkv"), item_id("lib", "video", "/a/c.mkv")}) == 4
    assert re.fullmatch(r"[A-Za-z0-9_-]+", item_id("lib", "video", "/a/\udcff.mkv"))


def test_fingerprint_changes_with_any_file_the_item_depends_on() -> None:
    rules = ScanRules("lib", "movies")
    base = listing("A (2001)", "A (2001).mkv", "movie.nfo", "poster.jpg")
    (draft,) = assemble_directory(base, rules).items
    assert fingerprint(draft, rules) == fingerprint(assemble_directory(base, rules).items[0], rules)
    for name in ("A (2001).mkv", "movie.nfo", "poster.jpg"):
        touched = replace(base, files=tuple(replace(f, mtime_ms=2_000) if f.name == name else f for f in base.files))
        assert fingerprint(assemble_directory(touched, rules).items[0], rules) != fingerprint(draft, rules), name
    assert fingerprint(draft, ScanRules("lib", "movies", use_nfo=False)) != fingerprint(draft, rules)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"https://example.com/a.mp4\n", "https://example.com/a.mp4"),
        (b"\n\n  http://host:8096/v?id=1  \r\nignored", "http://host:8096/v?id=1"),
        (b"\xef\xbb\xbfhttps://x.example/y", "https://x.example/y"),
    ],
)
def test_strm_target_is_the_first_non_empty_line(data: bytes, expected: str) -> None:
    assert strm_target(data) == expected


@pytest.mark.parametrize("data", [b"", b"   \n", b"file:///etc/passwd", b"ftp://host/x", b"/local/path.mkv", b"https://", b"http://a b/c"])
def test_strm_target_refuses_anything_but_http_urls(data: bytes) -> None:
    with pytest.raises(ValueError):
        strm_target(data)


@pytest.mark.parametrize(
    ("name", "container"),
    [("a.mkv", "mkv"), ("a.TS", "mpegts"), ("a.m2ts", "mpegts"), ("a.strm", "strm"), ("a.mp4", "mp4")],
)
def test_container_until_probed_comes_from_the_extension(name: str, container: str) -> None:
    assert container_of(name) == container


def test_metadata_from_nfo_takes_nfo_values_over_parsed_ones() -> None:
    (draft,) = drafts("movies", "A (2001)", "A (2001).mkv")
    nfo = NfoData(
        kind="movie", title="The Real Title", sort_title=None, year=2002, plot="Plot.", runtime_minutes=90,
        genres=("Drama", "Comedy"), studios=("S",), countries=("France",), community_rating=7.5,
        provider_ids={"tmdb": "1", "imdb": "tt1"}, lock_data=True,
        people=(NfoPerson("Ann", PersonKind.ACTOR, "Hero", 3), NfoPerson("Ann", PersonKind.ACTOR, "Hero", 3),
                NfoPerson("Bob", PersonKind.DIRECTOR)),
    )  # fmt: skip
    meta = metadata_from_nfo(draft, nfo)
    assert (meta.name, meta.sort_name, meta.production_year, meta.overview) == ("The Real Title", "Real Title", 2002, "Plot.")
    assert meta.runtime_ticks == 90 * 60 * 10_000_000
    assert meta.values == (("genre", "Drama"), ("genre", "Comedy"), ("studio", "S"), ("country", "France"))
    assert [(c.name, c.kind, c.role, c.order) for c in meta.credits] == [("Ann", "Actor", "Hero", 3), ("Bob", "Director", "", 2)]
    assert meta.credits[0].person_id == person_id("ann")
    assert meta.provider_ids == '{"imdb": "tt1", "tmdb": "1"}'
    assert meta.lock_data and meta.community_rating == 7.5


def test_episode_numbers_from_the_nfo_fill_in_what_the_name_lacks() -> None:
    (draft,) = drafts("tvshows", "Show/Specials", "Behind the Show.mkv")
    meta = metadata_from_nfo(draft, NfoData(kind="episode", title="Making", episode_number=4, season_number=7))
    assert (meta.name, meta.index_number, meta.parent_index_number) == ("Making", 4, 0)


def test_titles_cut_from_names_that_are_not_utf8_show_replacement_characters() -> None:
    # Listings hold path text (media.file_names): b"Caf\xe9" is "Caf\\xe9".
    movie, trailer = drafts("movies", "Caf\\xe9 (2001)", "Caf\\xe9 (2001).mkv", "Caf\\xe9 (2001)-trailer.mkv")
    assert (movie.name, movie.sort_name, movie.path) == ("Caf\ufffd", "Caf\ufffd", f"{ROOT}/Caf\\xe9 (2001)/Caf\\xe9 (2001).mkv")
    resolved = resolve_owner(trailer, movie.id)  # a draft copied again keeps its title
    assert (trailer.name, resolved.name) == ("Caf\ufffd (2001)-trailer", "Caf\ufffd (2001)-trailer")
    found = assemble_directory(listing("Caf\\xe9 Show/Season 1", "Caf\\xe9 Show - S01E01 - Ol\\xe9.mkv"), ScanRules("lib", "tvshows"))
    (episode,) = found.items
    (series,) = found.series
    assert episode.name == "Ol\ufffd" and series_draft(series, None, ScanRules("lib", "tvshows")).name == "Caf\ufffd Show"
    # A literal backslash sequence is kept as written (its path text escapes the backslash).
    (literal,) = drafts("movies", "", "a\\x5cxe9 (2001).mkv")
    assert literal.name == "a\\xe9"


def test_an_episode_in_two_parts_is_one_episode_with_an_additional_part() -> None:
    items = by_name(drafts(
        "tvshows", "Show/Season 1",
        "Show - S01E01 - 1080p part1.mkv", "Show - S01E01 - 1080p part2.mkv", "Show - S01E01 - 720p.mkv",
    ))
    first, second, other = (items[f"Show - S01E01 - {n}.mkv"] for n in ("1080p part1", "1080p part2", "720p"))
    assert (first.type, first.index_number, first.version_of) == ("Episode", 1, None)
    assert (second.type, second.extra_type, second.part_number, second.owner_id) == (
        "Video", "AdditionalPart", 2, first.id)
    assert (second.season_id, second.series_id, second.nfo) == (None, None, None)
    assert other.version_of == first.id  # the stack is one version, the 1080p one, so the primary


def test_an_episode_title_ending_in_part_2_is_no_stack() -> None:
    items = by_name(drafts(
        "tvshows", "Show/Season 1",
        "Show - S01E05 - The Flood Part 1.mkv", "Show - S01E06 - The Flood Part 2.mkv",
    ))
    assert [(d.type, d.index_number) for d in items.values()] == [("Episode", 5), ("Episode", 6)]
