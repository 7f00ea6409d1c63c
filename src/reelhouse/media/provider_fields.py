"""Which of a provider's values an item takes: the fill and replace rules.

Pure: :func:`plan_fields` compares the item as stored (:class:`StoredItem`)
with the provider's answer (:class:`ProviderItem`) and says what changes
(:class:`FieldPlan`); the caller writes it.

The rules (issue 17, item 2; RefreshMetadataRequest):

- ``missing`` fills only empty fields: NULL or blank text, no genres of
  the item, no credits.  The *name* of an item that has no NFO and was
  never matched by a provider counts as empty: it is the scanner's guess
  from the file or folder name (``Arrival.2016.1080p`` -> ``Arrival``,
  ``Season 1``, ``Episode 3``), and the provider's title is the better one.
  A name an NFO gave, or an earlier match, is kept.
- ``replaceAll`` overwrites every provider-fillable field the answer
  carries (a value the provider lacks never blanks a stored one).
- An item with an NFO (``has_nfo``) is always filled, never overwritten,
  whatever the mode: its NFO values are the user's.
- ``lockedFields`` are never touched; names compare case-insensitively
  and a few aliases are understood (:data:`LOCK_NAMES`), so ``Cast`` locks
  the people, ``Year`` the production year.  ``lockData`` items are not
  planned at all (the caller skips them).
- The runtime is filled only while unknown and no probe is pending,
  whatever the mode: the probe's runtime (the file's real length) is
  better than the provider's, and the probe only fills an unknown one.
- ``providerIds`` are merged: missing keys are added; ``replaceAll``
  (without NFO) lets the provider's value win for its keys.
- Ratings (``extra.ratings``) are merged by source the same way; the
  community (0..10) and critic (0..100) ratings are plain fields.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from reelhouse.media.naming import sort_name as title_sort_name
from reelhouse.media.provider_metadata import ProviderItem, ProviderPerson

ApplyMode = Literal["missing", "replaceAll"]
TICKS_PER_MINUTE = 60 * 10_000_000
RATING_MAX = 10.0
SORTABLE_TYPES = ("Movie", "Series", "Video")

# API field name -> the lockedFields names that lock it (lower case).
LOCK_NAMES: Mapping[str, frozenset[str]] = {
    "name": frozenset({"name", "title"}),
    "originalTitle": frozenset({"originaltitle"}),
    "overview": frozenset({"overview", "plot"}),
    "tagline": frozenset({"tagline", "taglines"}),
    "productionYear": frozenset({"productionyear", "year"}),
    "premiereDate": frozenset({"premieredate", "premiered"}),
    "endDate": frozenset({"enddate"}),
    "communityRating": frozenset({"communityrating", "rating"}),
    "criticRating": frozenset({"criticrating"}),
    "officialRating": frozenset({"officialrating", "mpaa"}),
    "runtime": frozenset({"runtime", "runtimeticks"}),
    "genres": frozenset({"genres"}),
    "studios": frozenset({"studios"}),
    "people": frozenset({"people", "cast", "credits"}),
    "providerIds": frozenset({"providerids"}),
    "ratings": frozenset({"ratings"}),
    "images": frozenset({"images"}),
}
# API field name -> items column, for the plain fields.
COLUMNS: Mapping[str, str] = {
    "name": "name",
    "originalTitle": "original_title",
    "overview": "overview",
    "tagline": "tagline",
    "productionYear": "production_year",
    "premiereDate": "premiere_date",
    "endDate": "end_date",
    "communityRating": "community_rating",
    "criticRating": "critic_rating",
    "officialRating": "official_rating",
}


@dataclass(frozen=True, slots=True)
class StoredItem:
    """What the plan needs of an item as stored."""

    id: str
    type: str
    has_nfo: bool
    locked_fields: frozenset[str]  # lower case
    columns: Mapping[str, Any]  # the COLUMNS values and runtime_ticks
    provider_ids: Mapping[str, str]
    extra: Mapping[str, Any]
    value_kinds: frozenset[str]  # item_values kinds the item has (genre, studio...)
    has_credits: bool
    probe_pending: bool = False  # its file's runtime is still to come

    @property
    def scraped_before(self) -> bool:
        return isinstance(self.extra.get("provider"), str)

    def locks(self, api_field: str) -> bool:
        return bool(LOCK_NAMES.get(api_field, frozenset({api_field.lower()})) & self.locked_fields)


@dataclass(frozen=True, slots=True)
class CreditPlan:
    name: str
    kind: str
    role: str
    order: int
    provider_ids: Mapping[str, str]
    image_url: str | None = None  # the provider's picture of the person


@dataclass(frozen=True, slots=True)
class FieldPlan:
    """What changes: ``columns`` to set, value kinds and credits to replace (None: keep)."""

    columns: Mapping[str, Any] = field(default_factory=dict)  # items column -> value (sort_name with name)
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> the new list
    credits: tuple[CreditPlan, ...] | None = None
    provider_ids: Mapping[str, str] | None = None  # the merged ids, when they changed
    ratings: tuple[Mapping[str, Any], ...] | None = None  # extra.ratings, when they changed
    changed: tuple[str, ...] = ()  # API field names


def plan_fields(item: StoredItem, answer: ProviderItem, mode: ApplyMode) -> FieldPlan:
    """What ``item`` takes from ``answer`` under ``mode`` (see the module doc)."""
    replace = mode == "replaceAll" and not item.has_nfo
    columns: dict[str, Any] = {}
    changed: list[str] = []
    for api_field, value in _provider_values(answer).items():
        if value is None or item.locks(api_field):
            continue
        column = COLUMNS[api_field]
        current = item.columns.get(column)
        if not (replace or _empty(current) or (api_field == "name" and _guessed_name(item))):
            continue
        if current != value:
            columns[column] = value
            changed.append(api_field)
    if "name" in columns:
        columns["sort_name"] = title_sort_name(columns["name"]) if item.type in SORTABLE_TYPES else columns["name"]
    if answer.runtime_minutes and answer.runtime_minutes > 0 and not item.locks("runtime"):
        if item.columns.get("runtime_ticks") is None and not item.probe_pending:
            columns["runtime_ticks"] = answer.runtime_minutes * TICKS_PER_MINUTE
            changed.append("runtime")
    values = _values(item, answer, replace, changed)
    credits = _credits(item, answer.people, replace, changed)
    ids = _merged_ids(item, answer.provider_ids, replace, changed)
    ratings = _merged_ratings(item, answer, replace, changed)
    return FieldPlan(columns, values, credits, ids, ratings, tuple(changed))


def _provider_values(answer: ProviderItem) -> dict[str, Any]:
    return {
        "name": answer.name,
        "originalTitle": answer.original_title,
        "overview": answer.overview,
        "tagline": answer.tagline,
        "productionYear": answer.production_year or (answer.premiere_date.year if answer.premiere_date else None),
        "premiereDate": date_ms(answer.premiere_date),
        "endDate": date_ms(answer.end_date),
        "communityRating": _bounded(answer.community_rating, 10.0),
        "criticRating": _bounded(answer.critic_rating, 100.0),
        "officialRating": answer.official_rating,
    }


def _guessed_name(item: StoredItem) -> bool:
    """The stored name is the scanner's guess: no NFO named it, no provider matched it yet."""
    return not item.has_nfo and not item.scraped_before


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _bounded(value: float | None, top: float) -> float | None:
    return None if value is None or not 0 <= value <= top else round(value, 3)


