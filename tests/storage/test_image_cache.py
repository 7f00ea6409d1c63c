"""The rendition cache: on disk within its budget, the most used renditions in memory too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.storage.image_cache import MEMORY_ITEM_MAX_BYTES, ImageCache, RenditionKey

LIMIT_S = 20


def key(tag: str, width: int = 300) -> RenditionKey:
    return RenditionKey(tag, width, None, None, None, "jpeg")


@pytest.fixture
async def files() -> AsyncIterator[ThreadPool[None]]:
    pool: ThreadPool[None] = ThreadPool([None, None], name="test-files")
    yield pool
    await pool.aclose(5.0)


def stored_files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def forget_disk(root: Path) -> None:
    for path in stored_files(root):
        path.unlink()


async def test_a_rendition_is_kept_on_disk_and_served_from_memory(tmp_path: Path, files: ThreadPool[None]) -> None:
    cache = ImageCache(tmp_path, 10_000, files)
    with trio.fail_after(LIMIT_S):
        await cache.put(key("a"), b"A" * 100)
        assert len(stored_files(tmp_path)) == 1
        forget_disk(tmp_path)
        assert await cache.get(key("a")) == b"A" * 100  # no file read
        assert await cache.get(key("b")) is None


async def test_a_rendition_read_from_disk_is_then_served_from_memory(tmp_path: Path, files: ThreadPool[None]) -> None:
    with trio.fail_after(LIMIT_S):
        await ImageCache(tmp_path, 10_000, files).put(key("a"), b"A" * 100)  # an earlier run of the server
        cache = ImageCache(tmp_path, 10_000, files)
        assert await cache.get(key("a")) == b"A" * 100
        forget_disk(tmp_path)
        assert await cache.get(key("a")) == b"A" * 100


async def test_memory_keeps_the_most_recently_used_within_its_budget(tmp_path: Path, files: ThreadPool[None]) -> None:
    cache = ImageCache(tmp_path, 10_000, files, memory_max_bytes=250)
    with trio.fail_after(LIMIT_S):
        for tag in "abc":
            await cache.put(key(tag), tag.encode() * 100)
            if tag == "b":
                assert await cache.get(key("a"))  # a is now used more recently than b
        forget_disk(tmp_path)
        assert await cache.get(key("a")) == b"a" * 100
        assert await cache.get(key("b")) is None  # evicted from memory, gone from disk
        assert await cache.get(key("c")) == b"c" * 100


async def test_a_large_rendition_stays_on_disk_only(tmp_path: Path, files: ThreadPool[None]) -> None:
    large = b"L" * (MEMORY_ITEM_MAX_BYTES + 1)
    cache = ImageCache(tmp_path, 10 * len(large), files, memory_max_bytes=10 * len(large))
    with trio.fail_after(LIMIT_S):
        await cache.put(key("a"), large)
        assert await cache.get(key("a")) == large
        forget_disk(tmp_path)
        assert await cache.get(key("a")) is None


async def test_a_budget_of_zero_keeps_nothing_anywhere(tmp_path: Path, files: ThreadPool[None]) -> None:
    cache = ImageCache(tmp_path, 0, files)
    with trio.fail_after(LIMIT_S):
        await cache.put(key("a"), b"A" * 100)
        assert await cache.get(key("a")) is None
        assert stored_files(tmp_path) == []
