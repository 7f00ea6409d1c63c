"""What :func:`classify` says a file is: the result types.

Private to ``reelhouse.media.naming`` (which re-exports them).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from reelhouse.media.naming._episodes import EpisodeMarker
from reelhouse.media.naming._files import ExtraType
from reelhouse.media.naming._groups import StackPart
from reelhouse.media.naming._titles import MovieName, SeriesName

# A parse less sure than this is a guess: the scrape queue leaves such a
# work to the identify step (``needsIdentify``) instead of matching it.
LOW_CONFIDENCE = 0.5


class LibraryKind(StrEnum):
    """The reference's LibraryKind."""

    MOVIES = "movies"
    TVSHOWS = "tvshows"
    MIXED = "mixed"


class FileKind(StrEnum):
    """What :func:`classify` found a file to be."""

    MOVIE = "movie"
    EPISODE = "episode"
    EXTRA = "extra"
    SKIPPED = "skipped"


class SkipReason(StrEnum):
    """Why a file under a library root is not indexed."""

    NOT_VIDEO = "not_video"  # no video container extension, not .strm
    SAMPLE = "sample"  # the built-in sample rule
    HIDDEN = "hidden"  # a dot-file or inside a dot-folder (``._x.mkv``, ``.Trash``)
    DISC_STRUCTURE = "disc_structure"  # inside VIDEO_TS / BDMV: part of a disc
    THEME = "theme"  # inside backdrops / theme-music: theme media, not items


@dataclass(frozen=True, slots=True)
class MovieFile:
    """A main movie feature.

    ``folder`` is the movie's own folder when the file sits in one (the
    folder name carries a year, or the stem is the folder name with or
    without a version label, or both parse to the same title), else None;
    ``name`` comes from that folder (from the stem when only the titles
    matched, as the stem may add the year), else from the stem.
    ``version_label`` is the label after the folder name (``1080p`` in
    ``Movie (2010)/Movie (2010) - 1080p.mkv``; ``""`` for the plain name;
    a stack marker is not a label); None outside a movie folder.
    ``stack`` is the file's multi-part marker, to confirm with group_stacks.
    ``offline`` marks a ``.disc`` stub: a disc on a shelf, nothing to play.
    ``format3d`` is the version's 3D format (``HSBS``, ``FSBS``, ``HTAB``,
    ``FTAB``, ``MVC``, or ``3D`` when the layout is not named), else None.
    ``confidence`` (0 to 1) says how sure the name is (``_confidence``);
    below :data:`LOW_CONFIDENCE` the guess is left to the identify step.
    """

    kind: ClassVar[FileKind] = FileKind.MOVIE
    path: str
    strm: bool
    folder: str | None
    name: MovieName
    version_label: str | None
    stack: StackPart | None
    offline: bool = False
    format3d: str | None = None
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class EpisodeFile:
    """An episode. Folders are paths relative to the library root.

    ``season`` is the name's season, else the season folder's, else None
    (an episode directly under the series folder without a season in its
    name). ``episode`` is the name's episode number, else its absolute
    number. ``series`` comes from the series folder, else from the name's
    series hint, else is None. ``title`` is the text after the episode
    marker (no marker: the cleaned stem). ``offline``, ``format3d`` and
    ``confidence`` as for :class:`MovieFile`. ``stack`` is a numbered part
    marker right after the episode's number or version label
    (``S01E01 - 1080p part1``, ``S01E01-cd2``), to confirm with
    ``group_episode_stacks``; a title's ``Part 2`` is not one, nor is a letter.
    """

    kind: ClassVar[FileKind] = FileKind.EPISODE
    path: str
    strm: bool
    series_folder: str | None
    series: SeriesName | None
    season_folder: str | None
    season: int | None
    episode: int | None
    episode_end: int | None
    absolute: int | None
    air_date: datetime.date | None
    title: str | None
    marker: EpisodeMarker | None
    offline: bool = False
    format3d: str | None = None
    stack: StackPart | None = None
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class ExtraFile:
    """A bonus video of the item whose folder is ``owner_folder``.

    ``owner_folder`` is None at the library root. ``owner_stem`` is the
    stem before an extra suffix (``Movie (2010)`` for
    ``Movie (2010)-trailer.mkv``), which names the owner in a flat folder;
    None for extras found by folder or by a bare ``trailer`` name.
    ``confidence`` as for :class:`MovieFile`.
    """

    kind: ClassVar[FileKind] = FileKind.EXTRA
    path: str
    strm: bool
    extra_type: ExtraType
    owner_folder: str | None
    owner_stem: str | None
    title: str
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file the scanner does not index, and why."""

    kind: ClassVar[FileKind] = FileKind.SKIPPED
    path: str
    reason: SkipReason


Classified = MovieFile | EpisodeFile | ExtraFile | SkippedFile
# Skips that may be theme media after all (`theme.mp3`, `backdrops/x.mp4`).
