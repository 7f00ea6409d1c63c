"""The WHERE clause of an item listing: scope, visibility and every filter.

Private to :mod:`reelhouse.storage.item_query`. Every value is a bound
parameter; the only text spliced into SQL is this module's own constants.

Definitions the reference leaves to us (documented on GET /items):

- Scope. ``ids`` lists exactly those items (parentId/recursive ignored,
  extras and parts included). Otherwise, with ``parentId``: its direct
  children (a series: its seasons and the episodes directly under it; a
  season: its episodes; anything else: items whose parent it is), or with
  ``recursive=true`` every descendant. Without ``parentId``: the top level
  of the libraries (items without a parent: movies, series, folders, box
  sets), or with ``recursive=true`` (or a ``card``) everything.
- Extras and additional parts are hidden, except by ``ids`` or when listed
  by ``parentId`` of their owner together with ``type=Video``.
- Missing items are hidden unless ``missing=true`` (only missing) or the
  ``missing`` attention state is asked for.
- Media filters look at the primary version: the item's first media source
  (position 0); resolution and dynamic range at its first video stream.
- A key has no user behind it: ``isPlayed=true``, ``isFavorite=true`` and
  ``favoritePeople=true`` match nothing; ``false`` matches everything;
  ``neverPlayed=true`` matches everything and ``false`` nothing. A member
  (``member_id``) gets their own watch state (``_member``);
  no person is anyone's favourite yet, so ``favoritePeople=true`` still
  matches nothing.
- Attention states: ``needsIdentify`` / ``scrapeFailed`` / ``scrapePending``
  = scrape state needsIdentify / failed / pending; ``noPoster`` = no primary
  image; ``unprobed`` = probe pending; ``missing`` = file missing;
  ``scrapeNotQueued`` = a movie or series without NFO whose scrape state is
  none (never queued).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._name_key import name_key, sql_name_key
from .._parental_sql import parental_sql
from . import _member as member_state
from ._model import ItemQuery
from ._value_filters import TEXT, has_years, index_ordered, marks, value_filters, year_filters

# Widths (primary video stream) where the resolution classes start.
HD_MIN_WIDTH = 1200
UHD_MIN_WIDTH = 3200
LIKE_ESCAPE = "!"
LETTERS = "abcdefghijklmnopqrstuvwxyz"

PRIMARY_SOURCE = "ms.item_id = i.id AND ms.position = 0"
UNPROBED_REMOTE = "ms.remote = 1 AND ms.probed_at IS NULL"
CONTAINER_ALIASES: Mapping[str, tuple[str, ...]] = {"mpegts": ("mpegts", "ts", "m2ts", "mts")}
CONTAINER = (
    f"CASE WHEN {UNPROBED_REMOTE} OR ms.container = 'strm' THEN 'strm'"
    " WHEN lower(ms.container) IN ('ts', 'm2ts', 'mts') THEN 'mpegts' ELSE lower(ms.container) END"
)
"""The primary version's container as the reference names it (for sorting)."""
# The scanner stores codecs, languages (ISO 639-2/B), containers and the
# probed dynamic range (hdr_format) in lower case / the DynamicRange
# spelling, so filters compare the columns as stored: plain comparisons give
# the planners column statistics, where an expression gives them a guess.
_HDR = "COALESCE(st.hdr_format, '')"
_TRANSFER = "COALESCE(st.color_transfer, '')"
_DOLBY_VISION = f"{_HDR} = 'dolbyVision'"
_HDR10 = f"({_HDR} IN ('hdr10', 'hdr10+', 'hdr10plus') OR ({_TRANSFER} = 'smpte2084' AND NOT {_DOLBY_VISION}))"
_HLG = f"({_HDR} = 'hlg' OR ({_TRANSFER} = 'arib-std-b67' AND NOT {_DOLBY_VISION} AND NOT {_HDR10}))"
DYNAMIC_RANGES: Mapping[str, str] = {
    "dolbyVision": _DOLBY_VISION,
    "hdr10": f"(NOT {_DOLBY_VISION} AND {_HDR10})",
    "hlg": f"(NOT {_DOLBY_VISION} AND NOT {_HDR10} AND {_HLG})",
    "sdr": f"NOT ({_DOLBY_VISION} OR {_HDR10} OR {_HLG})",
}
"""The first video stream's dynamic range: Dolby Vision wins, then PQ, then HLG."""
# Each resolution class as a width range (ranges, unlike a CASE, give the
# planners an estimate).
RESOLUTION_WIDTHS: Mapping[str, str] = {
    "sd": f"st.width < {HD_MIN_WIDTH}",
    "hd": f"(st.width >= {HD_MIN_WIDTH} AND st.width < {UHD_MIN_WIDTH})",
    "4k": f"st.width >= {UHD_MIN_WIDTH}",
}
# items.primary_image (migration 0027, kept by triggers): a column of the
# name walks' index entries, where a probe of images per row walked cost a
# noPoster page 8x the plain page's SQL.
NO_PRIMARY_IMAGE = "i.primary_image = 0"
HAS_PRIMARY_IMAGE = "i.primary_image = 1"
ATTENTION: Mapping[str, str] = {
    "needsIdentify": "i.scrape_state = 'needsIdentify'",
    "scrapeFailed": "i.scrape_state = 'failed'",
    "scrapePending": "i.scrape_state = 'pending'",
    "noPoster": NO_PRIMARY_IMAGE,
    "unprobed": "i.probe_pending = 1",
    "missing": "i.missing = 1",
    "scrapeNotQueued": "(i.scrape_state = 'none' AND i.has_nfo = 0 AND i.type IN ('Movie', 'Series'))",
}
NEVER = "1 = 0"
# A BoxSet's members are its children (parentId=<BoxSet id>).
BOXSET_MEMBERS = "i.id IN (SELECT ci.item_id FROM collection_items ci WHERE ci.collection_id = ?)"
# Conditions nearly every item passes. SQLite without statistics takes any
# equality for a selective one and would scan items_by_owner, items_by_missing
# or items_by_probe_pending instead of the index that gives the listing's
# order, so on SQLite they are spelled so that no index matches them;
# PostgreSQL, which knows better from its statistics, gets them plain (it
# would take the spelled form for a rare one).
NOT_OWNED = "i.owner_id IS NULL"
PRESENT = "i.missing = 0"
PROBED = "i.probe_pending = 0"
UNINDEXED: Mapping[str, str] = {
    NOT_OWNED: "COALESCE(i.owner_id, '') = ''",
    PRESENT: "i.missing + 0 = 0",
    PROBED: "i.probe_pending + 0 = 0",
}


