"""run_scan on real directory trees, on both backends."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
import trio

import reelhouse.actors.scan.walk as walk
from reelhouse.actors.scan import ScanDeps, item_id

from .conftest import LIBRARY_ID, SCAN_LIMIT_S, Library, Tree
from .pipeline_samples import MOVIE_NFO, PLAYBACK, png


async def test_movies_flat_and_in_folders_get_names_and_years(tree: Tree, library: Library) -> None:
    tree.add("Arrival (2016)/Arrival (2016).mkv")
    tree.add("Blade.Runner.2049.2017.1080p.BluRay.x264-GRP.mkv")
    tree.add("Drama/Die Hard (1988).mp4")
    outcome = await library.scan()
    items = await library.items()
    assert {(i["name"], i["production_year"], i["type"]) for i in items.values()} == {
        ("Arrival", 2016, "Movie"), ("Blade Runner 2049", 2017, "Movie"), ("Die Hard", 1988, "Movie"),
    }  # fmt: skip
    assert (outcome.added, outcome.changed, outcome.missing, outcome.errors) == (3, 0, 0, 0)
    assert outcome.processed == 3 and library.progress.processed == 3
    arrival = items["Arrival (2016)/Arrival (2016).mkv"]
    assert arrival["id"] == item_id(LIBRARY_ID, "video", tree.path("Arrival (2016)/Arrival (2016).mkv"))
    assert arrival["dir_path"] == tree.path("Arrival (2016)")
    sources = await library.store.fetch_all("SELECT path, container, size, remote, item_id FROM media_sources")
    assert {(s["path"], s["container"], s["size"], s["remote"]) for s in sources} >= {
        (tree.path("Arrival (2016)/Arrival (2016).mkv"), "mkv", 64, 0),
    }


async def test_versions_stacks_extras_and_samples(tree: Tree, library: Library) -> None:
    for name in ("M (2010).mkv", "M (2010) - 4K.mkv", "M (2010)-trailer.mkv", "sample.mkv", "extras/Making of.mkv", "extras/b-roll-sample.mkv"):
        tree.add(f"M (2010)/{name}")
    tree.add("Long (1999) - cd1.avi")
    tree.add("Long (1999) - cd2.avi")
    tree.add("Long (1999) - cd3.avi")
    await library.scan()
    items = await library.items()
    primary = items["M (2010)/M (2010).mkv"]
    assert items["M (2010)/M (2010) - 4K.mkv"]["version_of"] == primary["id"]
    assert primary["version_of"] is None
    trailer, making_of = items["M (2010)/M (2010)-trailer.mkv"], items["M (2010)/extras/Making of.mkv"]
    assert (trailer["type"], trailer["extra_type"], trailer["owner_id"]) == ("Video", "Trailer", primary["id"])
    assert (making_of["extra_type"], making_of["owner_id"]) == ("Other", primary["id"])
    assert not any("sample" in path for path in items)
    first = items["Long (1999) - cd1.avi"]
    assert (first["type"], first["name"], first["extra_type"]) == ("Movie", "Long", None)
    parts = [items[f"Long (1999) - cd{n}.avi"] for n in (2, 3)]
    assert [(p["type"], p["extra_type"], p["owner_id"], p["index_number"]) for p in parts] == [
        ("Video", "AdditionalPart", first["id"], 2), ("Video", "AdditionalPart", first["id"], 3),
    ]  # fmt: skip


async def test_theme_media_are_extras_and_disc_stubs_are_items_without_a_source(tree: Tree, library: Library) -> None:
    tree.add("M (2010)/M (2010).mkv")
    tree.add("M (2010)/theme.mp3")
    tree.add("M (2010)/backdrops/intro.mp4")
    tree.add("Shelf (1999)/Shelf (1999).disc", "Disc 1 of the box set")
    await library.scan()
    items = await library.items()
    movie = items["M (2010)/M (2010).mkv"]
    song, video = items["M (2010)/theme.mp3"], items["M (2010)/backdrops/intro.mp4"]
    assert (song["type"], song["extra_type"], song["owner_id"]) == ("Video", "ThemeSong", movie["id"])
    assert (video["type"], video["extra_type"], video["owner_id"]) == ("Video", "ThemeVideo", movie["id"])
    stub = items["Shelf (1999)/Shelf (1999).disc"]
    assert (stub["type"], stub["name"], stub["production_year"]) == ("Movie", "Shelf", 1999)
    sources = await library.store.fetch_all("SELECT item_id FROM media_sources")
    assert stub["id"] not in {s["item_id"] for s in sources}


async def test_series_seasons_specials_and_episodes(tree: Tree, library: Library) -> None:
    library.kind = "tvshows"
    tree.add("Dark (2017)/tvshow.nfo", "<tvshow><title>Dark</title><plot>Time.</plot></tvshow>")
    tree.add("Dark (2017)/Season 1/Dark - S01E01 - Secrets.mkv")
    tree.add("Dark (2017)/Season 1/Dark - S01E02-E03.mkv")
    tree.add("Dark (2017)/Season 1/Dark - S01E04.nfo", "<episodedetails><title>From the NFO</title></episodedetails>")
    tree.add("Dark (2017)/Season 1/Dark - S01E04.mkv")
    tree.add("Dark (2017)/Specials/Dark - S00E01.mkv")
    tree.add("Loose/Loose S01E05.mkv")
    await library.scan()
    items = await library.items()
    series, season, specials = items["Dark (2017)"], items["Dark (2017)/Season 1"], items["Dark (2017)/Specials"]
    assert (series["type"], series["name"], series["production_year"], series["overview"]) == ("Series", "Dark", 2017, "Time.")
    assert (season["type"], season["name"], season["index_number"], season["parent_id"]) == ("Season", "Season 1", 1, series["id"])
    assert (specials["name"], specials["index_number"]) == ("Specials", 0)
    first = items["Dark (2017)/Season 1/Dark - S01E01 - Secrets.mkv"]
    assert (first["type"], first["name"], first["index_number"], first["parent_index_number"]) == ("Episode", "Secrets", 1, 1)
    assert (first["series_id"], first["season_id"], first["parent_id"]) == (series["id"], season["id"], season["id"])
    double = items["Dark (2017)/Season 1/Dark - S01E02-E03.mkv"]
    assert (double["name"], double["index_number"], double["index_number_end"]) == ("Episode 2", 2, 3)
    assert items["Dark (2017)/Season 1/Dark - S01E04.mkv"]["name"] == "From the NFO"
    assert items["Dark (2017)/Specials/Dark - S00E01.mkv"]["season_id"] == specials["id"]
    loose = items["Loose/Loose S01E05.mkv"]
    assert (loose["season_id"], loose["parent_id"], loose["parent_index_number"]) == (None, items["Loose"]["id"], 1)
    assert "Loose/Season 1" not in items


async def test_series_and_season_images_come_from_their_folders(tree: Tree, library: Library) -> None:
    library.kind = "tvshows"
    tree.add("Dark/poster.png", png(2, 3))
    tree.add("Dark/season01-poster.png", png(4, 6))
    tree.add("Dark/Season 2/folder.png", png(6, 9))
    tree.add("Dark/Season 1/Dark - S01E01.mkv")
    tree.add("Dark/Season 1/Dark - S01E01-thumb.png", png(16, 9))
    tree.add("Dark/Season 2/Dark - S02E01.mkv")
    outcome = await library.scan()
    rows = await library.store.fetch_all("SELECT i.path AS item, m.kind, m.path, m.width FROM images m JOIN items i ON i.id = m.item_id")
    found = {(r["item"].removeprefix(tree.path() + "/"), r["kind"], r["path"].removeprefix(tree.path() + "/"), r["width"]) for r in rows}
    assert found == {
        ("Dark", "primary", "Dark/poster.png", 2),
        ("Dark/Season 1", "primary", "Dark/season01-poster.png", 4),
        ("Dark/Season 2", "primary", "Dark/Season 2/folder.png", 6),
        ("Dark/Season 1/Dark - S01E01.mkv", "thumb", "Dark/Season 1/Dark - S01E01-thumb.png", 16),
    }
    assert outcome.errors == 0


async def test_mixed_library_tells_movies_from_episodes(tree: Tree, library: Library) -> None:
    library.kind = "mixed"
    tree.add("Movies/Arrival (2016)/Arrival (2016).mkv")
    tree.add("Shows/Dark/Season 1/Dark.S01E01.mkv")
    await library.scan()
    items = await library.items()
    assert items["Movies/Arrival (2016)/Arrival (2016).mkv"]["type"] == "Movie"
    assert items["Shows/Dark/Season 1/Dark.S01E01.mkv"]["type"] == "Episode"
    assert items["Shows/Dark"]["type"] == "Series"


async def test_nfo_values_are_applied(tree: Tree, library: Library) -> None:
    tree.add("Arrival (2016)/Arrival (2016).mkv")
    tree.add("Arrival (2016)/movie.nfo", MOVIE_NFO)
    await library.scan()
    item = (await library.items())["Arrival (2016)/Arrival (2016).mkv"]
    assert (item["name"], item["original_title"], item["sort_name"], item["production_year"]) == (
        "The Arrival", "Arrival", "Arrival, The", 2016,
    )  # fmt: skip
    assert (item["overview"], item["tagline"], item["official_rating"]) == ("Linguists and aliens.", "Why are they here?", "PG-13")
    assert item["runtime_ticks"] == 116 * 60 * 10_000_000
    assert item["community_rating"] == pytest.approx(7.9)
    assert item["lock_data"] == 1 and item["has_nfo"] == 1
    assert json.loads(item["provider_ids"]) == {"imdb": "tt2543164", "tmdb": "329865"}
    assert [r["source"] for r in json.loads(item["extra"])["ratings"]] == ["imdb", "tomatometer"]
    assert item["premiere_date"] == 1478736000000
    values = await library.store.fetch_all("SELECT kind, value FROM item_values WHERE item_id = ? ORDER BY kind, position", (item["id"],))
    assert [(v["kind"], v["value"]) for v in values] == [
        ("country", "United States"), ("genre", "Drama"), ("genre", "Science Fiction"), ("studio", "Paramount"), ("tag", "aliens"),
    ]  # fmt: skip
    credits = await library.store.fetch_all(
        "SELECT p.name, c.kind, c.role, c.sort_order FROM credits c JOIN people p ON p.id = c.person_id"
        " WHERE c.item_id = ? ORDER BY c.kind, c.sort_order",
        (item["id"],),
    )
    assert [tuple(c) for c in credits] == [
        ("Amy Adams", "Actor", "Louise Banks", 0), ("Jeremy Renner", "Actor", "Ian Donnelly", 1),
        ("Denis Villeneuve", "Director", "", 2), ("Eric Heisserer", "Writer", "", 3),
    ]  # fmt: skip


async def test_a_malformed_or_hostile_nfo_is_a_scan_error_and_the_file_is_still_indexed(tree: Tree, library: Library) -> None:
    tree.add("Broken (2001)/Broken (2001).mkv")
    tree.add("Broken (2001)/Broken (2001).nfo", "<movie><title>x</mov")
    tree.add("Evil (2002)/Evil (2002).mkv")
    tree.add("Evil (2002)/movie.nfo", '<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaa">]><movie><title>&a;</title></movie>')
    outcome = await library.scan()
    items = await library.items()
    assert items["Broken (2001)/Broken (2001).mkv"]["name"] == "Broken"
    assert items["Evil (2002)/Evil (2002).mkv"]["name"] == "Evil"
    assert outcome.errors == 2 and library.progress.errors == 2
    errors = await library.errors()
    assert [path for path, _ in errors] == [tree.path("Broken (2001)/Broken (2001).nfo"), tree.path("Evil (2002)/movie.nfo")]
    assert all("NFO" in text for _, text in errors)
    assert (await library.scan()).errors == 0  # unchanged: not read, not reported again
    assert len(await library.errors()) == 2
    tree.add("Broken (2001)/Broken (2001).nfo", "<movie><title>Fixed</title></movie>")
    await library.scan()
    assert [path for path, _ in await library.errors()] == [tree.path("Evil (2002)/movie.nfo")]
    assert (await library.items())["Broken (2001)/Broken (2001).mkv"]["name"] == "Fixed"


async def test_use_nfo_off_keeps_stored_values(tree: Tree, library: Library) -> None:
    tree.add("Arrival (2016)/Arrival (2016).mkv")
    nfo = tree.add("Arrival (2016)/movie.nfo", MOVIE_NFO)
    await library.scan()
    nfo.write_text(MOVIE_NFO.replace("The Arrival", "Changed"))
    await library.scan(options=replace(PLAYBACK, use_nfo=False))
    item = (await library.items())["Arrival (2016)/Arrival (2016).mkv"]
    assert (item["name"], item["overview"]) == ("The Arrival", "Linguists and aliens.")


async def test_local_images_are_recorded_with_content_tags(tree: Tree, library: Library) -> None:
    tree.add("A (2001)/A (2001).mkv")
    poster = tree.add("A (2001)/poster.png", png(3, 2))
    tree.add("A (2001)/fanart.jpg", b"\xff\xd8\xff not really a jpeg")  # a JPEG by its magic, no size
    await library.scan()
    movie = (await library.items())["A (2001)/A (2001).mkv"]
    rows = await library.store.fetch_all("SELECT kind, idx, path, tag, width, height, size, source FROM images WHERE item_id = ? ORDER BY kind", (movie["id"],))
    assert [(r["kind"], r["width"], r["height"], r["source"]) for r in rows] == [("backdrop", None, None, "local"), ("primary", 3, 2, "local")]
    assert rows[1]["tag"] == hashlib.sha256(poster.read_bytes()).hexdigest()[:16]
    poster.write_bytes(png(5, 4))
    await library.scan()
    changed = await library.store.fetch_one("SELECT tag, width FROM images WHERE item_id = ? AND kind = 'primary'", (movie["id"],))
    assert changed["tag"] != rows[1]["tag"] and changed["width"] == 5


async def test_external_subtitles_are_external_streams(tree: Tree, library: Library) -> None:
    tree.add("A (2001)/A (2001).mkv")
    tree.add("A (2001)/A (2001).en.srt", "1\n00:00:01,000 --> 00:00:02,000\nHi\n")
    tree.add("A (2001)/A (2001).de.forced.ass")
    tree.add("A (2001)/A (2001).commentary.mka")
    await library.scan()
    rows = await library.store.fetch_all("SELECT idx, type, codec, language, is_forced, is_external, external_path FROM media_streams ORDER BY idx")
    assert [(r["type"], r["codec"], r["language"], r["is_forced"], r["is_external"]) for r in rows] == [
        ("Audio", "mka", None, 0, 1), ("Subtitle", "ass", "ger", 1, 1), ("Subtitle", "subrip", "eng", 0, 1),
    ]  # fmt: skip
    assert rows[2]["external_path"] == tree.path("A (2001)/A (2001).en.srt")
    await library.scan(options=replace(PLAYBACK, external_audio=False), rewrite=True)
    rows = await library.store.fetch_all("SELECT type FROM media_streams")
    assert sorted(r["type"] for r in rows) == ["Subtitle", "Subtitle"]


async def test_exclusions_apply_to_file_stems_extensions_and_sizes(tree: Tree, library: Library) -> None:
    big = b"x" * 500
    tree.add("CAM Collection/Keep (2001).mkv", big)
    tree.add("Movie.2002.CAM.mkv", big)
    tree.add("Camera (2003).mkv", big)
    tree.add("Old (2004).avi", big)
    tree.add("Small (2005).mkv", b"x" * 99)
    tree.add("Exact (2006).mkv", b"x" * 100)
    tree.add("Remote (2007).strm", "https://example.com/v.mp4")
    options = replace(PLAYBACK, exclude_keywords=("cam",), exclude_extensions=(".avi",), exclude_smaller_than_bytes=100)
    await library.scan(options=options)
    assert set(await library.items()) == {
        "Camera (2003).mkv", "CAM Collection/Keep (2001).mkv", "Exact (2006).mkv", "Remote (2007).strm",
    }  # fmt: skip


async def test_strm_files_are_remote_sources_and_bad_ones_are_errors(tree: Tree, library: Library) -> None:
    tree.add("Remote (2020).strm", "\n  https://media.example.com/v.mkv \n")
    tree.add("Local (2021).strm", "/etc/passwd")
    await library.scan()
    items = await library.items()
    assert list(items) == ["Remote (2020).strm"]
    source = await library.store.fetch_one("SELECT path, container, remote, probe_failure FROM media_sources")
    assert tuple(source) == ("https://media.example.com/v.mkv", "strm", 1, None)
    assert [path for path, _ in await library.errors()] == [tree.path("Local (2021).strm")]


# -- containment (issue 12, item 1) ------------------------------------------------------


async def test_symlink_out_of_root_is_not_indexed(tree: Tree, library: Library, tmp_path: Path) -> None:
    """The issue's repro: fanart.jpg -> a secret; also an NFO, a video and a folder linked out."""
    outside = tmp_path / "outside"
    (outside / "Planted (2020)").mkdir(parents=True)
    (outside / "shadow").write_text("root:$6$secret")
    (outside / "movie.nfo").write_text("<movie><title>Stolen title</title></movie>")
    (outside / "poster.png").write_bytes(png(3, 2))
    (outside / "Planted (2020)" / "Planted (2020).mkv").write_bytes(b"\x00" * 64)
    tree.add("Leak (2013)/Leak (2013).mkv")
    os.symlink(outside / "shadow", tree.path("Leak (2013)/fanart.jpg"))
    os.symlink(outside / "poster.png", tree.path("Leak (2013)/poster.png"))
    os.symlink(outside / "movie.nfo", tree.path("Leak (2013)/movie.nfo"))
    os.symlink(outside / "Planted (2020)", tree.path("Planted (2020)"))
    outcome = await library.scan()
    items = await library.items()
    assert list(items) == ["Leak (2013)/Leak (2013).mkv"]
    assert items["Leak (2013)/Leak (2013).mkv"]["name"] == "Leak"  # the outside NFO was not read
    assert await library.store.fetch_all("SELECT path FROM images") == []
    assert outcome.errors == 4
    assert {error for _path, error in await library.errors()} == {walk.OUTSIDE_ROOTS}


