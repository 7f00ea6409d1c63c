"""Finding the stored file of an image request: remembered until a catalogue write or the recheck time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.errors import NotFound
from reelhouse.http.image_sources import RECHECK_SECONDS, ImageSources
from reelhouse.thread_pool import ThreadPool
from tests.catalog_factory import catalog

LIMIT_S = 20


class FakeClock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


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
    return movie


async def test_a_file_deleted_behind_the_catalogue_is_noticed_at_the_recheck_time(
    store, files: ThreadPool[None], tmp_path: Path
) -> None:
    clock = FakeClock()
    sources = ImageSources(store, files, clock=clock)
    with trio.fail_after(LIMIT_S):
        movie = await movie_with_poster(store, tmp_path / "poster.jpg")
        found = await sources.find(movie, "primary", 0)
        assert (found.tag, found.size) == ("first", len(b"\xff\xd8\xff poster"))
        (tmp_path / "poster.jpg").unlink()
        assert await sources.find(movie, "primary", 0) == found  # remembered
        clock.now += RECHECK_SECONDS
        with pytest.raises(NotFound, match="missing from disk"):
            await sources.find(movie, "primary", 0)


async def test_a_write_of_the_catalogue_is_seen_by_the_next_find(store, files: ThreadPool[None], tmp_path: Path) -> None:
    sources = ImageSources(store, files, clock=FakeClock())
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
