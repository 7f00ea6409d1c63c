"""Keyset paging of item listings on both backends: walks, concurrent inserts, cursors."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.errors import Invalid
from reelhouse.storage import Store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import ITEM_SORTS, ItemQuery, list_items, parse_item_query
from tests.catalog_factory import CatalogFactory

CODEC = CursorCodec(b"paging-tests-secret-0123")
LIBRARY_ID = "walklib"
GENRES = ("Drama", "Comedy", "Horror")


async def _walk_catalog(store: Store) -> None:
    """About 70 items full of ties: equal names, years, ratings, sizes (written once per database)."""
    if await store.fetch_value("SELECT count(*) FROM items"):
        return
    rnd = random.Random(7)
    cat = CatalogFactory(store)
    library = cat.library("Walk", "mixed", id=LIBRARY_ID)
    for n in range(50):
        movie = cat.movie(
            library, rnd.choice(["Alpha", "alpha", "Beta", "Gamma", "Mu", f"Film {n % 7}"]),
            production_year=rnd.choice([None, 1999, 2000, 2001]),
            premiere_date=rnd.choice([None, 946_684_800_000, 978_307_200_000]),
            community_rating=rnd.choice([None, 5.0, 7.5]), official_rating=rnd.choice([None, "PG", "R", "NR"]),
            product_code=rnd.choice([None, "AB-1", "ab 1", "ZZ"]), missing=rnd.random() < 0.1,
            date_created=1_700_000_000_000 + rnd.choice([0, 1000, 2000]),
        )  # fmt: skip
        if rnd.random() < 0.7:
            cat.media(movie, width=rnd.choice([720, 1920, 3840]), container=rnd.choice(["mkv", "mp4"]),
                      size=rnd.choice([1, 2, 3]))  # fmt: skip
        if rnd.random() < 0.5:
            cat.image(movie)
        cat.values(movie, "genre", rnd.choice(GENRES))
        cat.values(movie, "studio", rnd.choice(["A", "B"]))
        if rnd.random() < 0.2:
            cat.extra(movie, "Featurette")
    for s in range(2):
        series = cat.series(library, f"Show {s}", production_year=2000 + s)
        for season_number in (1, 2):
            season = cat.season(series, season_number)
            for episode in (1, 2, 3):
                cat.episode(season, episode, name=rnd.choice(["Pilot", "Episode", "pilot"]))
    await cat.flush()


FILTERS: list[dict[str, list[str]]] = [
    {},
    {"recursive": ["true"]},
    {"type": ["Movie"], "recursive": ["true"]},
    {"type": ["Episode", "Season"], "recursive": ["true"]},
    {"genreId": ["drama", "Horror"]},
    {"yearFrom": ["2000"]},
    {"hasPrimaryImage": ["true"]},
    {"nameFrom": ["b"], "nameBefore": ["Mz"]},
    {"libraryId": [LIBRARY_ID], "recursive": ["true"], "missing": ["true"]},
    {"resolutions": ["hd", "4k"], "containers": ["mkv"]},
    {"attention": ["noPoster", "missing"], "recursive": ["true"]},
]


async def _walk(store: Store, query: ItemQuery) -> list[str]:
    """Every id of every page, following nextCursor."""
    seen: list[str] = []
    while True:
        page = await list_items(store, query, CODEC)
        seen += [item.id for item in page.items]
        if page.next_cursor is None:
            return seen
        assert len(page.items) == query.limit
        query = replace(query, cursor=page.next_cursor)


async def test_walking_every_page_gives_the_full_sorted_list(store: Store) -> None:
    await _walk_catalog(store)

    # Hypothesis drives the examples from a worker thread; each example runs
    # its queries on the test's loop, against the one open store.
    @settings(max_examples=30, deadline=None)
    @given(
        sort=st.sampled_from(ITEM_SORTS),
        order=st.sampled_from(["asc", "desc"]),
        limit=st.integers(min_value=1, max_value=12),
        filters=st.sampled_from(FILTERS),
        seed=st.integers(min_value=1, max_value=2**31 - 1),
    )
    def walk_equals_whole(sort: str, order: str, limit: int, filters: dict[str, list[str]], seed: int) -> None:
        query = replace(parse_item_query({**filters, "sort": [sort], "order": [order]}), random_seed=seed)
        whole, walked = trio.from_thread.run(_whole_and_walked, store, query, limit)
        assert walked == whole

    await trio.to_thread.run_sync(walk_equals_whole)


async def _whole_and_walked(store: Store, query: ItemQuery, limit: int) -> tuple[list[str], list[str]]:
    whole = await list_items(store, replace(query, limit=200), CODEC)
    assert whole.next_cursor is None
    return [item.id for item in whole.items], await _walk(store, replace(query, limit=limit))


WALK_SORTS = (("name", "asc"), ("dateAdded", "desc"), ("year", "asc"), ("rating", "desc"), ("random", "asc"),
              ("size", "desc"))
ADDING_PAGES = 4
WALK_LIMIT = 6


async def test_items_added_between_pages_never_make_an_old_item_repeat_or_vanish(
    store: Store, subtests: Any
) -> None:
    await _walk_catalog(store)
    cat = CatalogFactory(store, start_ms=1_700_000_000_000)
    for sort, order in WALK_SORTS:
        with subtests.test(sort=sort, order=order):
            seen, old = await _walk_while_adding(store, cat, sort, order)
            assert len(seen) == len(set(seen))
            assert old <= set(seen)


async def _walk_while_adding(store: Store, cat: CatalogFactory, sort: str, order: str) -> tuple[list[str], set[str]]:
    query = parse_item_query({"recursive": ["true"], "sort": [sort], "order": [order], "limit": [str(WALK_LIMIT)]})
    old = {item.id for item in (await list_items(store, replace(query, limit=200), CODEC)).items}
    rnd = random.Random(sort + order)
    seen: list[str] = []
    while True:
        page = await list_items(store, query, CODEC)
        seen += [item.id for item in page.items]
        # Same names, years and dates as the old items (ties on every key),
        # during the first pages only, so that the walk ends.
        for _ in range(3 if len(seen) <= ADDING_PAGES * WALK_LIMIT else 0):
            new = cat.movie(LIBRARY_ID, rnd.choice(["Alpha", "Beta", "Mu", "Zeta", "0"]),
                            production_year=rnd.choice([None, 2000]), community_rating=rnd.choice([None, 5.0]),
                            date_created=1_700_000_000_000 + rnd.choice([0, 1000, 5000]))  # fmt: skip
            cat.media(new, size=rnd.choice([1, 2]))
        await cat.flush()
        if page.next_cursor is None:
            return seen, old
        query = replace(query, cursor=page.next_cursor)


async def test_a_forged_or_foreign_cursor_is_field_invalid(store: Store) -> None:
    await _walk_catalog(store)
    query = parse_item_query({"limit": ["2"]})
    cursor = (await list_items(store, query, CODEC)).next_cursor
    assert cursor is not None
    flipped = cursor[:-3] + ("A" if cursor[-3] != "A" else "B") + cursor[-2:]
    foreign = (await list_items(store, query, CursorCodec(b"another-server-secret"))).next_cursor
    for token in (flipped, "garbage", "", cursor + "A", foreign):
        with pytest.raises(Invalid) as raised:
            await list_items(store, replace(query, cursor=token), CODEC)
        assert raised.value.params["field"] == "cursor"


async def test_a_cursor_reused_with_other_filters_or_sort_is_field_invalid(store: Store, subtests: Any) -> None:
    await _walk_catalog(store)
    cursor = (await list_items(store, parse_item_query({"limit": ["2"]}), CODEC)).next_cursor
    assert cursor is not None
    others: list[dict[str, list[str]]] = [
        {"genreId": ["Drama"]}, {"sort": ["year"]}, {"order": ["desc"]}, {"recursive": ["true"]}, {"type": ["Movie"]},
    ]
    for other in others:
        with subtests.test(other=other), pytest.raises(Invalid) as raised:
            await list_items(store, parse_item_query({**other, "limit": ["2"], "cursor": [cursor]}), CODEC)
        assert raised.value.params["field"] == "cursor"


async def test_a_cursor_survives_another_limit_and_ignores_offset(store: Store) -> None:
    await _walk_catalog(store)
    base: dict[str, Any] = {"recursive": ["true"], "sort": ["year"]}
    first = await list_items(store, parse_item_query({**base, "limit": ["3"]}), CODEC)
    assert first.next_cursor is not None
    rest = parse_item_query({**base, "limit": ["5"], "offset": ["7"], "cursor": [first.next_cursor]})
    whole = await list_items(store, parse_item_query({**base, "limit": ["8"]}), CODEC)
    assert [i.id for i in (await list_items(store, rest, CODEC)).items] == [i.id for i in whole.items[3:8]]


async def test_the_last_page_has_no_cursor(store: Store) -> None:
    await _walk_catalog(store)
    everything = await list_items(store, parse_item_query({"limit": ["200"]}), CODEC)
    exact = parse_item_query({"limit": [str(len(everything.items))]})
    assert (await list_items(store, exact, CODEC)).next_cursor is None
    assert "nextCursor" not in everything.to_json()
