"""Finding the stored file of an image request: remembered until a catalogue write or the recheck time (Trio's mock clock).

The clock runs at real speed and the tests jump it: an autojump clock would
jump to the next deadline while a thread stats the file.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from reelhouse.errors import NotFound
from reelhouse.http import image_sources as image_sources_module
from reelhouse.http.image_sources import RECHECK_SECONDS, ImageSources
from reelhouse.loop.thread_pool import ThreadPool
from tests.catalog_factory import catalog

LIMIT_S = 20


@pytest.fixture
async def files() -> AsyncIterator[ThreadPool[None]]:
    pool: ThreadPool[None] = ThreadPool([None], name="test-image-files")
    yield pool
    await pool.aclose(5.0)


async def movie_with_poster(store, poster: Path) -> str:
    poster.write_bytes(b"\xff\xd8\xff poster")
    async with catalog(store) as cat:
        movie = cat.movie(cat.library("Films"), "Arrival")
        cat.image(movie, "primary", tag="first")
    await store.execute("UPDATE images SET path = ? WHERE item_id = ?", (str(poster), movie))
    await store.execute("UPDATE library_paths SET path = ?", (str(poster.parent),))  # the poster is inside the library
    return movie


async def test_a_file_deleted_behind_the_catalogue_is_noticed_at_the_recheck_time(
    store, files: ThreadPool[None], tmp_path: Path, mock_clock: trio.testing.MockClock
) -> None:
    mock_clock.rate = 1.0
    sources = ImageSources(store, files)
    with trio.fail_after(LIMIT_S):
        movie = await movie_with_poster(store, tmp_path / "poster.jpg")
        found = await sources.find(movie, "primary", 0)
        assert (found.tag, found.size) == ("first", len(b"\xff\xd8\xff poster"))
        (tmp_path / "poster.jpg").unlink()
        assert await sources.find(movie, "primary", 0) == found  # remembered
        mock_clock.jump(RECHECK_SECONDS)
        with pytest.raises(NotFound, match="missing from disk"):
            await sources.find(movie, "primary", 0)


async def test_a_write_of_the_catalogue_is_seen_by_the_next_find(store, files: ThreadPool[None], tmp_path: Path) -> None:
    sources = ImageSources(store, files)
    with trio.fail_after(LIMIT_S):
        movie = await movie_with_poster(store, tmp_path / "poster.jpg")
        assert (await sources.find(movie, "primary", 0)).tag == "first"
        (tmp_path / "new.png").write_bytes(b"\x89PNG\r\n\x1a\n new")
        await store.execute("UPDATE images SET path = ?, tag = 'second' WHERE item_id = ?", (str(tmp_path / "new.png"), movie))
        found = await sources.find(movie, "primary", 0)
        assert (found.tag, found.path) == ("second", tmp_path / "new.png")
        await store.execute("DELETE FROM images WHERE item_id = ?", (movie,))
        with pytest.raises(NotFound, match="no primary image"):
            await sources.find(movie, "primary", 0)
        with pytest.raises(NotFound, match="No such item"):
            await sources.find("no-such-item", "primary", 0)


async def test_while_one_request_rechecks_the_file_the_others_are_answered_from_memory(
    store, files: ThreadPool[None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mock_clock: trio.testing.MockClock
) -> None:
    mock_clock.rate = 1.0
    sources = ImageSources(store, files)
    with trio.fail_after(LIMIT_S):
        movie = await movie_with_poster(store, tmp_path / "poster.jpg")
        found = await sources.find(movie, "primary", 0)
        stats: list[Path] = []
        answer = threading.Event()

        def slow_stat(path: Path, *args: Any) -> tuple[int, float, Any]:
            stats.append(path)
            answer.wait(LIMIT_S)
            return real_stat(path, *args)

        real_stat = image_sources_module._stat
        monkeypatch.setattr(image_sources_module, "_stat", slow_stat)
        mock_clock.jump(RECHECK_SECONDS)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sources.find, movie, "primary", 0)
            while not stats:
                await trio.sleep(0.01)
            assert [await sources.find(movie, "primary", 0) for _ in range(3)] == [found] * 3
            answer.set()
        assert stats == [tmp_path / "poster.jpg"]  # one look at the disk for all four
