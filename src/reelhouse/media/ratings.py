"""Content ratings (``officialRating`` labels) converted to a minimum age.

The reference filters and sorts by "rating level" and parental limits
compare ages ("PG-13 counts as 13, so limit 12 blocks it"), so every label
becomes the age it admits. The level used for sorting *is* that age.

Labels in the wild come in many spellings: ``PG-13``, ``Rated PG-13``,
``US:PG-13``, ``us/PG-13``, ``de/12``, ``FSK 12``, ``FSK-16``, ``gb/15``.
Parsing is case-insensitive and ignores spaces, hyphens and underscores
inside the code (``PG 13`` = ``PG-13`` = ``pg13``).

Lookup:

- With a known country prefix (``us:``, ``us/``, ``de/``, also ``uk`` for
  ``gb``) only that country's table is used, then the plain-age rule.
- Without a prefix, or with an unknown one, the tables are tried in
  :data:`BARE_LABEL_ORDER` (US first, so a bare ``PG`` is the US PG), then
  the plain-age rule.
- The plain-age rule: a bare number with an optional ``+`` (``16``,
  ``16+``) up to :data:`MAX_PLAIN_AGE` is that age.
- ``FSK`` labels (``FSK 12``, ``FSK-16``, ``FSK ab 12``) are German.

Unrated labels (``NR``, ``Unrated``, ``Not Rated``) and unrecognised ones
give ``None``. Everything here is pure and cheap; results are cached.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

# Codes are stored normalised: lower case, no spaces, hyphens or underscores.
_US = {
    # Film (MPA)
    "g": 0,
    "pg": 10,
    "pg13": 13,
    "r": 17,
    "nc17": 18,
    # Television (TV Parental Guidelines)
    "tvy": 0,
    "tvy7": 7,
    "tvy7fv": 7,
    "tvg": 0,
    "tvpg": 10,
    "tv14": 14,
    "tvma": 17,
}
_GB = {"u": 0, "uc": 0, "pg": 8, "12": 12, "12a": 12, "15": 15, "18": 18, "r18": 18}
_DE = {"0": 0, "6": 6, "12": 12, "16": 16, "18": 18}
_FR = {"u": 0, "tp": 0, "10": 10, "12": 12, "16": 16, "18": 18}
_AU = {"g": 0, "pg": 8, "m": 15, "ma15+": 15, "r18+": 18, "x18+": 18}
_CA = {
    # Film (Canadian Home Video Rating System)
    "g": 0,
    "pg": 8,
    "14a": 14,
    "18a": 18,
    "r": 18,
    # Television
    "c": 0,
    "c8": 8,
    "14+": 14,
    "18+": 18,
}
_NL = {"al": 0, "6": 6, "9": 9, "12": 12, "14": 14, "16": 16, "18": 18}
_ES = {"a": 0, "apta": 0, "tp": 0, "7": 7, "12": 12, "16": 16, "18": 18, "x": 18}
_IT = {"t": 0, "6+": 6, "vm14": 14, "14+": 14, "vm18": 18, "18+": 18}
_JP = {"g": 0, "pg12": 12, "r15+": 15, "r18+": 18}
_KR = {"all": 0, "12": 12, "15": 15, "18": 18}
_BR = {"l": 0, "10": 10, "12": 12, "14": 14, "16": 16, "18": 18}
_SE = {"btl": 0, "7": 7, "11": 11, "15": 15}
_NO = {"a": 0, "6": 6, "9": 9, "12": 12, "15": 15, "18": 18}
_DK = {"a": 0, "7": 7, "11": 11, "15": 15}

RATING_SYSTEMS: Mapping[str, Mapping[str, int]] = MappingProxyType(
    {
        country: MappingProxyType(table)
        for country, table in {
            "us": _US,
            "gb": _GB,
            "de": _DE,
            "fr": _FR,
            "au": _AU,
            "ca": _CA,
            "nl": _NL,
            "es": _ES,
            "it": _IT,
            "jp": _JP,
            "kr": _KR,
            "br": _BR,
            "se": _SE,
            "no": _NO,
            "dk": _DK,
        }.items()
    }
)
"""Country code (ISO 3166-1 alpha-2, lower case) -> normalised code -> age."""

BARE_LABEL_ORDER: tuple[str, ...] = tuple(RATING_SYSTEMS)
"""Which country wins for a label without a prefix (``PG`` is the US PG)."""

COUNTRY_ALIASES: Mapping[str, str] = MappingProxyType({"uk": "gb"})

UNRATED: frozenset[str] = frozenset({"nr", "unrated", "notrated", "none"})
"""Normalised labels that mean "no rating": they give ``None``, like unknowns."""

MAX_PLAIN_AGE = 21
"""A bare number up to this is read as an age; larger ones are not ratings."""

_COUNTRY_PREFIX = re.compile(r"^([a-z]{2})\s*[:/]\s*(.+)$")
_RATED_PREFIX = re.compile(r"^rated\b[\s:]*")
_FSK_PREFIX = re.compile(r"^fsk(?:ab)?")
_PLAIN_AGE = re.compile(r"^\+?(\d{1,2})\+?$")
_IGNORED_CHARS = re.compile(r"[\s_\-]+")


def rating_age(label: str) -> int | None:
    """The minimum age a rating label admits, or ``None``.

    ``None`` means unrated or unrecognised. Never raises for any string.
    """
    return _age(label.strip().casefold())


def rating_level(label: str) -> int | None:
    """An orderable level for sorting and bounding by ``officialRating``.

    The level is the age (:func:`rating_age`); ``None`` for unrated or
    unrecognised labels, which the reference sorts lowest and excludes from
    ``minOfficialRating``/``maxOfficialRating`` filters.
    """
    return rating_age(label)


@lru_cache(maxsize=4096)
def _age(label: str) -> int | None:
    country, code = _split(label)
    if code in UNRATED:
        return None
    if country is not None:
        found = RATING_SYSTEMS[country].get(code)
        return found if found is not None else _plain_age(code)
    for name in BARE_LABEL_ORDER:
        found = RATING_SYSTEMS[name].get(code)
        if found is not None:
            return found
    return _plain_age(code)


def _split(label: str) -> tuple[str | None, str]:
    """(known country or None, normalised code) of a case-folded label."""
    label = _RATED_PREFIX.sub("", label)
    country: str | None = None
    prefixed = _COUNTRY_PREFIX.match(label)
    if prefixed:
        named = COUNTRY_ALIASES.get(prefixed.group(1), prefixed.group(1))
        country = named if named in RATING_SYSTEMS else None
        label = _RATED_PREFIX.sub("", prefixed.group(2))
    code = _IGNORED_CHARS.sub("", label)
    without_fsk = _FSK_PREFIX.sub("", code)
    if without_fsk != code and country in (None, "de"):
        return "de", without_fsk
    return country, code


def _plain_age(code: str) -> int | None:
    match = _PLAIN_AGE.match(code)
    if match is None:
        return None
    age = int(match.group(1))
    return age if age <= MAX_PLAIN_AGE else None
