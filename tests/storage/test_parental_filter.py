"""Parental controls as SQL beside the library scope: pages and counts hold, on both backends.

A small catalogue (ratings known, unknown and absent; a series whose
episodes carry no rating; genres and tags on a series and on a movie; an
extra) is checked against a plain-Python reading of the reference's rule,
for fixed rules and for rules hypothesis draws.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reelhouse.media.parental import MAX_AGES, ParentalControls, parse_parental
from reelhouse.media.ratings import rating_level
from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import list_items, parse_item_query
from reelhouse.storage.parental_filter import allowed_item_ids, parental_filter
from tests.catalog_factory import CatalogFactory
from tests.conftest import migrated_copy

CODEC = CursorCodec(b"parental-tests-secret")


@dataclass
class Row:
    id: str
    library: str
    rating: str | None
    values: set[str] = field(default_factory=set)  # "genre:horror", "tag:gore"
    under: tuple[str, ...] = ()  # series, season, owner
    inherits: str | None = None  # whose rating counts when the row has none
    owned: bool = False  # an extra


@dataclass
class Sample:
    rows: dict[str, Row] = field(default_factory=dict)
    unrated_age: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)


async def sample(store: Store) -> Sample:
    cat, out = CatalogFactory(store), Sample()
    kids, grown = cat.library("Kids"), cat.library("Grown")
    out.unrated_age = {kids: 0, grown: 18}

    def add(lib: str, name: str, kind: str, rating: str | None, *values: str, **columns: Any) -> str:
        item = cat.item(lib, kind, name, official_rating=rating, **columns)
        for value in values:
            k, v = value.split(":")
            cat.values(item, k, v.title())
        under = tuple(columns[c] for c in ("series_id", "season_id", "owner_id") if columns.get(c))
        parent = columns.get("series_id") or columns.get("owner_id")
        out.rows[item] = Row(item, lib, rating, set(values), under, parent)
        out.names[name] = item
        return item

    add(kids, "Toy", "Movie", "G")
    add(kids, "Teen", "Movie", "PG-13", "tag:aliens")
    add(kids, "Blood", "Movie", "R", "genre:horror")
    add(kids, "Plain", "Movie", None)
    add(grown, "Odd", "Movie", "XYZ")
    add(grown, "Bare", "Movie", None)
    heat = add(grown, "Heat", "Movie", "de/16", "tag:gore")
    add(grown, "Heat trailer", "Video", None, owner_id=heat, extra_type="Trailer")
    show = add(kids, "Show", "Series", "TV-MA", "genre:horror")
    season = add(kids, "Show S1", "Season", None, series_id=show, index_number=1)
    add(kids, "Show E1", "Episode", None, series_id=show, season_id=season, index_number=1)
    add(kids, "Show E2", "Episode", "TV-Y", series_id=show, season_id=season, index_number=2)
    await cat.flush()
    await store.execute("UPDATE libraries SET options = ? WHERE id = ?", (json.dumps({"unratedAge": 18}), grown))
    return out


def oracle(s: Sample, rule: ParentalControls) -> set[str]:
    """The reference's rule, read plainly."""
    seen = set()
    for row in s.rows.values():
        family = (row.id, *row.under)
        if set(family) & set(rule.blocked_items):
            continue
        if set(family) & set(rule.allowed_items):
            seen.add(row.id)
            continue
        values = set(row.values)
        if row.inherits:
            values |= s.rows[row.inherits].values
        blocked = {f"tag:{t}" for t in rule.blocked_tags} | {f"genre:{g}" for g in rule.blocked_genres}
        if values & blocked:
            continue
        rating = row.rating if row.rating is not None else (s.rows[row.inherits].rating if row.inherits else None)
        age = rating_level(rating) if rating is not None else None
        if age is None:
            age = s.unrated_age[row.library]
        if rule.max_age >= 18 or age <= rule.max_age:
            seen.add(row.id)
    return seen


async def listed(store: Store, rule: ParentalControls, *, limit: int = 3) -> tuple[set[str], int]:
    """Every item of a recursive listing walked page by page, and the total the first page reported."""
    query = parse_item_query({"recursive": ["true"], "limit": [str(limit)], "includeTotal": ["true"],
                              "excludeType": []})  # fmt: skip
    query = replace(query, parental=await parental_filter(store, rule))
    seen: set[str] = set()
    total, cursor = None, None
    while True:
        page = await list_items(store, replace(query, cursor=cursor), CODEC)
        total = page.total_count if total is None else total
        seen |= {item.id for item in page.items}
        cursor = page.next_cursor
        if cursor is None:
            return seen, int(total or 0)


