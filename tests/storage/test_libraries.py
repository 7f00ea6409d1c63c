"""The library repository, on both backends."""

from __future__ import annotations

import pytest

from reelhouse.media.library_options import LibraryOptions
from reelhouse.storage import IntegrityError, Store
from reelhouse.storage.libraries import (
    all_library_paths,
    create_library,
    get_library,
    library_counts,
    list_libraries,
    list_scan_errors,
    record_scan_error,
)
from reelhouse.storage.members import add_user
from tests.catalog_factory import CatalogFactory


async def test_create_and_read_back_with_paths_in_order_and_access(store: Store) -> None:
    user = await add_user(store, "kid", is_admin=False, password=None)
    options = LibraryOptions(exclude_keywords=("sample",))
    created = await create_library(
        store, library_id="lib1", name="Films", collection_type="movies",
        paths=["/b", "/a"], options=options, access_user_ids=[user.id],
    )
    read = await get_library(store, "lib1")
    assert read is not None
    assert read.paths == ("/b", "/a")
    assert read.options == options
    assert read.access_user_ids == (user.id,)
    assert read.created_at_ms == created.created_at_ms
    assert await all_library_paths(store) == [("lib1", "/b"), ("lib1", "/a")]


async def test_creation_is_atomic(store: Store) -> None:
    with pytest.raises(IntegrityError):
        await create_library(
            store, library_id="lib1", name="Films", collection_type="movies",
            paths=["/a"], options=LibraryOptions(), access_user_ids=["no-such-user"],
        )
    assert await list_libraries(store) == []
    assert await all_library_paths(store) == []


async def test_counts_of_an_empty_library_are_zero(store: Store) -> None:
    await create_library(store, library_id="l", name="L", collection_type="mixed", paths=["/m"], options=LibraryOptions())
    assert await library_counts(store, "l") == (0, False, 0)


async def test_scan_errors_newest_first_and_per_library(store: Store) -> None:
    for lib in ("l1", "l2"):
        await create_library(store, library_id=lib, name=lib, collection_type="movies", paths=[f"/{lib}"], options=LibraryOptions())
    await record_scan_error(store, "l1", "/l1/a.nfo", "bad xml")
    await record_scan_error(store, "l1", "/l1/b.nfo", "bad xml too")
    await record_scan_error(store, "l2", "/l2/c.mkv", "unreadable")
    assert [e.path for e in await list_scan_errors(store, "l1", 10)] == ["/l1/b.nfo", "/l1/a.nfo"]
    assert len(await list_scan_errors(store, None, 10)) == 3


async def test_counts_take_works_and_remote_sources_of_that_library_only(store: Store) -> None:
    cat = CatalogFactory(store)
    films, shows = cat.library("Films", "movies"), cat.library("Shows", "tvshows")
    film = cat.movie(films, "Film")
    cat.extra(film, "Trailer")  # owned: not a work
    cat.part(film, 2)
    cat.movie(films, "Gone", missing=True)
    cat.movie(films, "Waiting", scrape_state="pending")
    series = cat.series(shows, "Show")
    cat.episode(cat.season(series, 1), 1)
    cat.source(cat.movie(shows, "Remote"), remote=True)  # another library's .strm
    cat.source(cat.movie(films, "Remote gone", missing=True), remote=True)
    await cat.flush()
    assert await library_counts(store, films) == (2, False, 1)
    assert await library_counts(store, shows) == (2, True, 0)
