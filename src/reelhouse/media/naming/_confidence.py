"""How sure a parse is: a confidence from 0 to 1 on every classified file.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure.

The score starts from what named the item and drops for each thing the
name left to guess. Below ``LOW_CONFIDENCE`` (0.5) a work is a guess: the
scrape queue marks it for the identify step rather than match it to
whatever the provider's search returns first.

Movies: a year (in brackets, a release name or the movie's folder) 0.95;
no year 0.6, 0.7 in the movie's own folder; a title of digits alone and no
year (``1917``) at most 0.4; named only by the release folder above an
obfuscated file 0.1 less; an obfuscated name with nothing above it 0.1.

Episodes, by what numbered them: ``S01E02``, ``1x02``, ``Season 1 Episode
2`` 0.95; a date 0.9; ``E12`` 0.85; an absolute number 0.8; a leading
number 0.75; a bare number after the series 0.7; a three- or four-digit
code 0.6 (0.85 when a season folder agrees); no number 0.2. Read from the
release folder above an obfuscated file: 0.1 less. A series known only
from the file name: 0.1 less; no series at all: at most 0.3.

Series (works, for the identify step): named by their folder 0.9, by an
obfuscated folder 0.2, by the library root itself 0.4.

Extras: by their folder (``extras/``, ``backdrops/``, ``theme-music/``)
0.95, by a suffix (``-trailer``) 0.9, by a bare ``trailer`` name 0.85.
"""

from __future__ import annotations

from reelhouse.media.naming._episodes import STRONG_MARKERS, EpisodeMarker
from reelhouse.media.naming._text import is_obfuscated
from reelhouse.media.naming._titles import MovieName, SeriesName

_MARKER_SCORES: dict[EpisodeMarker, float] = {
    EpisodeMarker.SEASON_EPISODE: 0.95,
    EpisodeMarker.CROSS: 0.95,
    EpisodeMarker.WORDS: 0.95,
    EpisodeMarker.DATE: 0.9,
    EpisodeMarker.EPISODE: 0.85,
    EpisodeMarker.ABSOLUTE: 0.8,
    EpisodeMarker.LEADING: 0.75,
    EpisodeMarker.BARE: 0.7,
    EpisodeMarker.CODE: 0.6,
}
NO_MARKER = 0.2
# Extras: by their folder (`extras/`, `backdrops/`), by a suffix (`-trailer`),
# by a bare `trailer` name.
BY_FOLDER = 0.95
BY_SUFFIX = 0.9
BY_NAME = 0.85
CODE_IN_ITS_SEASON = 0.85
FROM_FOLDER_ABOVE = 0.1
SERIES_FROM_NAME = 0.1
NO_SERIES = 0.3
ROOT_AS_SERIES = 0.4


def movie_confidence(name: MovieName, in_own_folder: bool, obfuscated: bool) -> float:
    """The confidence of a movie's name (see the module's rules)."""
    if obfuscated and not in_own_folder:
        return 0.1
    if name.year is not None:
        score = 0.95
    elif in_own_folder:
        score = 0.7
    else:
        score = 0.6
    if name.year is None and name.title.replace(" ", "").isdigit():
        score = min(score, 0.4)
    if obfuscated:
        score -= FROM_FOLDER_ABOVE
    return round(score, 2)


def episode_confidence(
    marker: EpisodeMarker | None, in_season_folder: bool, series: SeriesName | None, series_named_by_file: bool,
    from_folder_above: bool,
) -> float:
    """The confidence of an episode's numbers and series (see the module's rules)."""
    if marker is None:
        score = NO_MARKER
    elif marker is EpisodeMarker.CODE and in_season_folder:
        score = CODE_IN_ITS_SEASON
    else:
        score = _MARKER_SCORES[marker]
    if from_folder_above and marker in STRONG_MARKERS:
        score -= FROM_FOLDER_ABOVE
    if series is None:
        score = min(score, NO_SERIES)
    elif series_named_by_file:
        score -= SERIES_FROM_NAME
    return round(score, 2)


def series_folder_confidence(rel_folder: str) -> float:
    """The confidence of a series named by its folder (relative to the
    library root): 0.9; an obfuscated folder name 0.2; the library root
    itself (``""``: episodes in season folders at the root, the series
    named after the root folder) 0.4."""
    if not rel_folder:
        return ROOT_AS_SERIES
    return 0.2 if is_obfuscated(rel_folder.rpartition("/")[2]) else 0.9
