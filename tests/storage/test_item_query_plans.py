"""Filtered first pages walk the name index without reading table rows (SQLite's plans; issue #29).

SQLite plans without statistics, so its plan for a query is fixed by the
query and the indexes: a page sorted by name walks the library's name
index and tests every row it passes until the page is full.  Each test
here reads the plan of the listing's page query (EXPLAIN QUERY PLAN) and
checks that walk reads the index alone: with a rare filter it passes
thousands of rows, and a table read for each was what made a filtered
page many times slower than the plain one.  PostgreSQL's plans depend on
its statistics; they are looked at with EXPLAIN ANALYZE in the benchmark
notes, not pinned here.
"""

from __future__ import annotations

from typing import Any

import pytest

from reelhouse.storage import Store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import list_items, parse_item_query

from .item_samples import Samples, sample_catalog

CODEC = CursorCodec(b"item-query-plan-tests-secret")
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


async def page_plan(store: Store, params: dict[str, list[str]]) -> list[str]:
    """The plan lines of the statement that reads the page's rows."""
    statements: list[tuple[str, Any]] = []
    fetch_all = store.fetch_all

    async def recording(sql: str, args: Any = ()) -> Any:
        statements.append((sql, args))
        return await fetch_all(sql, args)

    store.fetch_all = recording  # type: ignore[method-assign]
    try:
        await list_items(store, parse_item_query(params), CODEC)
    finally:
        store.fetch_all = fetch_all  # type: ignore[method-assign]
    sql, args = next((sql, args) for sql, args in statements if "ORDER BY" in sql and "LIMIT" in sql)
    return [str(tuple(row)[-1]) for row in await store.fetch_all(f"EXPLAIN QUERY PLAN {sql}", args)]


def rows_plan(plan: list[str]) -> list[str]:
    """The lines that find the page's rows (before the page's columns are read for them)."""
    return plan[: plan.index("SCAN t")] if "SCAN t" in plan else plan


@SQLITE_ONLY
@pytest.mark.parametrize(
    "filters",
    [{"genreId": ["Drama"]}, {"studioId": ["Legendary"]}, {"tagId": ["space"]}, {"attention": ["noPoster"]},
     {"type": ["Movie"], "yearFrom": ["1990"]}, {"genreId": ["Drama"], "studioId": ["Legendary"], "tagId": ["space"]}],
    ids=["genre", "studio", "tag", "attention", "type-and-years", "values"],
)  # fmt: skip
async def test_a_filtered_first_page_by_name_walks_the_name_index_alone(store: Store, filters: dict[str, list[str]]) -> None:
    samples: Samples = await sample_catalog(store)
    plan = await page_plan(store, {"libraryId": [samples.films], **filters})
    walk = next(line for line in plan if "items_library_parent_by_name" in line)
    assert "COVERING INDEX" in walk, plan
    # Genres, studios, tags and the poster are read from the walk's own
    # entries (items.facets, items.primary_image): no list built first, no
    # probe of item_values or images per row walked.
    assert not any("SUBQUERY" in line or " USING" in line for line in rows_plan(plan) if line != walk), plan


@SQLITE_ONLY
@pytest.mark.parametrize("filters", [{"year": ["2016"]}, {"year": ["2016"], "genreId": ["Drama"]}], ids=["year", "year-and-genre"])
async def test_a_years_first_page_by_name_seeks_the_year(store: Store, filters: dict[str, list[str]]) -> None:
    samples: Samples = await sample_catalog(store)
    plan = await page_plan(store, {"libraryId": [samples.films], **filters})
    walk = next(line for line in plan if "items_library_parent_by_year" in line)
    assert "COVERING INDEX" in walk and "production_year=?" in walk, plan


@SQLITE_ONLY
async def test_a_year_range_sorted_by_premiere_date_walks_the_premiere_dates_from_the_ranges_earliest(
    store: Store,
) -> None:
    samples: Samples = await sample_catalog(store)
    plan = await page_plan(store, {
        "libraryId": [samples.films], "type": ["Movie"], "genreId": ["Drama"], "yearFrom": ["1990"],
        "yearTo": ["2010"], "sort": ["premiereDate"],
    })  # fmt: skip
    # The walk seeks its start (the range's earliest premiere date, one seek
    # per year) and gives the order: nothing is sorted, no table row read.
    walk = next(line for line in plan if "items_library_parent_by_premiere" in line)
    assert "COVERING INDEX" in walk and "<expr>>?" in walk, plan
    floor = next(line for line in plan if "items_library_parent_by_year_premiere" in line)
    assert "COVERING INDEX" in floor and "production_year=?" in floor, plan
    assert not any("TEMP B-TREE" in line for line in rows_plan(plan)), plan


@SQLITE_ONLY
async def test_a_recursive_filtered_page_by_name_walks_the_library_name_index_alone(store: Store) -> None:
    samples: Samples = await sample_catalog(store)
    plan = await page_plan(store, {"libraryId": [samples.shows], "recursive": ["true"], "year": ["2017"]})
    walk = next(line for line in plan if "items_library_by_name_key" in line)
    assert "COVERING INDEX" in walk, plan
