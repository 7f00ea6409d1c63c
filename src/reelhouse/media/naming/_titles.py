"""Titles and years of movies and series, and sort names.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over ``str``; the folder parsers are memoised because a library
repeats the same series and season folder names thousands of times.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from reelhouse.media.naming._3d import strip_3d
from reelhouse.media.naming._episodes import find_strong_marker
from reelhouse.media.naming._prefixes import strip_prefixes
from reelhouse.media.naming._seasons import split_season
from reelhouse.media.naming._text import (
    first_junk,
    is_date_word,
    is_release_style,
    is_year,
    join_dates,
    split_brackets,
    strip_release_group,
    trim,
    words,
)

FOLDER_CACHE_SIZE = 8192

# The last "(YYYY)" wins: `2001 A Space Odyssey (1968)`, `Dune (1984) (1984)`.
_LAST_PAREN_YEAR_RE = re.compile(r".*\((\d{4})\)", re.DOTALL)
_DOT_YEAR_RE = re.compile(r"(?<=[^\W\d_])\.((?:18|19|20|21)\d\d)(?:\.(?=\S)|(?![0-9]))")
_PAREN_GROUP_RE = re.compile(r"\(([^()]*)\)")
# `Movie (2010 BD 1080p)`: a year opening a group of release words is the year.
_OPEN_YEAR_RE = re.compile(r"\((\d{4})[ ._]+(?=[^()\s])")
_COMPLETE_RE = re.compile(r"(?<![ -])[ -]++(?:the )?complete(?: series| collection)?$", re.IGNORECASE)
# A pack of several seasons: `Show S01-S03`, `Show.S01-S05.Complete`,
# `Show Staffel 1-3 German DL`, `Show Complete Series 1-5`, `Show Seasons 1 to 4`.
# A run of separators is read once, from its start and without giving any
# back (`(?<!...)` and `++`; what follows never starts with one): tried from
# each of its characters, a long run (`Name.------.......`) cost a
# millisecond, the slowest step of the slowest names.
_SEASON_RANGE_RE = re.compile(
    r"(?<![ ._-])[ ._-]++(?:(?:the[ ._])?complete[ ._](?:series|seasons?)[ ._]*\d{1,2}"
    r"|s\d{1,2}[ ._]?-[ ._]?s?\d{1,2}"
    r"|(?:seasons?|series|staffeln?|saisons?|temporadas?|stagion[ei])[ ._]*\d{1,2}[ ._]*(?:-|to|a|bis|à)[ ._]*\d{1,2})"
    r"(?![0-9]).*$",
    re.IGNORECASE | re.DOTALL,
)
# An edition written before a release's year (`Movie.Edition.Collector.2011`,
# `Movie.Directors.Cut.2011`): two words, so that a title's `Extended` or
# `Final Cut` stays (`The.Extended.Family.2014`, `The.Final.Cut.2004`).
_EDITION_FIRST = frozenset(
    {"director's", "directors", "extended", "special", "ultimate", "collector's", "collectors", "limited",
     "anniversary", "unrated", "uncut", "edition"}
)
_EDITION_LAST = frozenset({"cut", "edition", "collector", "limitee", "limitée"})
_ARTICLES = frozenset({"the", "a", "an"})
_LEADING_ARTICLE_RE = re.compile(r"(?:the|an|a)\s+(?=\S)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class MovieName:
    """A movie's parsed name: ``title`` without year, brackets or release junk.

    ``tags`` are the contents of ``[...]`` / ``{...}`` groups and of
    parenthesised groups after the year, in order (``1080p``,
    ``tmdbid-603``, ``Extended``).
    """

    title: str
    year: int | None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SeriesName:
    """A series folder's parsed name."""

    title: str
    year: int | None


def parse_movie(stem_or_folder_name: str) -> MovieName:
    """Parse a movie file stem or movie folder name.

    ``Arrival (2016)`` -> ``Arrival``, 2016;
    ``Blade.Runner.2049.2017.1080p.BluRay.x264-GRP`` -> ``Blade Runner 2049``, 2017;
    ``[Tag] Title (2010) [1080p]`` -> ``Title``, 2010, tags ``Tag``, ``1080p``.
    The last parenthesised (or bracketed) year wins; without one, the last
    bare year before the release junk that is not the first word (so
    ``1917`` alone is a title and ``1917 2019`` is 1917 of 2019). Never
    raises; a name that is nothing but junk keeps its text as the title.
    """
    title, year, tags = _parse_title(stem_or_folder_name, bare_years=True)
    return MovieName(title, year, tags)