async def test_non_image_poster_is_not_indexed(tree: Tree, library: Library) -> None:
    tree.add("A (2001)/A (2001).mkv")
    tree.add("A (2001)/poster.jpg", "root:$6$secret:19000:0:99999:7:::\n")
    tree.add("A (2001)/fanart.png", png(4, 3))
    outcome = await library.scan()
    rows = await library.store.fetch_all("SELECT kind, path FROM images")
    assert [(r["kind"], r["path"]) for r in rows] == [("backdrop", tree.path("A (2001)/fanart.png"))]
    assert outcome.errors == 1
    [(path, error)] = await library.errors()
    assert path == tree.path("A (2001)/poster.jpg") and "not an image" in error


async def test_scans_given_deps_without_a_thread_limit_share_one_worker_thread(library: Library, tree: Tree) -> None:
    tree.add("Arrival (2016)/Arrival (2016).mkv")
    library.deps = ScanDeps(trio.CapacityLimiter(2))  # no thread_limiter given
    shared = library.deps.thread_limiter
    async with trio.open_nursery() as nursery:
        async with shared:  # another scan's worker thread holds the one token
            nursery.start_soon(library.scan)
            with trio.fail_after(SCAN_LIMIT_S):
                while shared.statistics().tasks_waiting == 0:  # the scan queues behind it
                    await trio.sleep(0.01)
    assert "Arrival (2016)/Arrival (2016).mkv" in await library.items()
