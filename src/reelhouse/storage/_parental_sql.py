"""Parental controls as one SQL condition over ``items i``: see :mod:`.parental_filter`.

Private to storage: the item query (``item_query/_filters``) adds it beside
the library scope; :mod:`.parental_filter` builds the rule and checks ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_TEXT = "lower(CAST(? AS TEXT))"
_UNDER = ("i.id", "i.series_id", "i.season_id", "i.owner_id")


@dataclass(frozen=True, slots=True)
class ParentalFilter:
    """A member's rule with the store's facts it needs (rating labels, library unratedAge)."""

    blocked_items: tuple[str, ...] = ()
    allowed_items: tuple[str, ...] = ()
    blocked_tags: tuple[str, ...] = ()
    blocked_genres: tuple[str, ...] = ()
    limits_age: bool = False
    admitted_labels: tuple[str, ...] = ()  # stored labels whose age is at most maxAge
    known_labels: tuple[str, ...] = ()  # stored labels with a known age
    unrated_libraries: tuple[str, ...] = ()  # libraries whose unratedAge is at most maxAge


def parental_sql(rule: ParentalFilter) -> tuple[str, list[Any]]:
    """The condition an item row ``i`` meets when ``rule`` lets the member see it."""
    conditions: list[str] = []
    params: list[Any] = []
    if rule.blocked_items:
        sql, more = _under(rule.blocked_items)
        conditions.append(f"NOT {sql}")
        params += more
    limits, limit_params = _limits(rule)
    if limits:
        if rule.allowed_items:
            sql, more = _under(rule.allowed_items)
            conditions.append(f"({sql} OR ({limits}))")
            params += more
        else:
            conditions.append(f"({limits})")
        params += limit_params
    if not conditions:
        return "1 = 1", []
    return " AND ".join(conditions), params


def _marks(values: Sequence[Any], mark: str = "?") -> str:
    return ", ".join(mark for _ in values)


def _under(ids: Sequence[str]) -> tuple[str, list[Any]]:
    """The item is one of ``ids`` or lies under one (series, season, owner of an extra)."""
    # A column that is NULL must give false, not NULL: the blocked list is negated.
    listed = _marks(ids)
    parts = [
        f"{column} IN ({listed})" if column == "i.id" else f"({column} IS NOT NULL AND {column} IN ({listed}))"
        for column in _UNDER
    ]
    return f"({' OR '.join(parts)})", [value for _ in _UNDER for value in ids]


def _limits(rule: ParentalFilter) -> tuple[str, list[Any]]:
    """Tags, genres and age: the conditions ``allowedItems`` lift."""
    conditions: list[str] = []
    params: list[Any] = []
    kinds = [(kind, names) for kind, names in (("tag", rule.blocked_tags), ("genre", rule.blocked_genres)) if names]
    if kinds:
        ors = " OR ".join(f"(v.kind = ? AND lower(v.value) IN ({_marks(names, _TEXT)}))" for _, names in kinds)
        conditions.append(
            "NOT EXISTS (SELECT 1 FROM item_values v WHERE v.item_id IN (i.id, i.series_id, i.owner_id)"
            f" AND ({ors}))"
        )
        params += [value for kind, names in kinds for value in (kind, *names)]
    if rule.limits_age:
        sql, more = _age(rule)
        conditions.append(sql)
        params += more
    return " AND ".join(conditions), params


def _age(rule: ParentalFilter) -> tuple[str, list[Any]]:
    rating = (
        "COALESCE(i.official_rating,"
        " (SELECT s.official_rating FROM items s WHERE s.id = COALESCE(i.series_id, i.owner_id)))"
    )
    admitted = f"{rating} IN ({_marks(rule.admitted_labels)})" if rule.admitted_labels else "1 = 0"
    if not rule.unrated_libraries:
        return admitted, list(rule.admitted_labels)
    unrated = f"{rating} IS NULL"
    if rule.known_labels:
        unrated = f"({unrated} OR {rating} NOT IN ({_marks(rule.known_labels)}))"
    sql = f"({admitted} OR ({unrated} AND i.library_id IN ({_marks(rule.unrated_libraries)})))"
    return sql, [*rule.admitted_labels, *rule.known_labels, *rule.unrated_libraries]
