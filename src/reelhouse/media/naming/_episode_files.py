"""An episode file read with its folders: season, series and the number.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure:
paths are strings relative to the library root.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from reelhouse.media.naming._confidence import episode_confidence
from reelhouse.media.naming._episodes import (
    STRONG_MARKERS,
    EpisodeMarker,
    EpisodeName,
    parse_episode,
    parse_trailing_number,
)
from reelhouse.media.naming._numbers import parse_bare_number
from reelhouse.media.naming._results import EpisodeFile
from reelhouse.media.naming._seasons import parse_season_folder, season_series_prefix
from reelhouse.media.naming._text import is_junk, is_obfuscated, is_release_style, readable, split_brackets
from reelhouse.media.naming._titles import SeriesName, parse_series_folder
from reelhouse.media.naming._versions import episode_stack, title_before_part

FOLDER_CACHE_SIZE = 4096
# `Show/2/`, `Show/02/`, `Show/2009/`: a season numbered by its folder alone.
_BARE_SEASON_RE = re.compile(r"\d{1,4}")


def episode_file(
    path: str, folders: list[str], stem: str, strm: bool, parsed: EpisodeName | None
) -> EpisodeFile:
    """An episode file read with its folders (``classify`` for a series library)."""
    season_folder, series_folder, folder_season = _episode_folders(folders)
    above = folder_episode(folders[-1]) if folders else None
    from_above = False
    if above is not None:
        if season_folder is None:
            series_folder = _above_release(folders)
        if (parsed is None or parsed.marker not in STRONG_MARKERS) and (parsed is None or is_obfuscated(stem)):
            parsed, from_above = above, True  # `Show.S12E02.720p-GRP/161219_06.mkv`
    series = _series(series_folder, season_folder, parsed)
    if parsed is not None and parsed.marker is EpisodeMarker.LEADING:
        parsed = _leading_in_context(parsed, stem, series, season_folder is not None)
    if parsed is None:
        parsed = _bare_in_context(stem, folder_season, series_folder is not None)
        if parsed is not None and series is None:
            series = _series(None, season_folder, parsed)  # `Show.Name.05` names its series
    if parsed is None and series_folder is not None:
        parsed = parse_trailing_number(stem)  # `The Simpsons 12` in `The Simpsons/`
    confidence = episode_confidence(
        parsed.marker if parsed is not None else None, season_folder is not None, series,
        series_folder is None and season_folder is None, from_above,
    )
    if parsed is None:
        return EpisodeFile(
            path, strm, series_folder, series, season_folder, folder_season,
            None, None, None, None, readable(stem), None, confidence=confidence,
        )
    season = parsed.season if parsed.season is not None else folder_season
    episode = parsed.episode if parsed.episode is not None else parsed.absolute
    stack = None if from_above else episode_stack(stem, parsed)
    # `S01E01-cd1`: the marker is no title; `S01E01 - Pilot - part1` is titled `Pilot`
    title = parsed.title if stack is None else title_before_part(parsed.title) or None
    return EpisodeFile(
        path, strm, series_folder, series, season_folder, season,
        episode, parsed.episode_end, parsed.absolute, parsed.air_date, title, parsed.marker,
        stack=stack, confidence=confidence,
    )


@functools.lru_cache(maxsize=FOLDER_CACHE_SIZE)
def folder_episode(name: str) -> EpisodeName | None:
    """The episode a release folder names (``Show.S12E02.720p-GRP``): a
    strong marker for one episode, in a folder that is no season folder."""
    parsed = parse_episode(name)
    if parsed is None or parsed.marker not in STRONG_MARKERS or parsed.episode_end is not None:
        return None
    return parsed if parse_season_folder(name) is None else None


def _above_release(folders: list[str]) -> str | None:
    """The series folder above an episode's release folder: the folder
    above it when that names the same series (``Show/Show.S01E02-GRP/``),
    else None (``TV/Show.S01E02-GRP/``: the series is the release's)."""
    if len(folders) < 2:
        return None
    above = "/".join(folders[:-1])
    ours = parse_series_folder(folders[-2]).title.casefold()
    theirs = parse_series_folder(folders[-1]).title.casefold()
    return above if ours and theirs and (ours.startswith(theirs) or theirs.startswith(ours)) else None


def _bare_in_context(stem: str, folder_season: int | None, in_series: bool) -> EpisodeName | None:
    """A bare number or code after the series name (``Show.Name.05``,
    ``show.name.117``). Outside a series folder only in release names:
    dotted or underscored, or led by a ``[Group]`` (``[Group] Show 13
    [1080p]``); a hand-named ``Apollo 13`` at the root is a title. In a
    season folder a code must agree with it: ``Season 2/show.name.117`` is
    episode 117, not season 1."""
    if not in_series and not _led_by_group(stem) and not is_release_style(split_brackets(stem)[0]):
        return None
    parsed = parse_bare_number(stem)
    if parsed is None or parsed.marker is not EpisodeMarker.CODE or folder_season is None:
        return parsed
    if parsed.season == folder_season or parsed.season is None or parsed.episode is None:
        return parsed
    return replace(parsed, marker=EpisodeMarker.BARE, season=None, episode=parsed.season * 100 + parsed.episode)


def _led_by_group(stem: str) -> bool:
    """``[Group] Show 13``: a release group in front (not ``[1080p] Show``)."""
    close = stem.find("]")
    if not stem.startswith("[") or close < 0:
        return False
    group = stem[1:close].strip()
    return bool(group) and not is_junk(group)


def _leading_in_context(
    parsed: EpisodeName, stem: str, series: SeriesName | None, in_season_folder: bool
) -> EpisodeName | None:
    """A leading number read with its folders.

    ``30 Rock - Pilot`` in ``30 Rock/``: the number is the series', not an
    episode. A leading pair ``4-12`` is a range of episodes in a season
    folder, but season 4 episode 12 directly in a series folder.
    """
    if _starts_with_series(stem, series):
        return None
    if parsed.episode_end is not None and not in_season_folder:
        return replace(parsed, season=parsed.episode, episode=parsed.episode_end, episode_end=None)
    return parsed


def _starts_with_series(stem: str, series: SeriesName | None) -> bool:
    return series is not None and bool(series.title) and stem.casefold().startswith(series.title.casefold())


def _episode_folders(folders: list[str]) -> tuple[str | None, str | None, int | None]:
    """(season folder, series folder, folder's season) of an episode.

    The season folder is the parent, or the grandparent when the parent is
    not one (``Show/Season 1/Disc 2/``): a season folder is never taken
    for the series. A bare number folder under a series folder is a
    season too (``Show/2/``).
    """
    for depth in (1, 2):
        if len(folders) < depth:
            break
        name = folders[-depth]
        season = parse_season_folder(name)
        if season is not None:
            series_folder = "/".join(folders[:-depth]) or None
            if series_folder is not None and not _same_series(series_folder, name):
                series_folder = None  # `TV/The.Show.S01.720p/`: named by the season folder
            return "/".join(folders[: len(folders) - depth + 1]), series_folder, season
    if len(folders) > 1 and _BARE_SEASON_RE.fullmatch(folders[-1]) is not None:
        # `Show/2/`: a number under a series is its season (not in `Season 1/2/`, a disc)
        return "/".join(folders), "/".join(folders[:-1]), int(folders[-1])
    return None, "/".join(folders) or None, None


def _same_series(series_folder: str, season_name: str) -> bool:
    """Whether the season folder belongs to the folder above it.

    Yes unless it is a release-style season pack (``The.Show.S01.720p``)
    whose series differs from that folder's name (``TV/``): a hand-named
    ``Agents of SHIELD Season 1`` under ``Marvel's Agents of S.H.I.E.L.D``
    still belongs to its folder.
    """
    prefix = season_series_prefix(season_name)
    if not prefix or not is_release_style(season_name):
        return True
    ours = parse_series_folder(series_folder.rpartition("/")[2]).title.casefold()
    theirs = parse_series_folder(season_name).title.casefold()
    return ours.startswith(theirs) or theirs.startswith(ours)


def _series(series_folder: str | None, season_folder: str | None, parsed: EpisodeName | None) -> SeriesName | None:
    """The series folder's name; else a season folder's series prefix
    (``The.Show.S01.720p``); else the name's series hint, unless that is
    only a season (``Season 10``)."""
    if series_folder is not None:
        return parse_series_folder(series_folder.rpartition("/")[2])
    if season_folder is not None:
        season_name = season_folder.rpartition("/")[2]
        if season_series_prefix(season_name):
            return parse_series_folder(season_name)
    if parsed is not None and parsed.series_hint and parse_season_folder(parsed.series_hint) is None:
        if parsed.series_year is not None:  # `Show 2005` of `Show.2005.S04E06`
            return SeriesName(parse_series_folder(parsed.series_hint[:-5]).title, parsed.series_year)
        return parse_series_folder(parsed.series_hint)
    return None