def _values(item: StoredItem, answer: ProviderItem, replace: bool, changed: list[str]) -> dict[str, tuple[str, ...]]:
    planned: dict[str, tuple[str, ...]] = {}
    for api_field, kind, given in (("genres", "genre", answer.genres), ("studios", "studio", answer.studios)):
        if not given or item.locks(api_field) or (kind in item.value_kinds and not replace):
            continue
        planned[kind] = tuple(given)
        changed.append(api_field)
    return planned


def _credits(
    item: StoredItem, people: Sequence[ProviderPerson], replace: bool, changed: list[str]
) -> tuple[CreditPlan, ...] | None:
    if not people or item.locks("people") or (item.has_credits and not replace):
        return None
    changed.append("people")
    return dedupe_people(people)


def dedupe_people(people: Sequence[ProviderPerson]) -> tuple[CreditPlan, ...]:
    """One credit per person, kind and role: persons are the same by a shared
    provider id, else by case-folded name (the first spelling wins)."""
    names: dict[tuple[str, str], str] = {}  # provider id -> the name first seen with it
    seen: set[tuple[str, str, str]] = set()
    plans: list[CreditPlan] = []
    for position, person in enumerate(people):
        ids = sorted(person.provider_ids.items())
        name = next((names[pair] for pair in ids if pair in names), person.name)
        for pair in ids:
            names.setdefault(pair, name)
        key = (name.casefold(), person.kind, person.role)
        if key in seen:
            continue
        seen.add(key)
        order = person.order if person.order is not None else position
        plans.append(CreditPlan(name, person.kind, person.role, order, dict(person.provider_ids), person.image_url))
    return tuple(plans)


def _merged_ids(
    item: StoredItem, given: Mapping[str, str], replace: bool, changed: list[str]
) -> dict[str, str] | None:
    if not given or item.locks("providerIds"):
        return None
    merged = dict(item.provider_ids)
    for key, value in given.items():
        key = key.lower()
        if replace or not merged.get(key):
            merged[key] = value
    if merged == dict(item.provider_ids):
        return None
    changed.append("providerIds")
    return dict(sorted(merged.items()))


def _merged_ratings(
    item: StoredItem, answer: ProviderItem, replace: bool, changed: list[str]
) -> tuple[dict[str, Any], ...] | None:
    if not answer.ratings or item.locks("ratings"):
        return None
    stored = item.extra.get("ratings")
    current = [dict(r) for r in stored if isinstance(r, Mapping)] if isinstance(stored, list) else []
    by_source = {str(r.get("source", "")).lower(): n for n, r in enumerate(current)}
    merged = list(current)
    for rating in answer.ratings:
        if not 0 <= rating.value <= RATING_MAX:
            continue
        entry: dict[str, Any] = {"source": rating.source.lower(), "value": rating.value, "max": RATING_MAX}
        if rating.votes is not None:
            entry["votes"] = rating.votes
        at = by_source.get(entry["source"])
        if at is None:
            by_source[entry["source"]] = len(merged)
            merged.append(entry)
        elif replace:
            merged[at] = entry
    if merged == current:
        return None
    changed.append("ratings")
    return tuple(merged)


def date_ms(day: datetime.date | None) -> int | None:
    """Midnight UTC of ``day`` in epoch milliseconds (as the scanner stores dates)."""
    if day is None:
        return None
    return int(datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC).timestamp()) * 1000