LIBRARY_PARENT = "library"


@dataclass(frozen=True, slots=True)
class Parent:
    """The item (or, with type :data:`LIBRARY_PARENT`, the library) named by ``parentId``."""

    id: str
    type: str


@dataclass(slots=True)
class Where:
    """WHERE conditions (ANDed) and an optional WITH clause, with their parameters."""

    backend: str = "sqlite"
    drive_from_subqueries: bool = False
    conditions: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)
    ctes: list[str] = field(default_factory=list)  # recursive common table expressions
    with_params: list[Any] = field(default_factory=list)

    def add(self, sql: str, *params: Any) -> None:
        self.conditions.append(sql)
        self.params.extend(params)

    def scope_column(self, column: str) -> str:
        """``column`` as a scope condition (library, top level, type) should name it.

        On SQLite, when the rows are better found through a subquery filter
        (:func:`_drives_from_subqueries`), a unary ``+`` keeps SQLite from
        taking the scope's index instead: without statistics it takes two
        equalities for more selective than any subquery.
        """
        return f"+{column}" if self.backend == "sqlite" and self.drive_from_subqueries else column

    def add_dense(self, sql: str) -> None:
        """Add one of the :data:`UNINDEXED` conditions, spelled for the backend."""
        self.conditions.append(UNINDEXED[sql] if self.backend == "sqlite" else sql)

    @property
    def sql(self) -> str:
        return " AND ".join(self.conditions) if self.conditions else "1 = 1"

    def with_clause(self, *more: str) -> str:
        """``WITH RECURSIVE ...`` for the statement (``more`` CTEs last; no parameters), or ""."""
        ctes = [*self.ctes, *more]
        return f"WITH RECURSIVE {', '.join(ctes)} " if ctes else ""


def build_where(
    query: ItemQuery, parent: Parent | None, rating_labels: Sequence[str] | None, backend: str
) -> Where:
    """The conditions selecting ``query``'s rows from ``items i`` on ``backend``.

    ``rating_labels``: the stored officialRating labels whose level lies in
    the query's min/max bounds (None when the query has no such bound).
    """
    where = Where(backend, drive_from_subqueries=_drives_from_subqueries(query))
    # Values first: SQLite tests a walk's rows in the order written, and a
    # value (rare) rules out most rows before the scope's dense tests run
    # (a year range's page by premiere date: 1.3 ms against 1.6 ms).
    value_filters(where, query)
    _scope(where, query, parent)
    for add_filter in FILTERS:
        add_filter(where, query)
    if rating_labels is not None:
        _in(where, "i.official_rating", rating_labels)
    return where


