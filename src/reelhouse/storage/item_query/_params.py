"""GET /items query parameters -> :class:`ItemQuery`, or 400 naming the parameter.

Private to :mod:`reelhouse.storage.item_query` (``parse_item_query``).
Rules (api-decisions.md): repeated parameters are lists; a comma-separated
value is one value (except ``ids``); booleans are ``true``/``false``;
an unknown enum value is 400 ``field_invalid`` naming the parameter (enum
values are matched case-insensitively and stored in the reference's
spelling). An empty value of a free-text parameter (a name, an id, a
codec) counts as absent; an empty boolean, enum, number or code is as
invalid as any other malformed value (400). Unknown parameters are ignored;
a single-valued parameter given twice is 400.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reelhouse.errors import Invalid
from reelhouse.media.probe import normalize_language
from reelhouse.media.ratings import rating_level

from ._model import (
    DYNAMIC_RANGES,
    IMAGE_KINDS,
    ITEM_ATTENTIONS,
    ITEM_SORTS,
    ITEM_TYPES,
    MAX_IDS,
    MAX_LIMIT,
    MAX_RATING,
    MAX_YEAR,
    MAX_YEAR_SPAN,
    MIN_YEAR,
    ORDERS,
    PERSON_KINDS,
    PERSON_MATCHES,
    RESOLUTIONS,
    SCRAPE_STATES,
    ItemQuery,
)

SUBTITLE_CODEC_ALIASES = {"srt": "subrip", "vtt": "webvtt", "pgs": "hdmv_pgs_subtitle"}
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
INITIALS = frozenset("abcdefghijklmnopqrstuvwxyz#")
# Fields the overview-attention card overrides (the reference: "then ignored").
CARD_OVERRIDES = ("types", "exclude_types", "scrape_states", "has_primary_image", "probe_pending")

Values = Sequence[str]
Parser = Callable[[str, Values], Any]


def parse_item_query(params: Mapping[str, Values]) -> ItemQuery:
    """The query for GET /items parameters (name -> every value given).

    Raises :class:`Invalid` with ``field`` = the parameter at fault.
    """
    given: dict[str, Any] = {}
    for name, (field, parse) in PARAMETERS.items():
        values = list(params.get(name, ()))
        if parse in _EMPTY_IS_ABSENT:
            values = [v for v in values if v != ""]
        if values:
            given[field] = parse(name, values)
    query = ItemQuery(**given)
    _check_years(query)
    if query.card is not None:
        defaults: dict[str, Any] = {f: ItemQuery.__dataclass_fields__[f].default for f in CARD_OVERRIDES}
        query = dataclasses.replace(query, **defaults)
    return query


# -- value parsers ------------------------------------------------------------


def _one(name: str, values: Values) -> str:
    if len(values) > 1:
        raise Invalid(f"{name} may be given only once.", field=name)
    return values[0]


def _text(name: str, values: Values) -> str:
    return _one(name, values)


def _texts(name: str, values: Values) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _lowered(name: str, values: Values) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.strip().lower() for v in values))


def _bool(name: str, values: Values) -> bool:
    value = _one(name, values)
    if value not in ("true", "false"):
        raise Invalid(f"{name} must be true or false.", field=name)
    return value == "true"


def _int(name: str, value: str, low: int, high: int) -> int:
    if not re.fullmatch(r"-?\d{1,10}", value) or not low <= int(value) <= high:
        raise Invalid(f"{name} must be an integer from {low} to {high}.", field=name)
    return int(value)


def _enum(choices: Sequence[str]) -> Callable[[str, str], str]:
    by_lower = {c.lower(): c for c in choices}

    def parse(name: str, value: str) -> str:
        found = by_lower.get(value.lower())
        if found is None:
            raise Invalid(f"{name}: {value!r} is not one of {', '.join(choices)}.", field=name)
        return found

    return parse


def _one_enum(choices: Sequence[str]) -> Parser:
    parse = _enum(choices)
    return lambda name, values: parse(name, _one(name, values))


def _enums(choices: Sequence[str]) -> Parser:
    parse = _enum(choices)
    return lambda name, values: tuple(dict.fromkeys(parse(name, v) for v in values))


def _year(name: str, values: Values) -> int:
    return _int(name, _one(name, values), MIN_YEAR, MAX_YEAR)


def _years(name: str, values: Values) -> tuple[int, ...]:
    return tuple(dict.fromkeys(_int(name, v, MIN_YEAR, MAX_YEAR) for v in values))


def _limit(name: str, values: Values) -> int:
    return _int(name, _one(name, values), 1, MAX_LIMIT)


def _offset(name: str, values: Values) -> int:
    return _int(name, _one(name, values), 0, 2**31 - 1)


def _rating(name: str, values: Values) -> float:
    value = _one(name, values)
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0.0 <= number <= MAX_RATING:  # also refuses NaN
        raise Invalid(f"{name} must be a number from 0 to {MAX_RATING:g}.", field=name)
    return number


def _rating_level(name: str, values: Values) -> int:
    level = rating_level(_one(name, values))
    if level is None:
        raise Invalid(f"{name}: not a content rating this server recognises.", field=name)
    return level


def _initial(name: str, values: Values) -> str:
    value = _one(name, values).lower()
    if value not in INITIALS or len(value) != 1:
        raise Invalid(f"{name} must be a letter A to Z or #.", field=name)
    return value


def _subtitle_codecs(name: str, values: Values) -> tuple[str, ...]:
    return tuple(dict.fromkeys(SUBTITLE_CODEC_ALIASES.get(v, v) for v in _lowered(name, values)))


def _languages(name: str, values: Values) -> tuple[str, ...]:
    codes = []
    for value in values:
        code = normalize_language(value)
        if code is None:
            raise Invalid(f"{name}: {value!r} is not a known language code.", field=name)
        codes.append(code)
    return tuple(dict.fromkeys(codes))


def _ids(name: str, values: Values) -> tuple[str, ...]:
    ids = [part.strip() for value in values for part in value.split(",")]
    if len(ids) > MAX_IDS:
        raise Invalid(f"{name}: at most {MAX_IDS} ids.", field=name, params={"limit": MAX_IDS})
    if not all(ID_PATTERN.fullmatch(i) for i in ids):
        raise Invalid(f"{name} must be comma-separated item ids.", field=name)
    return tuple(dict.fromkeys(ids))


def _check_years(query: ItemQuery) -> None:
    low, high = query.year_from, query.year_to
    if low is not None and high is not None:
        if high < low:
            raise Invalid("yearTo must not be before yearFrom.", field="yearTo")
        if high - low > MAX_YEAR_SPAN:
            raise Invalid(f"The year range spans at most {MAX_YEAR_SPAN} years.", field="yearTo")


PARAMETERS: dict[str, tuple[str, Parser]] = {
    "libraryId": ("library_id", _text),
    "parentId": ("parent_id", _text),
    "recursive": ("recursive", _bool),
    "type": ("types", _enums(ITEM_TYPES)),
    "excludeType": ("exclude_types", _enums(ITEM_TYPES)),
    "genreId": ("genres", _texts),
    "studioId": ("studios", _texts),
    "tagId": ("tags", _texts),
    "year": ("years", _years),
    "yearFrom": ("year_from", _year),
    "yearTo": ("year_to", _year),
    "minRating": ("min_rating", _rating),
    "officialRating": ("official_ratings", _texts),
    "minOfficialRating": ("min_official_level", _rating_level),
    "maxOfficialRating": ("max_official_level", _rating_level),
    "hasSubtitles": ("has_subtitles", _bool),
    "resolutions": ("resolutions", _enums(RESOLUTIONS)),
    "dynamicRanges": ("dynamic_ranges", _enums(DYNAMIC_RANGES)),
    "containers": ("containers", _lowered),
    "videoCodecs": ("video_codecs", _lowered),
    "audioCodecs": ("audio_codecs", _lowered),
    "subtitleCodecs": ("subtitle_codecs", _subtitle_codecs),
    "subtitleLanguages": ("subtitle_languages", _languages),
    "hasSpecialFeature": ("has_special_feature", _bool),
    "nameFrom": ("name_from", _text),
    "nameBefore": ("name_before", _text),
    "initial": ("initial", _initial),
    "nameStartsWith": ("name_starts_with", _text),
    "personId": ("person_ids", _texts),
    "personMatch": ("person_match", _one_enum(PERSON_MATCHES)),
    "personRole": ("person_roles", _enums(PERSON_KINDS)),
    "favoritePeople": ("favorite_people", _bool),
    "ids": ("ids", _ids),
    "isPlayed": ("is_played", _bool),
    "isFavorite": ("is_favorite", _bool),
    "neverPlayed": ("never_played", _bool),
    "hasOverview": ("has_overview", _bool),
    "q": ("q", _text),
    "missing": ("missing", _bool),
    "hasPrimaryImage": ("has_primary_image", _bool),
    "hasRemoteSource": ("has_remote_source", _bool),
    "probePending": ("probe_pending", _bool),
    "imageKinds": ("image_kinds", _enums(IMAGE_KINDS)),
    "attention": ("attention", _enums(ITEM_ATTENTIONS)),
    "scrapeState": ("scrape_states", _enums(SCRAPE_STATES)),
    "card": ("card", _one_enum(ITEM_ATTENTIONS)),
    "sort": ("sort", _one_enum(ITEM_SORTS)),
    "order": ("order", _one_enum(ORDERS)),
    "limit": ("limit", _limit),
    "offset": ("offset", _offset),
    "cursor": ("cursor", _text),
    "includeTotal": ("include_total", _bool),
}
"""Query parameter -> (ItemQuery field, parser of its values)."""

_EMPTY_IS_ABSENT: frozenset[Parser] = frozenset({_text, _texts, _lowered, _subtitle_codecs})
"""Free-text parsers: for them an empty value is no filter (module doc)."""
