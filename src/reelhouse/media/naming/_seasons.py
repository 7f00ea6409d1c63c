"""Season folders, in the languages and shapes people name them.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over ``str``; :func:`parse_season_folder` is memoised because a
library repeats the same season folder names thousands of times.

A season folder names one season and nothing else, optionally after the
series name and before release junk:

* ``Season 1``, ``S01``, ``Staffel 2``, ``Sezon 3``, ``Kausi 4``,
  ``Сезон 5``, ``시즌 6``, ``シーズン7`` (the word first);
* ``1. évad``, ``2 сезон`` (the number first, as Hungarian and Russian
  write it); ``第1季`` / ``第一季`` (Chinese);
* ``Stargate SG-1 Season 1``, ``Show.S04.PDTV.x264-GRP`` (series prefix,
  release tail).

After the number only a bracketed group (``Season 1 (2010)``), `` - ``
and anything (``Season 1 - Blu-ray``) or release words (``1080p``,
``Complete``, ``German``) may follow: ``Series 7 The Contenders`` is a
series. ``Specials`` is season 0; a bare number is not a season.
"""

from __future__ import annotations

import functools
import re

from reelhouse.media.naming._text import is_junk, words

SEASON_CACHE_SIZE = 4096
SPECIALS_FOLDERS = frozenset({"specials", "special"})

# "Season" in the languages of the libraries we meet, word first.
SEASON_WORDS = (
    "season", "series", "staffel", "saison", "temporada", "stagione", "seizoen",
    "sezon", "sezona", "sezóna", "sezonul", "sezonas", "säsong", "sasong", "sæson",
    "saeson", "sesong", "kausi", "évad", "evad", "сезон", "сезона", "シーズン", "시즌", "temp", "temp.",
)

# Words written after the number: `1. évad`, `2 сезон`, `3 sezon`.
NUMBER_FIRST_WORDS = ("évad", "evad", "сезон", "sezon", "kausi", "시즌", "staffel")
# Release words that may follow a season besides junk (`S01.Complete.German`).
TAIL_WORDS = frozenset(
    {
        "complete", "full", "pack", "boxset", "integrale", "intégrale", "completa",
        "german", "french", "truefrench", "vostfr", "vff", "vf", "ita", "eng",
        "english", "spanish", "castellano", "latino", "nordic", "dl", "dual",
        "multi", "web", "dvd", "bd", "sub", "subs", "dub",
        # a season on several discs or in parts: `Season 2 Disc 1`, `Season 5 Part 2`
        "disc", "disk", "cd", "part", "pt", "vol", "volume", "+",
    }
)
_CJK_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _alternatives(names: tuple[str, ...]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


_SEASON_RE = re.compile(
    r"(?<![a-z0-9\u00c0-\u024f\u0400-\u04ff])(?:"
    rf"(?:{_alternatives(SEASON_WORDS)})[ ._-]*(?P<word>\d{{1,4}})"
    r"|(?P<ordinal>\d{1,2})(?:st|nd|rd|th)[ ._-]*season"
    r"|s(?P<short>\d{1,4})"
    rf"|(?P<first>\d{{1,4}})\.?[ ._-]*(?:{_alternatives(NUMBER_FIRST_WORDS)})"
    r"|第\s*(?P<cjk>\d{1,4}|[一二三四五六七八九十]{1,3})\s*[季期部]"
    r")(?P<tail>.*)",
    re.IGNORECASE | re.DOTALL,
)
_TAIL_FREE_RE = re.compile(r"\s*(?:[\[({].*|-\s.*|[ ._-]*)", re.DOTALL)


@functools.lru_cache(maxsize=SEASON_CACHE_SIZE)
def parse_season_folder(name: str) -> int | None:
    """The season number a folder name stands for, or None.

    ``Season 1``, ``Season 01``, ``S1``, ``S01``, ``Series 2``, ``Staffel 2``,
    ``Saison 3``, ``Temporada 4``, ``Сезон 5``, ``1. évad``, ``第1季``,
    ``Show Season 2``, ``Show.S04.720p.x264-GRP`` (a year-like number is a
    season too: ``Season 2021``); ``Specials``, ``Season 0`` and ``Season
    00`` are 0. ``Season of the Witch`` and ``Series 7 The Contenders`` are
    not seasons, nor is a bare number (``1``).
    """
    stripped = name.strip()
    if stripped.casefold() in SPECIALS_FOLDERS:
        return 0
    found = split_season(stripped)
    return found[1] if found is not None else None


def split_season(name: str) -> tuple[str, int] | None:
    """(the text before the season, the season) of a season folder name.

    ``Stargate SG-1 Season 1`` -> (``Stargate SG-1 ``, 1);
    ``Season 2`` -> (``""``, 2); None when ``name`` names no season.
    """
    for match in _SEASON_RE.finditer(name):
        if _tail_is_free(match.group("tail")):
            return name[: match.start()], _number(match)
    return None


@functools.lru_cache(maxsize=SEASON_CACHE_SIZE)
def season_series_prefix(name: str) -> str:
    """The series name before the season in a season folder name, or ``""``.

    ``Stargate SG-1 Season 1`` -> ``Stargate SG-1``; ``Season 1`` -> ``""``.
    """
    found = split_season(name.strip())
    return found[0].strip(" ._-[(") if found is not None else ""


def _number(match: re.Match[str]) -> int:
    for group in ("word", "short", "first", "ordinal"):
        if match.group(group) is not None:
            return int(match.group(group))

    return _cjk_number(match.group("cjk"))


def _cjk_number(text: str) -> int:
    """``12``, ``一`` (1), ``十`` (10), ``十二`` (12), ``二十`` (20), ``二十一`` (21)."""
    if text.isdigit():
        return int(text)
    tens, _, ones = text.partition("十")
    if "十" not in text:
        return _CJK_DIGITS[text[0]]
    return (_CJK_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CJK_DIGITS.get(ones, 0) if ones else 0)


def _tail_is_free(tail: str) -> bool:
    """Nothing but brackets, `` - anything``, separators or release words follows."""
    if _TAIL_FREE_RE.fullmatch(tail) is not None:
        return True
    if tail[0] not in " ._-":
        return False  # `S1m0ne`, `Season 1x`
    tokens = words(tail, release=True)
    return bool(tokens) and (is_junk(tokens[0]) or tokens[0].casefold() in TAIL_WORDS)
