"""A page with its items' files in one read (a DLNA page) is the page list_items reads, with primary_facts' files."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from reelhouse.storage import Store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import ItemFiles, ItemQuery, list_items, list_with_files
from reelhouse.storage.primary_sources import primary_facts
from tests.catalog_factory import CatalogFactory

CODEC = CursorCodec(b"item-files-tests-secret-0123")


async def _catalog(store: Store) -> str:
    """Films with no file, one file, a missing first file, several streams and subtitles; a series."""
    cat = CatalogFactory(store)
    library = cat.library("Mixed", "mixed")
    for n in range(12):
        film = cat.movie(library, f"Film {n % 5}", production_year=None if n % 4 == 0 else 1990 + n,
                         premiere_date=None if n % 3 else 946_684_800_000 + n * 86_400_000)  # fmt: skip
        if n % 6 == 1:
            continue  # no file
        if n % 6 == 2:
            cat.media(film, missing=1, container="avi")  # a missing file first: the next one is the primary
            cat.media(film, position=1, container="mp4", width=1280, height=720, subtitles=[("subrip", "eng", True)])
        else:
            subtitles = [("subrip", "eng", True), ("ass", "fre", True), ("subrip", "ger", False)] if n % 6 == 3 else []
            cat.media(film, container="ts" if n % 2 else "mkv", size=1000 + n, subtitles=subtitles)
        if n % 2:
            cat.image(film)
    series = cat.series(library, "Show", production_year=2001)
    season = cat.season(series, 1)
    for episode in (1, 2):
        cat.media(cat.episode(season, episode, name=f"Episode {episode}"))
    await cat.flush()
    return library


@pytest.mark.parametrize("sort, order", [("name", "asc"), ("name", "desc"), ("year", "desc"), ("dateAdded", "desc")])
async def test_page_with_files_is_list_items_page_with_primary_facts(store: Store, sort: str, order: str) -> None:
    library = await _catalog(store)
    query = ItemQuery(library_id=library, recursive=True, sort=sort, order=order, missing=False, include_total=True)
    for offset in (0, 5, 11, 20):
        page = replace(query, offset=offset, limit=6)
        expected = await list_items(store, page, CODEC)
        read = await list_with_files(store, page)
        found, total = read.items, read.total
        assert [item.id for item in found] == [item.id for item in expected.items]
        assert total == expected.total_count
        facts = await primary_facts(store, [item.id for item in found])
        for item, summary in zip(found, expected.items, strict=True):
            assert (item.name, item.type, item.library_id) == (summary.name, summary.type, summary.library_id)
            assert (item.production_year, item.runtime_ticks) == (summary.production_year, summary.runtime_ticks)
            assert (item.season_id, item.series_id, item.has_poster) == (
                summary.season_id, summary.series_id, summary.has_poster)  # fmt: skip
            assert item.premiere_date == facts[item.id].premiere_date
            assert _files_view(item) == _television_view(facts[item.id].source)


async def test_page_with_files_counts_only_when_asked(store: Store) -> None:
    library = await _catalog(store)
    read = await list_with_files(store, ItemQuery(library_id=library, types=("Movie",), recursive=True, limit=3))
    assert len(read.items) == 3 and read.total is None


@pytest.mark.parametrize("sort, order", [("name", "asc"), ("name", "desc"), ("year", "desc"), ("dateAdded", "desc")])
async def test_a_page_read_after_the_previous_page_end_is_the_page_at_its_offset(
    store: Store, sort: str, order: str
) -> None:
    library = await _catalog(store)
    query = ItemQuery(library_id=library, recursive=True, sort=sort, order=order, missing=False, limit=4)
    end, offset = None, 0
    while True:
        by_offset = await list_with_files(store, replace(query, offset=offset))
        if not by_offset.items:
            break
        after = await list_with_files(store, replace(query, offset=offset), end) if end is not None else by_offset
        assert [item.id for item in after.items] == [item.id for item in by_offset.items]
        assert after.end == by_offset.end
        end, offset = by_offset.end, offset + 4
    assert end is not None and offset >= 12
    assert (await list_with_files(store, query, end)).items == []  # past the last item


def _television_view(source: dict[str, Any] | None) -> tuple[Any, ...] | None:
    """What a DLNA page reads of a file: path, size, its first video and audio streams, its external subtitles."""
    if source is None:
        return None
    streams = source["streams"]
    video: dict[str, Any] = next((s for s in streams if s["type"] == "Video"), {})
    audio: dict[str, Any] = next((s for s in streams if s["type"] == "Audio"), {})
    subtitles = [(s["index"], s["codec"]) for s in streams if s["type"] == "Subtitle" and s["isExternal"]]
    return (source["path"], source["size"], video.get("codec"), video.get("width"), video.get("height"),
            audio.get("codec"), subtitles)  # fmt: skip


def _files_view(item: ItemFiles) -> tuple[Any, ...] | None:
    if item.path is None:
        return None
    return item.path, item.size, item.video_codec, item.width, item.height, item.audio_codec, item.subtitles
