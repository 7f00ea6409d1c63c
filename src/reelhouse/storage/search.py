"""Search over item and person names (GET /search), on either backend.

``search(store, q, limit)`` folds the query like the stored names (case,
accents and punctuation: :mod:`._search_fold`) and returns up to ``limit``
items and up to ``limit`` people.  A name matches when the folded query is
part of it; items also match on their original title.  Hits are ranked:

0. exact: the whole name equals the query;
1. prefix: the name starts with it;
2. word prefix: a later word of the name starts with it;
3. inside: anywhere else;

an item by the better of its name and original title; ties by folded sort
name, then id (both byte-wise, so both backends order alike).  Queries of
fewer than three folded characters match prefixes only (ranks 0 and 1):
trigram indexes cannot serve shorter substrings, and one letter found
anywhere matches nearly everything.

Searchable items are those not missing, not extras and not additional
parts.  Both backends keep the folded names in ``search_items`` and
``search_people``, filled by triggers (``0003_search`` migrations); SQLite
indexes them with FTS5 trigram tables, PostgreSQL with pg_trgm GIN indexes
(a scan when the extension is unavailable).  Every query is index-driven
and the ranks are taken in order (:class:`_Tier`): the cost grows with the
number of matches of the best ranks, not with the size of the library.

A person's ``role`` is the credit kind they hold most often (ties in
PersonKind order), None when they have no credit.  Cancellation: a
cancelled search abandons its reads; nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import trio

from ._search_fold import fold
from ._store import Backend, Row, Store

MIN_SUBSTRING_LENGTH = 3
"""Folded queries shorter than this match prefixes only (see the module doc)."""
PERSON_KIND_ORDER = ("Actor", "Director", "Writer", "Producer", "GuestStar", "Composer")
_PREFIX_END = "\U0010ffff"  # sorts after every character, byte-wise

_Entity = Literal["items", "people"]
_TierName = Literal["prefix", "word", "inside"]


@dataclass(frozen=True, slots=True)
class ItemHit:
    """An item found by search: the columns of its ItemSummary.

    ``date_created`` is epoch milliseconds; ``poster_tag`` the tag of its
    primary image (index 0), None when it has none.
    """

    id: str
    name: str
    sort_name: str
    library_id: str
    type: str
    date_created: int
    poster_tag: str | None
    community_rating: float | None
    extra_type: str | None
    index_number: int | None
    parent_index_number: int | None
    locked: bool
    merged_into: str | None
    original_language: str | None
    original_title: str | None
    product_code: str | None
    production_year: int | None
    runtime_ticks: int | None
    scrape_state: str
    season_id: str | None
    series_id: str | None
    version_of: str | None


@dataclass(frozen=True, slots=True)
class PersonHit:
    id: str
    name: str
    image_tag: str | None
    role: str | None


@dataclass(frozen=True, slots=True)
class SearchHits:
    items: list[ItemHit]
    people: list[PersonHit]


@dataclass(frozen=True, slots=True)
class _Tier:
    """One rank band of a search.

    ``prefix`` (ranks 0 and 1) is a byte-wise range over the folded names;
    ``word`` (rank 2) and ``inside`` (rank 3) take the trigram index's
    candidates containing ``needle`` (``" " + q``, then ``q``) and drop
    those an earlier tier returned.  One statement runs the tiers in order,
    each sorted and limited, under one LIMIT: both engines run the arms of a
    UNION ALL one after the other and stop pulling rows at the limit, so a
    broad query is served from its exact and prefix matches without ranking
    every name that merely contains it.
    """

    name: _TierName
    needle: str


def _tiers(folded: str) -> list[_Tier]:
    if len(folded) < MIN_SUBSTRING_LENGTH:
        return [_Tier("prefix", folded)]
    return [_Tier("prefix", folded), _Tier("word", " " + folded), _Tier("inside", folded)]


async def search(store: Store, q: str, limit: int) -> SearchHits:
    """Items and people whose names match ``q``, best first (module doc).

    ``limit`` (>= 1) caps each list.  A query that folds to nothing (only
    punctuation) matches nothing.  Raises ValueError for a limit below 1,
    StoreError when the database fails.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    folded = fold(q)
    if not folded:
        return SearchHits([], [])
    found: dict[_Entity, list[Row]] = {}

    async def run(entity: _Entity) -> None:
        found[entity] = await _ranked(store, entity, folded, limit)

    async with trio.open_nursery() as nursery:  # two reader connections at once
        nursery.start_soon(run, "items")
        nursery.start_soon(run, "people")
    return SearchHits([_item_hit(r) for r in found["items"]], [_person_hit(r) for r in found["people"]])


