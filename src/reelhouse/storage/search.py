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
(a scan when the extension is unavailable).  The ranks are read in order
(:class:`_Tier`), each from its index, or, when it has many candidates, in
sort order until the limit is reached: the cost follows the matches of the
best ranks rather than the size of the library (100,000 items, one client:
about 1 to 6 ms on SQLite, 2 to 8 ms on PostgreSQL).

A person's ``role`` is the credit kind they hold most often (ties in
PersonKind order), None when they have no credit.  Cancellation: a
cancelled search abandons its reads; nothing is written.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import trio

from ._search_fold import search_key
from ._store import Backend, Row, Store
from .item_query import PAGE_EXTRAS, SUMMARY_COLUMNS, ItemSummary, summary_of

MIN_SUBSTRING_LENGTH = 3
"""Folded queries shorter than this match prefixes only (see the module doc)."""
DENSE_CANDIDATES = 1000
"""A tier with this many candidates is read in sort order (see :class:`_Tier`)."""
PERSON_KIND_ORDER = ("Actor", "Director", "Writer", "Producer", "GuestStar", "Composer")
_PREFIX_END = "\U0010ffff"  # sorts after every character, byte-wise

_Entity = Literal["items", "people"]
_TierName = Literal["exact", "prefix", "word", "inside"]


@dataclass(frozen=True, slots=True)
class PersonHit:
    id: str
    name: str
    image_tag: str | None
    role: str | None


@dataclass(frozen=True, slots=True)
class SearchHits:
    items: list[ItemSummary]  # rendered like item lists (storage.item_query)
    people: list[PersonHit]


@dataclass(frozen=True, slots=True)
class _Tier:
    """One rank band of a search and how its candidates are read.

    ``exact`` (rank 0) looks the query up; ``prefix`` (1) reads byte-wise
    ranges of covering indexes; ``word`` (2) and ``inside`` (3) take the
    trigram index's names containing ``" " + q`` or ``q``; each drops what
    an earlier tier returned.  A ``dense`` word or inside tier (at least
    :data:`DENSE_CANDIDATES` trigram candidates, counted first) is read
    instead in sort order, testing each name and stopping at the limit,
    rather than sorting thousands of candidates for twenty: such matches
    are spread through the sort order.  Prefix matches are not (a sort name
    mostly starts like its name), so they are always read by range.  Only
    SQLite counts: PostgreSQL caches a generic plan per statement, and for
    a count with a LIMIT that plan is a table scan expected to stop early;
    there every tier is read from its index (GIN bitmaps, fast enough).

    One statement runs the tiers in order, each sorted and limited, under
    one LIMIT: both engines run the arms of a UNION ALL one after the other
    and stop pulling rows at the limit, so a later tier is not read once
    earlier ones fill the page.
    """

    name: _TierName
    dense: bool


