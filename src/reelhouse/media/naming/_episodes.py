"""Episode markers in file stems, and season folders.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over ``str``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from reelhouse.media.naming._3d import may_be_3d
from reelhouse.media.naming._dates import find_date, short_date
from reelhouse.media.naming._seasons import SEASON_WORDS
from reelhouse.media.naming._text import is_release_style, is_year, split_brackets, tidy, trim

MAX_EPISODES_IN_ONE_FILE = 20
# `117` is season 1 episode 17, but `150` is episode 150: seasons this long are rare.
MAX_CODE_EPISODE = 39

_SEASON_WORDS = "|".join(re.escape(word) for word in sorted(SEASON_WORDS, key=len, reverse=True))
# "Episode" in the languages of the libraries we meet; `ep` last (prefix).
_EPISODE_WORDS = (
    r"episode|[ée]pisode|episodio|epis[oó]dio|folge|afsnit|aflevering|avsnitt|jakso|odcinek"
    r"|epizod[ae]?|серия|эпизод|b[öo]l[üu]m|cap[ií]tulo|puntata|ep"
)

# `v2` after the number is a re-release of the same episode (anime).
# `S01x02`, `S01xE02` too; the `x` must follow the season directly
# (`Show.S01.x264` is a season pack in x264, not episode 264).
_SEASON_EPISODE_RE = re.compile(
    r"(?<![a-z0-9])s(\d{1,4})(?:[ ._-]{0,3}e(?:p\.?[ ]?)?|x[ ._]?e?)(\d{1,4})(?!\d)(?:v\d(?![0-9a-z]))?",
    re.IGNORECASE,
)
# Further episodes after S01E01: E02, -E02, -02, - E02, -S01E02, - S01E02.
# A number may be followed directly only by the next link of its chain.
# `+02`, `&E02`, `.and.S14E01` join two episodes too (`and` only before
# an `E` or `SxxE`: `S01E05 and 6 Friends` is a title).
_SEASON_EPISODE_MORE_RE = re.compile(
    r"(?:[ ._]?-?[ ._]?e|[ ._]*-[ ._]*s\d{1,4}e|-|[ ._]*[+&][ ._]*(?:s\d{1,4})?e?"
    r"|[ ._]+and[ ._]+(?:s\d{1,4})?e)(\d{1,4})(?![0-9a-df-z])",
    re.IGNORECASE,
)
# `1x02`, and year-numbered seasons `2009x03` (from 1930: `1920x1080` is a
# resolution; `2048x858` a cinema frame).
_CROSS_RE = re.compile(
    r"(?<![a-z0-9])(\d{1,2}|(?!2048)(?:19[3-9]\d|20\d\d))x(\d{1,3})(?![0-9a-wyz])", re.IGNORECASE
)
# Chains: `-03`, `-1x03`, `-E03`, `x03`, and spaced ` - 02x04` / ` - x04` /
# ` - E04` (a spaced bare number is a title: `1x05 - 2 Broke Girls`).
_CROSS_MORE_RE = re.compile(
    r"(?:-(?:\d{1,4}x)?e?|_?x|[ ._]+-[ ._]+(?:\d{1,4}x|e|x))(\d{1,3})(?![0-9a-wyz])", re.IGNORECASE
)
_WORDS_RE = re.compile(
    rf"(?<![a-z])(?:{_SEASON_WORDS})[ ._-]*(\d{{1,4}})[ ._,-]*(?:{_EPISODE_WORDS})[ ._-]*(\d{{1,4}})(?!\d)",
    re.IGNORECASE,
)
_EPISODE_ONLY_RE = re.compile(
    rf"(?<![a-z0-9])(?:e|(?:{_EPISODE_WORDS})[ ._-]{{0,2}})(\d{{1,4}})(?![0-9a-z])", re.IGNORECASE
)
# Ranges of whole seasons in one release (Korean packs): `E01-E16`, `E01-16`.
_EPISODE_ONLY_MORE_RE = re.compile(r"-e?(\d{1,4})(?![0-9a-z])", re.IGNORECASE)
# Chinese and Japanese `第12话` / `第12話` / `第12集` / `第12回`, Korean `12화`.
_CJK_EPISODE_RE = re.compile(r"第\s*(\d{1,4})\s*[话話集回]|(?<!\d)(\d{1,4})\s*화")
# Miniseries `Part 2`, `Pt.II` (weaker than every number above).
_PART_RE = re.compile(r"(?<![a-z0-9])(?:part|pt)[ ._-]?(\d{1,3}|[ivx]{1,5})(?![a-z0-9])", re.IGNORECASE)
_ROMAN = {"i": 1, "v": 5, "x": 10}
# Korean broadcast releases: `Show.E368.170917.720p` (episode, then YYMMDD).
_BROADCAST_DATE_RE = re.compile(r"[ ._-](\d{6})(?![0-9a-z])", re.IGNORECASE)
# Anime `[Group] Show [21][1080p]`: a bracketed number is the episode.
_BRACKET_NUMBER_RE = re.compile(r"\[#?(\d{1,4})(?:v\d{1,2})?\]")
# A number ending the name: `The Simpsons 12`, `One Piece 1001` (read only
# in a series folder, where it cannot be `Apollo 13`).
_TRAILING_RE = re.compile(r"(?P<hint>.*?\S)[ ._]+#?(?P<number>\d{1,4})")
# Anime-style `Show - 012`, `[Group]_Show_-_012v2_[1080p]`.
# A range `Show - 003-004` is two episodes in one file.
_ABSOLUTE_RE = re.compile(
    r"(?<=[\s_])-[\s_]+#?(\d{1,4})(?:v\d{1,2})?(?:-(\d{1,4})(?:v\d{1,2})?)?(?=$|[\s_\[(])"
)
# A season right before an anime's dash number: `[Group] Show S2 - 05`,
# `Show Season 2 - 05`, `Show 2nd Season - 05` (the season's episode 5).
_ANIME_SEASON_RE = re.compile(
    r"(?<![^\s._])(?:s(\d{1,2})|season[\s._]*(\d{1,2})|(\d{1,2})(?:st|nd|rd|th)[\s._]+season)[\s._]*$",
    re.IGNORECASE,
)
# How far before the dash number a season may start (`Season 12 `).
_ANIME_SEASON_SPAN = 16
# `01 - Pilot`, and a leading pair `02-03 - Title` (a range in a season
# folder, season 2 episode 3 elsewhere: the caller decides).
_LEADING_RE = re.compile(r"(\d{1,3})(?:-(\d{1,3}))?(?=$|[ ._]|-(?!\d))")



class EpisodeMarker(StrEnum):
    """Which convention numbered an episode. The first four are *strong*."""

    SEASON_EPISODE = "season_episode"  # S01E02, s1e2, S01E02-E03
    CROSS = "cross"  # 1x02
    WORDS = "words"  # Season 1 Episode 2
    DATE = "date"  # 2021-03-04, 2021.03.04
    EPISODE = "episode"  # E12, Ep 12, Episode 12 (no season); Show S2 - 05 (an anime's season)
    ABSOLUTE = "absolute"  # Show - 012
    LEADING = "leading"  # 01 - Pilot
    BARE = "bare"  # Show.Name.05.Title (a number after the series, in a series library)
    CODE = "code"  # show.name.117 (season 1 episode 17), Show [401]


STRONG_MARKERS = frozenset(
    {EpisodeMarker.SEASON_EPISODE, EpisodeMarker.CROSS, EpisodeMarker.WORDS, EpisodeMarker.DATE}
)


@dataclass(frozen=True, slots=True)
class EpisodeName:
    """What an episode file's stem says about the episode.

    ``series_hint`` is the cleaned text before the marker, ``title`` the
    cleaned text after it (``Dark - S01E01 - Secrets`` -> ``Dark``,
    ``Secrets``); either is None when empty. ``episode_end`` is set only
    for a multi-episode file and is greater than ``episode``.
    """

    marker: EpisodeMarker
    season: int | None = None
    episode: int | None = None
    episode_end: int | None = None
    air_date: datetime.date | None = None
    absolute: int | None = None
    series_hint: str | None = None
    title: str | None = None
    series_year: int | None = None  # a release's year after the series: ``Show.2005.S04E06``


class _Hit(NamedTuple):
    """Where a marker was found and what it says (internal, cheap to build)."""

    marker: EpisodeMarker
    start: int
    end: int
    season: int | None = None
    episode: int | None = None
    episode_end: int | None = None
    air_date: datetime.date | None = None
    absolute: int | None = None


def parse_episode(stem: str) -> EpisodeName | None:
    """Find the episode marker in ``stem``; None if it has none.

    Markers are tried strongest first: ``S01E02`` (with multi-episode
    ``-E03`` / ``E03`` / ``-03``), ``1x02``, ``Season 1 Episode 2``,
    ``YYYY-MM-DD`` (any of ``-._ `` between the parts), ``E12`` /
    ``Episode 12``, ``Show - 012`` (absolute), then a leading number
    (``01 - Pilot``). A bare three-digit number is never split into season
    and episode (``Show - 102`` is absolute 102, not S01E02).
    """
    for finder in _FINDERS:
        hit = finder(stem)
        if hit is not None:
            return _name_from_hit(stem, hit)
    return None


def find_strong_marker(text: str) -> int | None:
    """Where an ``S01E02`` or ``1x02`` marker starts in ``text``, or None."""
    for finder in (_find_season_episode, _find_cross):
        hit = finder(text)
        if hit is not None:
            return hit.start
    return None


def _name_from_hit(stem: str, hit: _Hit) -> EpisodeName:
    release = is_release_style(split_brackets(stem)[0])
    three_d = may_be_3d(stem)
    hint = tidy(stem[: hit.start], release, three_d=three_d)
    return EpisodeName(
        marker=hit.marker,
        season=hit.season,
        episode=hit.episode,
        episode_end=hit.episode_end,
        air_date=hit.air_date,
        absolute=hit.absolute,
        series_hint=hint or None,
        title=_title(tidy(stem[hit.end :], release, three_d=three_d), release),
        series_year=_series_year(hint, release),
    )


def _title(title: str, release: bool) -> str | None:
    """The text after the marker; a release's lone year there is no title
    (``Show.S01E05.2019.1080p``)."""
    if release and is_year(title, explicit=False):
        return None
    return title or None


def _series_year(hint: str, release: bool) -> int | None:
    """2005 for the hint ``Show 2005`` of ``Show.2005.S04E06``: the series
    "Show" of 2005; a spaced ``Space 1999 - S01E02`` keeps its number
    (hand-named)."""
    if not release or not hint[-4:].isdigit():
        return None
    head, _, last = hint.rpartition(" ")
    return int(last) if head and is_year(last, explicit=False) else None


def _more_episodes(stem: str, pattern: re.Pattern[str], pos: int, first: int) -> tuple[int | None, int]:
    """Follow a multi-episode chain from ``pos``: (last episode or None, end)."""
    last, end = first, pos
    while (more := pattern.match(stem, end)) is not None:
        number = int(more.group(1))
        if not last < number <= first + MAX_EPISODES_IN_ONE_FILE:
            break
        last, end = number, more.end()
    return (last if last != first else None), end


def _find_season_episode(stem: str) -> _Hit | None:
    match = _SEASON_EPISODE_RE.search(stem)
    if match is None:
        return None
    episode = int(match.group(2))
    episode_end, end = _more_episodes(stem, _SEASON_EPISODE_MORE_RE, match.end(), episode)
    return _Hit(
        EpisodeMarker.SEASON_EPISODE, match.start(), end,
        season=int(match.group(1)), episode=episode, episode_end=episode_end,
    )


def _find_cross(stem: str) -> _Hit | None:
    match = _CROSS_RE.search(stem)
    if match is None:
        return None
    episode = int(match.group(2))
    episode_end, end = _more_episodes(stem, _CROSS_MORE_RE, match.end(), episode)
    return _Hit(
        EpisodeMarker.CROSS, match.start(), end,
        season=int(match.group(1)), episode=episode, episode_end=episode_end,
    )


def _find_words(stem: str) -> _Hit | None:
    match = _WORDS_RE.search(stem)
    if match is None:
        return None
    return _Hit(
        EpisodeMarker.WORDS, match.start(), match.end(),
        season=int(match.group(1)), episode=int(match.group(2)),
    )


def _find_date(stem: str) -> _Hit | None:
    hit = find_date(stem)
    if hit is None:
        return None
    return _Hit(EpisodeMarker.DATE, hit.start, hit.end, air_date=hit.date)


def _find_episode_only(stem: str) -> _Hit | None:
    match = _EPISODE_ONLY_RE.search(stem)
    if match is None:
        return None
    episode = int(match.group(1))
    episode_end, end = _more_episodes(stem, _EPISODE_ONLY_MORE_RE, match.end(), episode)
    air_date = None
    broadcast = _BROADCAST_DATE_RE.match(stem, end)
    if broadcast is not None:
        air_date = short_date(broadcast.group(1))
        end = broadcast.end() if air_date is not None else end
    return _Hit(
        EpisodeMarker.EPISODE, match.start(), end, episode=episode, episode_end=episode_end, air_date=air_date
    )


def _find_absolute(stem: str) -> _Hit | None:
    for match in _ABSOLUTE_RE.finditer(stem):
        if is_year(match.group(1), explicit=False):
            continue
        first = int(match.group(1))
        end = int(match.group(2)) if match.group(2) else None
        if end is not None and not first < end <= first + MAX_EPISODES_IN_ONE_FILE:
            continue
        season = _ANIME_SEASON_RE.search(stem, max(0, match.start() - _ANIME_SEASON_SPAN), match.start())
        if season is not None:  # `Show S2 - 05`: episode 5 of season 2
            number = int(next(group for group in season.groups() if group is not None))
            return _Hit(EpisodeMarker.EPISODE, season.start(), match.end(), season=number, episode=first,
                        episode_end=end)  # fmt: skip
        return _Hit(EpisodeMarker.ABSOLUTE, match.start(), match.end(), absolute=first, episode_end=end)
    return None


def _find_cjk_episode(stem: str) -> _Hit | None:
    if stem.isascii():
        return None
    match = _CJK_EPISODE_RE.search(stem)
    if match is None:
        return None
    number = int(match.group(1) or match.group(2))
    return _Hit(EpisodeMarker.EPISODE, match.start(), match.end(), episode=number)


def _find_part(stem: str) -> _Hit | None:
    match = _PART_RE.search(stem)
    if match is None:
        return None
    text = match.group(1).lower()
    number = int(text) if text.isdigit() else _roman(text)
    if not number:
        return None
    return _Hit(EpisodeMarker.EPISODE, match.start(), match.end(), episode=number)


def _roman(text: str) -> int:
    """``ii`` -> 2, ``iv`` -> 4, ``xii`` -> 12 (0 for nonsense like ``vx``)."""
    total = 0
    for index, char in enumerate(text):
        value = _ROMAN[char]
        following = _ROMAN[text[index + 1]] if index + 1 < len(text) else 0
        total += -value if value < following else value
    return total if total > 0 else 0


def _find_bracket_number(stem: str) -> _Hit | None:
    if "[" not in stem:
        return None
    for match in _BRACKET_NUMBER_RE.finditer(stem):
        if match.start() == 0 or is_year(match.group(1), explicit=True):
            continue  # `[2010]` is a year; a leading bracket is the group
        number = match.group(1)
        code = split_code(number) if not stem.startswith("[") else None
        if code is not None:  # `Show [401]`: no group in front, so not anime
            return _Hit(EpisodeMarker.CODE, match.start(), match.end(), season=code[0], episode=code[1])
        return _Hit(EpisodeMarker.ABSOLUTE, match.start(), match.end(), absolute=int(number))
    return None


def split_code(digits: str) -> tuple[int, int] | None:
    """``117`` -> (1, 17), ``2401`` -> (24, 1): a season-and-episode code.

    Three or four ASCII digits, no leading zero (``001`` is episode 1), an
    episode part from 1 to 39 (``100`` and ``199`` are episode numbers), and
    never a plausible year.
    """
    if len(digits) not in (3, 4) or digits[0] == "0" or not digits.isascii() or not digits.isdigit():
        return None
    if is_year(digits, explicit=False):
        return None
    season, episode = int(digits[:-2]), int(digits[-2:])
    return (season, episode) if 1 <= episode <= MAX_CODE_EPISODE else None


def _find_leading(stem: str) -> _Hit | None:
    match = _LEADING_RE.match(stem)
    if match is None:
        return None
    first = int(match.group(1))
    if match.group(2) is None:
        return _Hit(EpisodeMarker.LEADING, 0, match.end(), episode=first)
    second = int(match.group(2))
    if first < second <= first + MAX_EPISODES_IN_ONE_FILE:
        return _Hit(EpisodeMarker.LEADING, 0, match.end(), episode=first, episode_end=second)
    return _Hit(EpisodeMarker.LEADING, 0, match.end(), season=first, episode=second)


def parse_trailing_number(stem: str) -> EpisodeName | None:
    """A number that ends the cleaned name: ``The Simpsons 12``, ``One Piece 1001``.

    For files in a series folder with no other marker (the folder says the
    file is an episode, so the number cannot be a movie's ``Apollo 13``).
    The number is absolute; a plausible year (``Show 2016``) is not read.
    """
    cleaned = tidy(stem, is_release_style(split_brackets(stem)[0]))
    match = _TRAILING_RE.fullmatch(cleaned)
    if match is None or is_year(match.group("number"), explicit=False):
        return None
    return EpisodeName(
        marker=EpisodeMarker.ABSOLUTE,
        absolute=int(match.group("number")),
        series_hint=trim(match.group("hint")) or None,
    )


_FINDERS: tuple[Callable[[str], _Hit | None], ...] = (
    _find_season_episode,
    _find_cross,
    _find_words,
    _find_date,
    _find_episode_only,
    _find_cjk_episode,
    _find_absolute,
    _find_bracket_number,
    _find_part,
    _find_leading,
)
