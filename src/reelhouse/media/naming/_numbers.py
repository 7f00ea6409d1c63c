"""Bare episode numbers and season codes after a series name.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over ``str``. Read only where the library or the folders say the
file is an episode (a number after a title is otherwise a movie's:
``Apollo.13.1995``):

* ``Show.Name.05.Title.720p``, ``Show Name 05 Title``: episode 5;
* ``Show_Name_001``, ``[Group] Show Name 13 [1080p]``: absolute 1, 13
  (underscored and spaced names are anime's);
* ``show.name.117.hdtv``: season 1 episode 17; ``show.name.2401``: season
  24 episode 1 (a dotted release's code, see :func:`split_code`);
* ``Show.Name.05-06``: episodes 5 to 6.

An absolute number (anime) becomes a season and episode once the
provider's episode count per season is known (:func:`season_of_absolute`).

The number is the first one after at least one word and before the
release junk; a year before it is the series' (``Show.2005.05``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reelhouse.media.naming._episodes import (
    MAX_EPISODES_IN_ONE_FILE,
    EpisodeMarker,
    EpisodeName,
    split_code,
)
from reelhouse.media.naming._text import first_junk, is_release_style, is_year, split_brackets, strip_3d, trim, words

_NUMBER_RE = re.compile(r"#?(\d{1,4})(?:v\d{1,2})?(?:-(\d{1,4})(?:v\d{1,2})?)?")


def parse_bare_number(stem: str) -> EpisodeName | None:
    """The bare number or code after the series name in ``stem``, or None."""
    text = strip_3d(split_brackets(stem)[0])
    release = is_release_style(text)
    tokens = words(text, release)
    cut = first_junk(tokens, release)
    year: int | None = None
    for index in range(1, cut):
        match = _NUMBER_RE.fullmatch(tokens[index])
        if match is None:
            continue
        digits = match.group(1)
        if is_year(digits, explicit=False) and match.group(2) is None:
            year = int(digits)  # `Show.2005.05`: the series' year
            continue
        hint = trim(" ".join(tokens[:index])) or None
        title = trim(" ".join(tokens[index + 1 : cut])) or None
        if year is not None and (index < 2 or tokens[index - 1] != str(year)):
            year = None  # only a year right before the number is the series'
        return _name(digits, match.group(2), release and "." in text, hint, title, year)
    return None


def _name(
    digits: str, last: str | None, dotted: bool, hint: str | None, title: str | None, year: int | None
) -> EpisodeName | None:
    number = int(digits)
    end = int(last) if last is not None else None
    if end is not None and not number < end <= number + MAX_EPISODES_IN_ONE_FILE:
        return None
    code = split_code(digits) if dotted and end is None else None
    if code is not None:
        return EpisodeName(EpisodeMarker.CODE, season=code[0], episode=code[1],
                           series_hint=hint, title=title, series_year=year)  # fmt: skip
    if dotted:
        return EpisodeName(EpisodeMarker.BARE, episode=number, episode_end=end,
                           series_hint=hint, title=title, series_year=year)  # fmt: skip
    return EpisodeName(EpisodeMarker.ABSOLUTE, absolute=number, episode_end=end,
                       series_hint=hint, title=title, series_year=year)  # fmt: skip


def season_of_absolute(absolute: int, season_sizes: Mapping[int, int]) -> tuple[int, int] | None:
    """(season, episode) of an absolute episode number, given each season's
    episode count from the provider (``{1: 12, 2: 13}``: absolute 14 is
    season 2 episode 2). Specials (season 0) are not counted; None when the
    number lies beyond the episodes the provider knows, or is not positive."""
    if absolute < 1:
        return None
    remaining = absolute
    for season in sorted(number for number in season_sizes if number > 0):
        size = season_sizes[season]
        if remaining <= size:
            return season, remaining
        remaining -= max(size, 0)
    return None