async def search(store: Store, q: str, limit: int) -> SearchHits:
    """Items and people whose names match ``q``, best first (module doc).

    ``limit`` (>= 1) caps each list.  A query that folds to nothing (only
    punctuation) matches nothing, and so does one holding NUL: no stored
    name holds one, and neither backend can compare it (PostgreSQL refuses
    NUL in text, an FTS5 ``MATCH`` fails on it).  Raises ValueError for a
    limit below 1, StoreError when the database fails.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    folded = search_key(q)
    if not folded or "\x00" in folded:
        return SearchHits([], [])
    found: dict[_Entity, list[Row]] = {}

    async def run(entity: _Entity) -> None:
        found[entity] = await _ranked(store, entity, folded, limit)

    async with trio.open_nursery() as nursery:  # two reader connections at once
        nursery.start_soon(run, "items")
        nursery.start_soon(run, "people")
    return SearchHits([summary_of(r) for r in found["items"]], [_person_hit(r) for r in found["people"]])


async def _ranked(store: Store, entity: _Entity, folded: str, limit: int) -> list[Row]:
    table = _TABLES[entity]
    substring = len(folded) >= MIN_SUBSTRING_LENGTH
    names = _TIER_NAMES if substring else _TIER_NAMES[:2]
    dense = await _dense_tiers(store, table, folded) if substring and store.backend == "sqlite" else set()
    tiers = tuple(_Tier(name, name in dense) for name in names)
    params: list[object] = []
    for tier in tiers:
        params.extend(_arm_params(store.backend, table, tier, folded))
        params.append(limit)
    return await store.fetch_all(_statement(store.backend, entity, tiers), (*params, limit))


async def _dense_tiers(store: Store, table: _Table, folded: str) -> set[_TierName]:
    """The trigram tiers with at least DENSE_CANDIDATES candidates (SQLite: see _Tier)."""
    counted = _TIER_NAMES[2:]  # lookups and prefix ranges are never dense
    probe = _probe_sql(store.backend, table, counted)
    counts = await store.fetch_one(probe, _probe_params(store.backend, table, folded, counted))
    assert counts is not None
    return {name for name, count in zip(counted, counts, strict=True) if int(count) >= DENSE_CANDIDATES}


# -- SQL ---------------------------------------------------------------------------
#
# Both backends have the same tables, search_items and search_people, with
# folded names compared byte-wise (see the migrations; PostgreSQL orders ids
# COLLATE "C" for the same tie order).  Conditions test every folded column
# of the table (items: name and original title); "?" marks below are per
# column unless said otherwise.

_TIER_NAMES: tuple[_TierName, ...] = ("exact", "prefix", "word", "inside")


@dataclass(frozen=True, slots=True)
class _Table:
    table: str
    key: str
    fts: str
    columns: tuple[str, ...]  # folded columns matched

    def any_of(self, template: str) -> str:
        return "(" + " OR ".join(template.format(c=f"s.{column}") for column in self.columns) + ")"

    def all_of(self, template: str) -> str:
        return " AND ".join(template.format(c=f"s.{column}") for column in self.columns)


_TABLES: dict[_Entity, _Table] = {
    "items": _Table("search_items", "item_id", "search_items_fts", ("name_f", "title_f")),
    "people": _Table("search_people", "person_id", "search_people_fts", ("name_f",)),
}


def _find(backend: Backend) -> str:
    return "instr" if backend == "sqlite" else "strpos"


def _contains_source(backend: Backend, table: _Table) -> str:
    """FROM ... WHERE the trigram index's candidates (parameters: one FTS phrase, or a LIKE per column)."""
    if backend == "sqlite":
        return f"{table.fts} f JOIN {table.table} s ON s.id = f.rowid WHERE {table.fts} MATCH ?"
    return f"{table.table} s WHERE " + table.any_of("{c} LIKE ?")


def _candidates(backend: Backend, table: _Table, tier: _Tier) -> str:
    """One tier's candidate rows (id, rank, sort_key); parameters: see _arm_params."""
    find = _find(backend)
    rank = _TIER_NAMES.index(tier.name)
    head = f"SELECT s.{table.key} AS id, {rank} AS rank, s.sort_f AS sort_key FROM "
    scan = f"{table.table} s WHERE "
    not_exact = table.all_of("{c} <> ?")
    not_prefix = table.all_of("substr({c}, 1, ?) <> ?")
    no_word = table.all_of(f"{find}(' ' || {{c}}, ?) = 0")
    if tier.name == "exact":
        return head + scan + table.any_of("{c} = ?")
    if tier.name == "prefix":
        return _prefix_candidates(head, table, not_exact)
    if tier.name == "word" and tier.dense:
        return head + scan + table.any_of(f"{find}(' ' || {{c}}, ?) > 0") + f" AND {not_prefix}"
    if tier.name == "word":
        return head + _contains_source(backend, table) + f" AND {not_prefix}"
    if tier.dense:
        return head + scan + table.any_of(f"{find}({{c}}, ?) > 0") + f" AND {no_word}"
    return head + _contains_source(backend, table) + f" AND {no_word}"


def _prefix_candidates(head: str, table: _Table, not_exact: str) -> str:
    """Names in the prefix range, one covering-index range per column (an OR
    of ranges would look every row up); a row in several ranges comes from
    the first."""
    parts = []
    for n, column in enumerate(table.columns):
        earlier = "".join(f" AND NOT (s.{c} >= ? AND s.{c} < ?)" for c in table.columns[:n])
        parts.append(f"{head}{table.table} s WHERE s.{column} >= ? AND s.{column} < ? AND {not_exact}{earlier}")
    return " UNION ALL ".join(parts)