async def _ranked(store: Store, entity: _Entity, folded: str, limit: int) -> list[Row]:
    tiers = _tiers(folded)
    columns = 2 if entity == "items" else 1  # items match on name and original title
    params: list[object] = []
    for tier in tiers:
        params.extend(_params(store.backend, tier, folded, columns))
        params.append(limit)
    sql = _STATEMENTS[(store.backend, entity, len(tiers))]
    return await store.fetch_all(sql, (*params, limit))


def _params(backend: Backend, tier: _Tier, folded: str, columns: int) -> tuple[object, ...]:
    """The parameters of a tier's arm, all but its limit (see the SQL below)."""
    if tier.name == "prefix":
        return (folded,) * columns + (folded, folded + _PREFIX_END) * columns
    if backend == "sqlite":  # one FTS5 phrase covers every column
        match: tuple[object, ...] = ('"' + tier.needle.replace('"', '""') + '"',)
    else:
        match = (f"%{_escape_like(tier.needle)}%",) * columns
    if tier.name == "word":
        return (*match, *(len(folded), folded) * columns)
    return (*match, *(" " + folded,) * columns)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# -- SQL ---------------------------------------------------------------------------
#
# Both backends have the same tables, search_items and search_people, with
# folded names compared byte-wise (see the migrations; PostgreSQL ids are
# ordered COLLATE "C" for the same tie order).  One statement per (backend,
# items or people, number of tiers): each tier's arm takes its best `limit`
# candidates by (rank, folded sort name, id); the union of the arms, in tier
# order, is cut at `limit`; then what a hit shows is fetched.  Parameters,
# per arm: prefix: q per column, then (q, q + U+10FFFF) per column; word:
# the match, then (len(q), q) per column; inside: the match, then " " + q
# per column; then the arm's limit.  Last, the limit of the union.

_ARM = """SELECT * FROM (SELECT c.id, c.rank, c.sort_key FROM ({candidates}) c
      ORDER BY c.rank, c.sort_key, c.id{c} LIMIT ?) {alias}"""
_HITS = """
SELECT {columns}
FROM ({arms}
      LIMIT ?) h
{joins}
ORDER BY h.rank, h.sort_key, h.id{c}"""
_ITEM_COLUMNS = """i.id, i.name, i.sort_name, i.library_id, i.type, i.date_created,
       img.tag AS poster_tag, i.community_rating, i.extra_type, i.index_number,
       i.parent_index_number, i.lock_data, i.locked_fields, i.merged_into,
       i.original_language, i.original_title, i.product_code, i.production_year,
       i.runtime_ticks, i.scrape_state, i.season_id, i.series_id, i.version_of"""
_ITEM_JOINS = """JOIN items i ON i.id = h.id
LEFT JOIN images img ON img.item_id = i.id AND img.kind = 'primary' AND img.idx = 0"""
_ROLE_ORDER = " ".join(f"WHEN '{kind}' THEN {n}" for n, kind in enumerate(PERSON_KIND_ORDER))
_PERSON_COLUMNS = f"""p.id, p.name, p.image_tag,
       (SELECT cr.kind FROM credits cr WHERE cr.person_id = p.id GROUP BY cr.kind
        ORDER BY count(*) DESC, CASE cr.kind {_ROLE_ORDER} ELSE 99 END LIMIT 1) AS role"""