@functools.lru_cache(maxsize=FOLDER_CACHE_SIZE)
def parse_series_folder(name: str) -> SeriesName:
    """Parse a series folder name: ``Doctor Who (2005)`` -> ``Doctor Who``, 2005.

    Unlike movies, a bare year in a spaced name is part of the title
    (``Space 1999``, ``Berlin Station 2016`` stay whole): series folders are
    named by hand, and only bracketed years or release-style names
    (``Doctor.Who.2005``) carry a year. A season or episode marker and what
    follows it are dropped (``The.Show.S01.720p``, ``Stargate SG-1 Season
    1``, ``The Show s02e10 720p``), and so are a range of seasons
    (``Show S01-S03``, ``Show Staffel 1-3``) and a trailing ``Complete Series``.
    """
    cut = _SEASON_RANGE_RE.search(name)  # memoised: each folder name is read once
    if cut is not None and trim(name[: cut.start()]):
        # `Show.S01-S05.Complete.1080p` -> `Show`; `Show - Staffel 1-3 (2010)` keeps its year
        bracketed = _LAST_PAREN_YEAR_RE.match(name, cut.start())
        kept = bracketed.group(1) if bracketed is not None and is_year(bracketed.group(1), explicit=True) else None
        name = name[: cut.start()] + (f" ({kept})" if kept is not None else "")
    season = split_season(name)
    if season is not None and trim(season[0]):
        name = season[0]  # `The.Show.S01.720p` -> `The.Show`
    elif (episode := _episode_prefix(name)) is not None:
        name = episode  # `The Show s02e10 720p hdtv` -> `The Show`
    title, year, _ = _parse_title(name, bare_years=False)
    return SeriesName(_COMPLETE_RE.sub("", title) or title, year)


def sort_name(title: str) -> str:
    """``title`` without a leading ``The``, ``A`` or ``An`` (any case).

    Case is kept: the caller compares case-insensitively. A title that is
    only an article (``The``) is returned unchanged.
    """
    stripped = title.lstrip()
    match = _LEADING_ARTICLE_RE.match(stripped)
    if match is None:
        return stripped
    return stripped[match.end() :]


def _parse_title(name: str, *, bare_years: bool) -> tuple[str, int | None, tuple[str, ...]]:
    name = strip_prefixes(name)
    text, tags = split_brackets(name)
    text = strip_3d(text)  # `Movie.3D.HSBS`: the 3D format is the version's
    match = _LAST_PAREN_YEAR_RE.match(text)
    if (match is None or not is_year(match.group(1), explicit=True)) and "(" in text:
        text = _OPEN_YEAR_RE.sub(_close_year, text)  # `Movie (2010 BD 1080p)` -> `Movie (2010) (BD 1080p)`
        match = _LAST_PAREN_YEAR_RE.match(text)
    if match is not None and is_year(match.group(1), explicit=True):
        before = text[: match.start(1) - 1]
        after_tags = tuple(g.strip() for g in _PAREN_GROUP_RE.findall(text[match.end() :]) if g.strip())
        title = _clean_title(before) or trim(text) or name.strip()
        return title, int(match.group(1)), tags + after_tags
    release = is_release_style(text)
    if not release and "." in text:
        text = _DOT_YEAR_RE.sub(r" \1 ", text)  # `Copper Sky.2010.1080p`: a spaced name, a dotted year
    tokens = words(join_dates(text) if release else text, release)
    cut = first_junk(tokens, release)
    if bare_years or release:
        index = _bare_year_index(tokens, cut)
        if index is not None:
            year = int(tokens[index][:4])
            return strip_release_group(trim(" ".join(_first_title(tokens[:index], release)))), year, tags
    title = trim(" ".join(_first_title(tokens[:cut], release))) or trim(" ".join(tokens)) or name.strip()
    return strip_release_group(title), None, tags


def _first_title(tokens: list[str], release: bool) -> list[str]:
    """The title's words: a release's second title after ``AKA`` goes
    (``Copper.Sky.AKA.Amber.Road.2011``), then an edition ending it."""
    if release and len(tokens) > 2 and ("AKA" in tokens or "aka" in tokens or "Aka" in tokens):
        for index in range(1, len(tokens) - 1):
            if tokens[index].casefold() == "aka":
                tokens = tokens[:index]
                break
    return _without_edition(tokens) if len(tokens) > 2 else tokens


def _without_edition(tokens: list[str]) -> list[str]:
    """``tokens`` without an edition ending them (``Edition Collector``,
    ``Directors Cut``), when a title other than an article is left."""
    if len(tokens) < 3 or tokens[-1].casefold() not in _EDITION_LAST or tokens[-2].casefold() not in _EDITION_FIRST:
        return tokens
    rest = tokens[:-2]
    return rest if any(token.casefold() not in _ARTICLES for token in rest) else tokens


def _close_year(match: re.Match[str]) -> str:
    year = match.group(1)
    return f"({year}) (" if is_year(year, explicit=True) else match.group(0)


def _episode_prefix(name: str) -> str | None:
    """The text before a strong episode marker (``S01E02``, ``1x02``), if any."""
    found = find_strong_marker(name)
    if found is None or not trim(name[:found]):
        return None
    return name[:found]


def _clean_title(before_year: str) -> str:
    """The text before a parenthesised year, separators turned to spaces."""
    release = is_release_style(before_year)
    if not release:
        return trim(" ".join(before_year.split()))
    return trim(" ".join(words(before_year, release)))


def _bare_year_index(tokens: list[str], cut: int) -> int | None:
    """Index of the last bare year in ``tokens[1:cut]`` (``2010-GRP`` counts)."""
    for index in range(min(cut, len(tokens)) - 1, 0, -1):
        token = tokens[index]
        if len(token) > 4 and is_date_word(token):
            continue  # `My Movie 2013-12-09` has a date, not a year
        head = token.partition("-")[0] if len(token) > 4 else token
        if is_year(head, explicit=False):
            return index
    return None
