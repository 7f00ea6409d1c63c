"""The libraries as players list them: remembered on SQLite until a write commits, read every time on PostgreSQL."""

from __future__ import annotations

from typing import Any

import trio

from reelhouse.media.library_options import LibraryOptions
from reelhouse.storage import open_store
from reelhouse.storage.libraries import create_library, delete_library, update_library_roots
from reelhouse.storage.library_views import LibraryView, RememberedViews

from .counting_reads import CountingReads

LIMIT_S = 20


async def _add(store: Any, library_id: str, name: str) -> None:
    await create_library(store, library_id=library_id, name=name, collection_type="movies", paths=[f"/m/{name}"],
                         options=LibraryOptions())  # fmt: skip


async def test_views_are_remembered_on_sqlite_until_a_write_commits(store) -> None:
    reads = CountingReads(store)
    views = RememberedViews(reads)  # type: ignore[arg-type]
    with trio.fail_after(LIMIT_S):
        await _add(store, "lib-b", "Films")
        for _ in range(3):
            assert await views.views() == (LibraryView("lib-b", "Films", "movies"),)
        assert reads.reads == (1 if store.backend == "sqlite" else 3)
        await _add(store, "lib-a", "Anime")
        assert [v.name for v in await views.views()] == ["Anime", "Films"]
        await update_library_roots(store, "lib-b", "Cinema", ["/m/Films"])
        assert [v.name for v in await views.views()] == ["Anime", "Cinema"]
        await delete_library(store, "lib-a")
        assert [v.id for v in await views.views()] == ["lib-b"]


async def test_a_library_another_process_adds_is_seen_on_the_next_read(database_url: str, store) -> None:
    views = RememberedViews(store)
    with trio.fail_after(LIMIT_S):
        assert await views.views() == ()
        async with open_store(database_url) as command_line:
            await _add(command_line, "lib-c", "Shows")
        assert [v.id for v in await views.views()] == ["lib-c"]


async def test_a_caller_that_read_the_data_version_after_a_commit_sees_what_it_committed(store) -> None:
    """A request reads the data version once (http/context.py) and asks every memory with it."""
    views = RememberedViews(store)
    with trio.fail_after(LIMIT_S):
        await _add(store, "lib-a", "Anime")
        assert [v.id for v in await views.views(version=store.data_version())] == ["lib-a"]
        await _add(store, "lib-b", "Films")
        assert [v.id for v in await views.views(version=store.data_version())] == ["lib-a", "lib-b"]