_PERSON_JOINS = "JOIN people p ON p.id = h.id"


@dataclass(frozen=True, slots=True)
class _Table:
    table: str
    key: str
    fts: str
    columns: tuple[str, ...]  # folded columns matched


_TABLES: dict[_Entity, _Table] = {
    "items": _Table("search_items", "item_id", "search_items_fts", ("name_f", "title_f")),
    "people": _Table("search_people", "person_id", "search_people_fts", ("name_f",)),
}


def _candidates(backend: Backend, table: _Table, tier: _TierName) -> str:
    head = f"SELECT s.{table.key} AS id, {{rank}} AS rank, s.sort_f AS sort_key FROM "
    cols = [f"s.{column}" for column in table.columns]
    if tier == "prefix":
        exact = " OR ".join(f"{c} = ?" for c in cols)
        ranges = " OR ".join(f"({c} >= ? AND {c} < ?)" for c in cols)
        return head.format(rank=f"CASE WHEN {exact} THEN 0 ELSE 1 END") + f"{table.table} s WHERE {ranges}"
    if backend == "sqlite":
        source = f"{table.fts} f JOIN {table.table} s ON s.id = f.rowid WHERE {table.fts} MATCH ?"
        find = "instr"
    else:
        likes = " OR ".join(f"{c} LIKE ?" for c in cols)
        source = f"{table.table} s WHERE ({likes})"
        find = "strpos"
    if tier == "word":  # not a prefix: that was the first tier
        rest = " AND ".join(f"substr({c}, 1, ?) <> ?" for c in cols)
        return head.format(rank="2") + f"{source} AND {rest}"
    rest = " AND ".join(f"{find}(' ' || {c}, ?) = 0" for c in cols)  # no word starts with q
    return head.format(rank="3") + f"{source} AND {rest}"


def _statements() -> dict[tuple[Backend, _Entity, int], str]:
    """Statements by (backend, entity, number of tiers: 1 for short queries, else 3)."""
    shapes: dict[_Entity, tuple[str, str]] = {
        "items": (_ITEM_COLUMNS, _ITEM_JOINS),
        "people": (_PERSON_COLUMNS, _PERSON_JOINS),
    }
    tier_names: tuple[_TierName, ...] = ("prefix", "word", "inside")
    statements: dict[tuple[Backend, _Entity, int], str] = {}
    for backend, collate in (("sqlite", ""), ("postgresql", ' COLLATE "C"')):
        for entity, (columns, joins) in shapes.items():
            arms = [
                _ARM.format(candidates=_candidates(backend, _TABLES[entity], tier), c=collate, alias=f"t{n}")
                for n, tier in enumerate(tier_names)
            ]
            for count in (1, len(arms)):
                statements[(backend, entity, count)] = _HITS.format(
                    columns=columns, arms="\n      UNION ALL ".join(arms[:count]), joins=joins, c=collate
                )
    return statements


_STATEMENTS = _statements()


def _item_hit(row: Row) -> ItemHit:
    return ItemHit(
        id=row["id"],
        name=row["name"],
        sort_name=row["sort_name"],
        library_id=row["library_id"],
        type=row["type"],
        date_created=int(row["date_created"]),
        poster_tag=row["poster_tag"],
        community_rating=row["community_rating"],
        extra_type=row["extra_type"],
        index_number=row["index_number"],
        parent_index_number=row["parent_index_number"],
        locked=bool(row["lock_data"]) or row["locked_fields"] not in ("", "[]"),
        merged_into=row["merged_into"],
        original_language=row["original_language"],
        original_title=row["original_title"],
        product_code=row["product_code"],
        production_year=row["production_year"],
        runtime_ticks=row["runtime_ticks"],
        scrape_state=row["scrape_state"],
        season_id=row["season_id"],
        series_id=row["series_id"],
        version_of=row["version_of"],
    )


def _person_hit(row: Row) -> PersonHit:
    return PersonHit(id=row["id"], name=row["name"], image_tag=row["image_tag"], role=row["role"])