def _drives_from_subqueries(query: ItemQuery) -> bool:
    """Whether the rows are best found from the subquery filters (ids, people, q, values).

    Ids, people and a search term select few items: always. Genres, studios
    and tags may select many: only when no index gives the listing's order
    (one does for name and date added), where walking that index would
    otherwise stop after one page.
    """
    if query.ids is not None or query.person_ids or query.q is not None:
        return True
    # With a year, a top-level page reads the years asked for from
    # items_library_parent_by_year and tests the values on its own entries.
    year_walk = has_years(query) and query.parent_id is None and not (query.recursive or query.card)
    return bool(query.genres or query.studios or query.tags) and not index_ordered(query) and not year_walk


# -- scope --------------------------------------------------------------------


def _scope(where: Where, query: ItemQuery, parent: Parent | None) -> None:
    library = where.scope_column("i.library_id")
    if query.library_id is not None:
        where.add(f"{library} = ?", query.library_id)
    if parent is not None and parent.type == LIBRARY_PARENT:
        where.add(f"{library} = ?", parent.id)
        parent = None
    if query.visible_library_ids is not None:
        visible = query.visible_library_ids or ("",)  # no library: matches nothing
        where.add(f"i.library_id IN ({marks(visible)})", *visible)
    if query.parental is not None:
        rule_sql, rule_params = parental_sql(query.parental)
        where.add(rule_sql, *rule_params)
    if query.ids is not None:
        where.add(f"i.id IN ({marks(query.ids)})", *query.ids)
        return
    if parent is None:
        if not (query.recursive or query.card):
            where.add(f"{where.scope_column('i.parent_id')} IS NULL")
        where.add_dense(NOT_OWNED)
    elif query.recursive or query.card:
        _descendants(where, parent)
        where.add_dense(NOT_OWNED)
    elif "Video" in query.types:
        sql, params = _children(parent)
        where.add(f"({sql} OR i.owner_id = ?)", *params, parent.id)
    else:
        sql, params = _children(parent)
        where.add(sql, *params)
        where.add_dense(NOT_OWNED)


def _children(parent: Parent) -> tuple[str, tuple[str, ...]]:
    if parent.type == "Series":
        return (
            "(i.series_id = ? AND (i.type = 'Season' OR (i.type = 'Episode' AND i.season_id IS NULL)))",
            (parent.id,),
        )
    if parent.type == "Season":
        return "i.season_id = ?", (parent.id,)
    if parent.type == "BoxSet":
        return BOXSET_MEMBERS, (parent.id,)
    return "i.parent_id = ?", (parent.id,)


def _descendants(where: Where, parent: Parent) -> None:
    if parent.type == "BoxSet":
        where.add(BOXSET_MEMBERS, parent.id)
    elif parent.type == "Series":
        where.add("i.series_id = ?", parent.id)
    elif parent.type == "Season":
        where.add("i.season_id = ?", parent.id)
    else:
        where.ctes.append(
            "descendants(id) AS (SELECT d.id FROM items d WHERE d.parent_id = ?"
            " UNION SELECT c.id FROM items c JOIN descendants s ON c.parent_id = s.id)"
        )
        where.with_params.append(parent.id)
        where.add("i.id IN (SELECT id FROM descendants)")


# -- filters ------------------------------------------------------------------


def _in(where: Where, column: str, values: Sequence[Any]) -> None:
    if not values:
        where.add(NEVER)
    else:
        where.add(f"{column} IN ({marks(values)})", *values)


def _types(where: Where, query: ItemQuery) -> None:
    if query.types:
        _in(where, where.scope_column("i.type"), query.types)
    elif query.ids is None:
        where.add("i.type <> 'BoxSet'")  # collections are listed when asked for (type=BoxSet)
    if query.exclude_types:
        where.add(f"i.type NOT IN ({marks(query.exclude_types)})", *query.exclude_types)


def _ratings(where: Where, query: ItemQuery) -> None:
    if query.min_rating is not None:
        where.add("i.community_rating >= ?", query.min_rating)
    if query.official_ratings:
        where.add(f"lower(i.official_rating) IN ({marks(query.official_ratings, TEXT)})", *query.official_ratings)


