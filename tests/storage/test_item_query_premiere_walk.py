"""A year range's pages by premiere date: the walk from the range's earliest premiere (migration 0028).

A production year is not the premiere date's year, so the walk may not
start at the range's first day: it starts at the earliest premiere date
among the range's items.  Every page, across the range's boundaries and
with cursors, must be the page the plain path (the range read whole and
sorted) gives: compared here on both backends over a catalogue where the
two years disagree, dates are missing, and names and dates tie.
"""

from __future__ import annotations

import calendar
import random
from dataclasses import replace

import pytest

from reelhouse.storage import Store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import ItemQuery, _value_filters, list_items, parse_item_query
from tests.catalog_factory import CatalogFactory

CODEC = CursorCodec(b"premiere-walk-tests-secret")
LIBRARY_ID = "premierelib"
OTHER_LIBRARY_ID = "otherlib"
GENRES = ("Drama", "Comedy")


def _day_ms(year: int, month: int, day: int) -> int:
    return calendar.timegm((year, month, day, 0, 0, 0)) * 1000


async def _catalog(store: Store) -> None:
    """About 160 items whose production year and premiere date often disagree (written once per database)."""
    if await store.fetch_value("SELECT count(*) FROM items"):
        return
    rnd = random.Random(28)
    cat = CatalogFactory(store)
    library = cat.library("Premieres", "movies", id=LIBRARY_ID)
    other = cat.library("Other", "movies", id=OTHER_LIBRARY_ID)
    for n in range(140):
        year = rnd.choice([None, 1989, 1990, 1991, 1999, 2000, 2009, 2010, 2011])
        premiere = rnd.choice([
            None,  # a year set without a premiere date (a folder's year, an NFO's <year>)
            _day_ms(year or 2000, 1, 1), _day_ms(year or 2000, 12, 31),  # the year's first and last day
            _day_ms((year or 2000) - 12, 6, 1),  # premiered long before its production year
            _day_ms((year or 2000) + 3, 6, 1),  # premiered after it (a festival, then the release)
        ])  # fmt: skip
        item = cat.movie(
            library, rnd.choice(["Alpha", "alpha", "Beta", f"Film {n % 9}"]), production_year=year,
            premiere_date=premiere, missing=rnd.random() < 0.05,
        )  # fmt: skip
        cat.values(item, "genre", rnd.choice(GENRES))
    for s in range(4):  # top-level series in the range, with an episode premiered before every item
        series = cat.series(library, f"Show {s}", production_year=1990 + s, premiere_date=_day_ms(1990 + s, 3, 1))
        season = cat.season(series, 1)
        cat.episode(season, 1, name="Pilot", production_year=1990 + s, premiere_date=_day_ms(1900, 1, 1))
    for n in range(10):  # another library's items: earlier dates, in the range
        cat.movie(other, f"Other {n}", production_year=1995, premiere_date=_day_ms(1950 + n, 1, 1))
    await cat.flush()


QUERIES: list[dict[str, list[str]]] = [
    {"yearFrom": ["1990"], "yearTo": ["2010"]},
    {"yearFrom": ["1990"], "yearTo": ["2010"], "type": ["Movie"], "genreId": ["Drama"]},
    {"yearFrom": ["1991"], "yearTo": ["1999"], "genreId": ["comedy"]},
    {"yearFrom": ["2000"], "yearTo": ["2000"]},
    {"yearFrom": ["2011"], "yearTo": ["2030"]},
    {"yearFrom": ["1800"], "yearTo": ["1850"]},  # no item: an empty page
    {"yearFrom": ["1989"], "yearTo": ["2011"], "type": ["Series"]},
    {"yearFrom": ["1990"], "yearTo": ["2010"], "missing": ["true"]},
    {"yearFrom": ["1990"], "yearTo": ["2010"], "includeTotal": ["true"]},
]


async def _walk(store: Store, query: ItemQuery) -> tuple[list[str], list[tuple[list[str], int | None]]]:
    """Every id of every page, following nextCursor, and the pages themselves (ids, total)."""
    pages: list[tuple[list[str], int | None]] = []
    while True:
        page = await list_items(store, query, CODEC)
        pages.append(([item.id for item in page.items], page.total_count))
        if page.next_cursor is None:
            return [i for p, _ in pages for i in p], pages
        query = replace(query, cursor=page.next_cursor)


@pytest.mark.parametrize("limit", [1, 3, 7, 200])
@pytest.mark.parametrize("filters", QUERIES, ids=[str(n) for n in range(len(QUERIES))])
async def test_a_year_ranges_pages_by_premiere_date_are_the_plain_paths_pages(
    store: Store, monkeypatch: pytest.MonkeyPatch, filters: dict[str, list[str]], limit: int
) -> None:
    await _catalog(store)
    query = parse_item_query({
        "libraryId": [LIBRARY_ID], "sort": ["premiereDate"], "limit": [str(limit)], **filters,
    })  # fmt: skip
    walked, pages = await _walk(store, query)
    with monkeypatch.context() as plain:
        plain.setattr(_value_filters, "premiere_walk", lambda query, where: False)
        plain_walked, plain_pages = await _walk(store, query)
    assert pages == plain_pages
    assert walked == plain_walked


async def test_the_premiere_walk_is_taken_for_an_ascending_year_range_of_a_librarys_top_level(store: Store) -> None:
    await _catalog(store)
    statements: list[str] = []
    fetch_all = store.fetch_all

    async def recording(sql: str, args: object = ()) -> object:
        statements.append(sql)
        return await fetch_all(sql, args)

    store.fetch_all = recording  # type: ignore[method-assign]
    base = {"libraryId": [LIBRARY_ID], "yearFrom": ["1990"], "yearTo": ["2010"], "sort": ["premiereDate"]}
    for extra, walks in (({}, True), ({"order": ["desc"]}, False), ({"recursive": ["true"]}, False)):
        statements.clear()
        await list_items(store, parse_item_query({**base, **extra}), CODEC)
        assert any("premiere_years" in sql for sql in statements) is walks, extra