def _arm_params(backend: Backend, table: _Table, tier: _Tier, folded: str) -> tuple[object, ...]:
    """The parameters of one tier's candidates, in the order _candidates writes them."""
    n = len(table.columns)
    length = len(folded)
    word = " " + folded
    if tier.name == "exact":
        return (folded,) * n
    if tier.name == "prefix":
        bounds = (folded, folded + _PREFIX_END)
        return tuple(p for k in range(n) for p in (*bounds, *(folded,) * n, *bounds * k))
    if tier.name == "word":
        test = (word,) * n if tier.dense else _match(backend, word, n)
        return (*test, *(length, folded) * n)
    test = (folded,) * n if tier.dense else _match(backend, folded, n)
    return (*test, *(word,) * n)


def _match(backend: Backend, needle: str, columns: int) -> tuple[object, ...]:
    if backend == "sqlite":  # one FTS5 phrase covers every column
        return ('"' + needle.replace('"', '""') + '"',)
    return (f"%{_escape_like(needle)}%",) * columns


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _probe_sql(backend: Backend, table: _Table, names: tuple[_TierName, ...]) -> str:
    """One row: per tier, its trigram candidates counted up to DENSE_CANDIDATES."""
    count = f"(SELECT count(*) FROM (SELECT 1 FROM {_contains_source(backend, table)} LIMIT ?) m)"
    return "SELECT " + ", ".join([count] * len(names))


def _probe_params(backend: Backend, table: _Table, folded: str, names: tuple[_TierName, ...]) -> tuple[object, ...]:
    params: list[object] = []
    for name in names:
        needle = " " + folded if name == "word" else folded
        params.extend((*_match(backend, needle, len(table.columns)), DENSE_CANDIDATES))
    return tuple(params)


_ARM = """SELECT * FROM (SELECT c.id, c.rank, c.sort_key FROM ({candidates}) c
      ORDER BY c.sort_key{unindexed}, c.id{c} LIMIT ?) {alias}"""
_HITS = """
SELECT {columns}
FROM ({arms}
      LIMIT ?) h
{joins}
ORDER BY h.rank, h.sort_key, h.id{c}"""
_ITEM_COLUMNS = SUMMARY_COLUMNS + PAGE_EXTRAS
_ITEM_JOINS = "JOIN items i ON i.id = h.id"
_ROLE_ORDER = " ".join(f"WHEN '{kind}' THEN {n}" for n, kind in enumerate(PERSON_KIND_ORDER))
_PERSON_COLUMNS = f"""p.id, p.name, p.image_tag,
       (SELECT cr.kind FROM credits cr WHERE cr.person_id = p.id GROUP BY cr.kind
        ORDER BY count(*) DESC, CASE cr.kind {_ROLE_ORDER} ELSE 99 END LIMIT 1) AS role"""
_PERSON_JOINS = "JOIN people p ON p.id = h.id"
_SHAPES: dict[_Entity, tuple[str, str]] = {
    "items": (_ITEM_COLUMNS, _ITEM_JOINS),
    "people": (_PERSON_COLUMNS, _PERSON_JOINS),
}


@functools.lru_cache(maxsize=256)
def _statement(backend: Backend, entity: _Entity, tiers: tuple[_Tier, ...]) -> str:
    """The search for ``tiers``: each arm's best candidates, the union cut, the hits' columns.

    Parameters: each arm's (see _arm_params) then its limit; last, the
    union's limit.
    """
    collate = ' COLLATE "C"' if backend == "postgresql" else ""
    arms = [
        _ARM.format(
            candidates=_candidates(backend, _TABLES[entity], tier),
            unindexed="" if tier.dense else " || ''",
            c=collate,
            alias=f"t{n}",
        )
        for n, tier in enumerate(tiers)
    ]
    columns, joins = _SHAPES[entity]
    return _HITS.format(columns=columns, arms="\n      UNION ALL ".join(arms), joins=joins, c=collate)


def _person_hit(row: Row) -> PersonHit:
    return PersonHit(id=row["id"], name=row["name"], image_tag=row["image_tag"], role=row["role"])