def _primary_source(condition: str, *params: Any) -> tuple[str, tuple[Any, ...]]:
    return f"EXISTS (SELECT 1 FROM media_sources ms WHERE {PRIMARY_SOURCE} AND {condition})", params


def _primary_stream(condition: str, *params: Any) -> tuple[str, tuple[Any, ...]]:
    return (
        "EXISTS (SELECT 1 FROM media_sources ms JOIN media_streams st ON st.source_id = ms.id"
        f" WHERE {PRIMARY_SOURCE} AND {condition})",
        params,
    )


def _first_video(condition: str, *params: Any) -> tuple[str, tuple[Any, ...]]:
    # "No embedded video stream before it" rather than "idx = min(idx)": an
    # anti-join PostgreSQL plans well, where a min() subquery ran per stream.
    return _primary_stream(
        "st.type = 'Video' AND st.is_external = 0 AND NOT EXISTS (SELECT 1 FROM media_streams fv"
        " WHERE fv.source_id = st.source_id AND fv.type = 'Video' AND fv.is_external = 0 AND fv.idx < st.idx)"
        f" AND {condition}",
        *params,
    )


def _media(where: Where, query: ItemQuery) -> None:
    if query.has_subtitles is not None:
        sql, _ = _primary_stream("st.type = 'Subtitle'")
        where.add(sql if query.has_subtitles else f"NOT {sql}")
    if query.resolutions:
        widths = " OR ".join(RESOLUTION_WIDTHS[r] for r in query.resolutions)
        where.add(*_flat(_first_video(f"({widths})")))
    if query.dynamic_ranges:
        ranges = " OR ".join(DYNAMIC_RANGES[r] for r in query.dynamic_ranges)
        where.add(*_flat(_first_video(f"({ranges})")))
    if query.containers:
        where.add(*_flat(_primary_source(*_containers(query.containers))))
    for kind, codecs in (
        ("Video", query.video_codecs), ("Audio", query.audio_codecs), ("Subtitle", query.subtitle_codecs),
    ):  # fmt: skip
        if codecs:
            where.add(*_flat(_primary_stream(f"st.type = ? AND st.codec IN ({marks(codecs)})", kind, *codecs)))
    if query.subtitle_languages:
        languages = query.subtitle_languages
        sql = f"st.type = 'Subtitle' AND st.language IN ({marks(languages)})"
        where.add(*_flat(_primary_stream(sql, *languages)))
    if query.has_remote_source is not None:
        sql = "EXISTS (SELECT 1 FROM media_sources rs WHERE rs.item_id = i.id AND rs.remote = 1)"
        where.add(sql if query.has_remote_source else f"NOT {sql}")
    if query.probe_pending is not None:
        if query.probe_pending:
            where.add("i.probe_pending = 1")
        else:
            where.add_dense(PROBED)


def _containers(containers: Sequence[str]) -> tuple[str, ...]:
    """The condition on ``ms`` for the effective containers (``strm``: unprobed remote), and its values."""
    stored = [name for c in containers if c != "strm" for name in CONTAINER_ALIASES.get(c, (c,))]
    branches = [f"({UNPROBED_REMOTE} OR ms.container = 'strm')"] if "strm" in containers else []
    if stored:
        branches.append(f"(NOT ({UNPROBED_REMOTE}) AND ms.container IN ({marks(stored)}))")
    return (f"({' OR '.join(branches)})", *stored)


def _flat(fragment: tuple[str, tuple[Any, ...]]) -> tuple[Any, ...]:
    return (fragment[0], *fragment[1])


def _special_features(where: Where, query: ItemQuery) -> None:
    if query.has_special_feature is None:
        return
    sql = (
        "EXISTS (SELECT 1 FROM items e WHERE e.owner_id = i.id AND e.missing = 0"
        " AND e.extra_type IS NOT NULL AND e.extra_type NOT IN ('Trailer', 'AdditionalPart'))"
    )
    where.add(sql if query.has_special_feature else f"NOT {sql}")