def rule(**raw: Any) -> ParentalControls:
    return parse_parental({"maxAge": 18, **raw})


async def test_age_limit_counts_pg13_as_13_and_unrated_as_the_library_says(store: Store) -> None:
    s = await sample(store)
    seen, total = await listed(store, rule(maxAge=12))
    names = {n for n, i in s.names.items() if i in seen}
    # PG-13 is 13, over 12; the unrated movie of Kids (unratedAge 0) passes, Grown's (18) does not;
    # an episode without a rating takes its series' (TV-MA); TV-Y on the episode itself admits it.
    assert names == {"Toy", "Plain", "Show E2"}
    assert total == len(seen)


async def test_blocked_items_win_over_allowed_ones_and_a_series_carries_its_episodes(store: Store) -> None:
    s = await sample(store)
    show = s.names["Show"]
    allowed, _ = await listed(store, rule(maxAge=0, allowedItems=[show]))
    both, _ = await listed(store, rule(maxAge=18, allowedItems=[show], blockedItems=[show]))
    assert {s.names[n] for n in ("Show", "Show S1", "Show E1", "Show E2")} <= allowed
    assert not {s.names[n] for n in ("Show", "Show S1", "Show E1", "Show E2")} & both


async def test_a_blocked_genre_on_a_series_hides_its_episodes_and_a_tag_hides_an_owners_extra(store: Store) -> None:
    s = await sample(store)
    seen, _ = await listed(store, rule(blockedGenres=["HORROR"], blockedTags=["gore"]))
    hidden = {n for n, i in s.names.items() if i not in seen}
    assert hidden == {"Blood", "Show", "Show S1", "Show E1", "Show E2", "Heat", "Heat trailer"}


rules = st.builds(
    lambda age, tags, genres, blocked, allowed: {"maxAge": age, "blockedTags": tags, "blockedGenres": genres,
                                                 "blockedItems": blocked, "allowedItems": allowed},
    st.sampled_from(MAX_AGES),
    st.lists(st.sampled_from(["gore", "aliens", "none"]), max_size=2),
    st.lists(st.sampled_from(["horror", "drama"]), max_size=2),
    st.lists(st.sampled_from(["Show", "Heat", "Teen", "Show S1", "Show E2"]), max_size=2),
    st.lists(st.sampled_from(["Show", "Heat", "Blood", "Odd", "Show S1"]), max_size=2),
)  # fmt: skip


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=rules)
async def test_listing_paging_counting_and_id_checks_agree_with_the_rule(
    database_url: str, raw: dict[str, Any]
) -> None:
    # Each example is a Trio run of its own: the store is opened in it (the database outlives them).
    with trio.fail_after(60):
        await migrated_copy(database_url)
        async with open_store(database_url) as store:
            await migrate(store)
            if not await store.fetch_one("SELECT 1 FROM items LIMIT 1"):
                await sample(store)
            names = {row["name"]: row["id"] for row in await store.fetch_all("SELECT id, name FROM items")}
            s = await _reread(store, names)
            raw = {**raw, "blockedItems": [names[n] for n in raw["blockedItems"]],
                   "allowedItems": [names[n] for n in raw["allowedItems"]]}  # fmt: skip
            controls = parse_parental(raw)
            seen, total = await listed(store, controls, limit=2)
            checked = await allowed_item_ids(store, list(names.values()), await parental_filter(store, controls))
    expected = oracle(s, controls)
    listable = expected - {row.id for row in s.rows.values() if row.owned}  # extras are listed only when asked
    assert seen == listable and total == len(listable) and checked == expected


async def _reread(store: Store, names: dict[str, str]) -> Sample:
    s = Sample(names=names)
    libraries = await store.fetch_all("SELECT id, options FROM libraries")
    s.unrated_age = {row["id"]: int(json.loads(row["options"]).get("unratedAge", 0)) for row in libraries}
    values: dict[str, set[str]] = {}
    for row in await store.fetch_all("SELECT item_id, kind, value FROM item_values"):
        values.setdefault(row["item_id"], set()).add(f"{row['kind']}:{row['value'].lower()}")
    for row in await store.fetch_all(
        "SELECT id, library_id, official_rating, series_id, season_id, owner_id FROM items"
    ):
        under = tuple(row[c] for c in ("series_id", "season_id", "owner_id") if row[c])
        s.rows[row["id"]] = Row(row["id"], row["library_id"], row["official_rating"], values.get(row["id"], set()),
                                under, row["series_id"] or row["owner_id"], bool(row["owner_id"]))  # fmt: skip
    return s