def _names(where: Where, query: ItemQuery) -> None:
    # Each bound is keyed like the column (see ._name_key).
    if query.name_from is not None:
        where.add("i.name_key >= ?", name_key(query.name_from))
    if query.name_before is not None:
        where.add("i.name_key < ?", name_key(query.name_before))
    if query.name_starts_with is not None:
        # A string sorts at or after its prefix: the bound lets the name
        # index seek, LIKE decides.
        prefix = name_key(query.name_starts_with)
        where.add("i.name_key >= ?", prefix)
        where.add(f"i.name_key LIKE ? ESCAPE '{LIKE_ESCAPE}'", like_escape(prefix) + "%")
    if query.initial == "#":
        where.add(f"substr(i.name_key, 1, 1) NOT IN ({', '.join(repr(c) for c in LETTERS)})")
    elif query.initial is not None:
        # The range only lets an index seek; the first letter decides.
        where.add("i.name_key >= ?", query.initial)
        if query.initial != LETTERS[-1]:
            where.add("i.name_key < ?", chr(ord(query.initial) + 1))
        where.add("substr(i.name_key, 1, 1) = ?", query.initial)
    if query.q is not None:
        pattern = f"%{like_escape(name_key(query.q))}%"
        name = sql_name_key("n.name", where.backend)
        title = sql_name_key("COALESCE(n.original_title, '')", where.backend)
        # A subquery: one sequential scan for the (usually few) matches,
        # instead of testing every row along the listing's index.
        where.add(
            f"i.id IN (SELECT n.id FROM items n WHERE {name} LIKE ? ESCAPE '{LIKE_ESCAPE}'"
            f" OR {title} LIKE ? ESCAPE '{LIKE_ESCAPE}')",
            pattern, pattern,
        )  # fmt: skip


def like_escape(text: str) -> str:
    """``text`` as a LIKE pattern matching itself (escape character ``!``)."""
    return "".join(f"{LIKE_ESCAPE}{c}" if c in "%_" + LIKE_ESCAPE else c for c in text)


def _people(where: Where, query: ItemQuery) -> None:
    if not query.person_ids:
        return
    roles = query.person_roles
    role_sql = f" AND c.kind IN ({marks(roles)})" if roles else ""
    groups = [query.person_ids] if query.person_match == "any" else [(p,) for p in query.person_ids]
    for people in groups:
        where.add(
            f"i.id IN (SELECT c.item_id FROM credits c WHERE c.person_id IN ({marks(people)}){role_sql})",
            *people, *roles,
        )  # fmt: skip


def _user_state(where: Where, query: ItemQuery) -> None:
    if query.member_id is not None:
        _member_state(where, query, query.member_id)
    # No user behind an API key: nothing is played or a favourite.
    elif query.is_played or query.is_favorite or query.favorite_people or query.never_played is False:
        where.add(NEVER)


def _member_state(where: Where, query: ItemQuery, member_id: str) -> None:
    if query.favorite_people:
        where.add(NEVER)
    wanted = (
        (query.is_played, member_state.played), (query.is_favorite, member_state.favorite),
        (query.never_played, member_state.never_played),
    )  # fmt: skip
    for value, condition in wanted:
        if value is not None:
            sql, params = condition(member_id, where.backend)
            where.add(sql if value else f"NOT {sql}", *params)


def _item_fields(where: Where, query: ItemQuery) -> None:
    if query.has_overview is not None:
        where.add(
            "(i.overview IS NOT NULL AND i.overview <> '')"
            if query.has_overview
            else "(i.overview IS NULL OR i.overview = '')"
        )
    if query.has_primary_image is not None:
        where.add(HAS_PRIMARY_IMAGE if query.has_primary_image else NO_PRIMARY_IMAGE)
    for kind in query.image_kinds:
        where.add("EXISTS (SELECT 1 FROM images ik WHERE ik.item_id = i.id AND ik.kind = ?)", kind)
    if query.scrape_states:
        _in(where, "i.scrape_state", query.scrape_states)


def _missing_and_attention(where: Where, query: ItemQuery) -> None:
    states = query.attention_states
    if query.missing:
        where.add("i.missing = 1")
    elif "missing" not in states:
        where.add_dense(PRESENT)
    if not states:
        return
    others = " OR ".join(ATTENTION[s] for s in states if s != "missing")
    if "missing" in states and not query.missing:
        where.add(f"(i.missing = 1 OR (i.missing = 0 AND ({others})))" if others else "i.missing = 1")
    else:
        where.add(f"({' OR '.join(ATTENTION[s] for s in states)})")


FILTERS: tuple[Callable[[Where, ItemQuery], None], ...] = (
    _types,
    _missing_and_attention,
    year_filters,
    _ratings,
    _media,
    _special_features,
    _names,
    _people,
    _user_state,
    _item_fields,
)
