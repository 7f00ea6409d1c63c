"""One entry point for the scanner: what a file under a library root is.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure:
paths are strings relative to the library root, nothing is read from disk.
Decisions that need a file's siblings (stacks, versions, whether a folder
holds one movie or many) are left to ``group_stacks`` / ``group_versions``
and the scanner; :func:`classify` gives the per-file facts they need.
"""

from __future__ import annotations

import datetime
import functools
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import PurePosixPath
from typing import ClassVar

from reelhouse.media.naming._3d import format_3d, may_be_3d, without_3d_label
from reelhouse.media.naming._episodes import (
    STRONG_MARKERS,
    EpisodeMarker,
    EpisodeName,
    parse_episode,
    parse_trailing_number,
)
from reelhouse.media.naming._files import (
    DISC_FOLDERS,
    DISC_STUB_EXTENSION,
    SAMPLE_FOLDERS,
    STRM_EXTENSION,
    THEME_FOLDERS,
    ExtraType,
    extension,
    extra_suffix,
    extra_type_of,
    extras_folder_type,
    is_bare_trailer,
    is_sample_stem,
    is_theme_audio,
    is_video,
    theme_type,
)
from reelhouse.media.naming._groups import StackPart, split_version, stack_part
from reelhouse.media.naming._seasons import parse_season_folder, season_series_prefix
from reelhouse.media.naming._text import is_release_style, split_brackets, strip_extension, tidy
from reelhouse.media.naming._titles import MovieName, SeriesName, parse_movie, parse_series_folder

MOVIE_FOLDER_CACHE_SIZE = 4096


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


@dataclass(frozen=True, slots=True)
class EpisodeFile:
    """An episode. Folders are paths relative to the library root.

    ``season`` is the name's season, else the season folder's, else None
    (an episode directly under the series folder without a season in its
    name). ``episode`` is the name's episode number, else its absolute
    number. ``series`` comes from the series folder, else from the name's
    series hint, else is None. ``title`` is the text after the episode
    marker (no marker: the cleaned stem). ``offline`` and ``format3d`` as
    for :class:`MovieFile`.
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


@dataclass(frozen=True, slots=True)
class ExtraFile:
    """A bonus video of the item whose folder is ``owner_folder``.

    ``owner_folder`` is None at the library root. ``owner_stem`` is the
    stem before an extra suffix (``Movie (2010)`` for
    ``Movie (2010)-trailer.mkv``), which names the owner in a flat folder;
    None for extras found by folder or by a bare ``trailer`` name.
    """

    kind: ClassVar[FileKind] = FileKind.EXTRA
    path: str
    strm: bool
    extra_type: ExtraType
    owner_folder: str | None
    owner_stem: str | None
    title: str


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file the scanner does not index, and why."""

    kind: ClassVar[FileKind] = FileKind.SKIPPED
    path: str
    reason: SkipReason


Classified = MovieFile | EpisodeFile | ExtraFile | SkippedFile
# Skips that may be theme media after all (`theme.mp3`, `backdrops/x.mp4`).
_THEME_CANDIDATES = frozenset({SkipReason.NOT_VIDEO, SkipReason.THEME})

_KINDS: dict[str, LibraryKind] = {kind.value: kind for kind in LibraryKind}
_FOLDER_SKIPS: dict[str, SkipReason] = {
    **{folder: SkipReason.SAMPLE for folder in SAMPLE_FOLDERS},
    **{folder: SkipReason.DISC_STRUCTURE for folder in DISC_FOLDERS},
    **{folder: SkipReason.THEME for folder in THEME_FOLDERS},
}


def classify(rel_path: PurePosixPath | str, kind: LibraryKind | str) -> Classified:
    """Classify a file by its path relative to the library root.

    ``kind`` is ``movies``, ``tvshows`` or ``mixed``; anything else raises
    ValueError. Order: not a video / hidden / sample / disc structure /
    theme media are skipped; then extras (an extras folder below an item
    folder, an extra suffix, a bare ``trailer`` in a folder); then movies
    or episodes by library kind. In a mixed library a file is an episode
    when it is in a season folder or its name has a strong marker
    (``S01E02``, ``1x02``, ``Season 1 Episode 2``, a date); else a movie.
    """
    library = _KINDS.get(kind)
    if library is None:
        raise ValueError(f"unknown library kind {kind!r}")
    path = str(rel_path)
    parts = path.split("/")
    name = parts[-1]
    folders = parts[:-1]
    skipped = _skip_reason(name, parts)
    if skipped is not None:
        if skipped in _THEME_CANDIDATES and (skipped is SkipReason.THEME or is_theme_audio(name)):
            return _theme(path, parts, skipped)
        return SkippedFile(path, skipped)
    ext = extension(name)
    strm = ext == STRM_EXTENSION
    stem = strip_extension(name)
    extra = _extra(path, parts, stem, strm)
    if extra is not None:
        return extra
    if library is LibraryKind.MOVIES:
        found: Classified = _movie(path, folders, stem, strm)
    elif library is LibraryKind.TVSHOWS:
        found = _episode(path, folders, stem, strm, parse_episode(stem))
    else:
        found = _mixed(path, folders, stem, strm)
    if isinstance(found, (MovieFile, EpisodeFile)):
        return _version_facts(found, stem, ext == DISC_STUB_EXTENSION)
    return found


def _version_facts(found: MovieFile | EpisodeFile, stem: str, offline: bool) -> MovieFile | EpisodeFile:
    """A ``.disc`` stub is offline; a 3D marker outside the title is the version's format."""
    if not may_be_3d(stem):
        return replace(found, offline=True) if offline else found
    if isinstance(found, MovieFile):
        title = found.name.title
    else:
        if found.title and (cut := without_3d_label(found.title)) is not None:
            found = replace(found, title=cut or None)  # `Pilot - 3D`: a label, not the title's
        title = " ".join(t for t in (found.series.title if found.series else None, found.title) if t)
    format3d = format_3d(stem, title)
    if offline or format3d is not None:
        return replace(found, offline=offline, format3d=format3d)
    return found


def _theme(path: str, parts: list[str], skipped: SkipReason) -> ExtraFile | SkippedFile:
    """Theme media of the item whose folder holds it (``theme.mp3``,
    ``backdrops/x.mp4``); else skipped as ``skipped`` says."""
    found = theme_type(parts)
    if found is None:
        return SkippedFile(path, skipped)
    extra_type, owner_index = found
    owner = "/".join(parts[: owner_index + 1])
    return ExtraFile(path, False, extra_type, owner, None, _readable(strip_extension(parts[-1])))


def _skip_reason(name: str, parts: list[str]) -> SkipReason | None:
    """Why the file is skipped: hidden, then sample, then disc or theme folder."""
    if not is_video(name):
        return SkipReason.NOT_VIDEO
    if name.startswith("."):
        return SkipReason.HIDDEN
    folder_reason: SkipReason | None = None
    for folder in parts[:-1]:
        if folder.startswith("."):
            return SkipReason.HIDDEN
        reason = _FOLDER_SKIPS.get(folder.casefold())
        if reason is not None and (folder_reason is None or reason is SkipReason.SAMPLE):
            folder_reason = reason
    if is_sample_stem(strip_extension(name)):
        return SkipReason.SAMPLE
    return folder_reason


def _extra(path: str, parts: list[str], stem: str, strm: bool) -> ExtraFile | None:
    folders = parts[:-1]
    # An extras folder at the library root is a collection, not an extra.
    for index in range(1, len(folders)):
        if extras_folder_type(folders[index]) is not None:
            extra_type = extra_type_of(parts[index:]) or ExtraType.OTHER
            return ExtraFile(path, strm, extra_type, "/".join(folders[:index]), None, _readable(stem))
    owner = "/".join(folders) or None
    suffix = extra_suffix(stem)
    # `Show.S01E05.The.Trailer` and `Show - S01E05 - Interview` are episode
    # titles, not extras.
    if suffix is not None and (suffix.separator == "-" or parse_episode(stem) is None):
        return ExtraFile(path, strm, suffix.extra_type, owner, suffix.base, _readable(stem))
    if folders and is_bare_trailer(stem):
        return ExtraFile(path, strm, ExtraType.TRAILER, owner, None, _readable(stem))
    return None


def _readable(stem: str) -> str:
    """A display title from a stem that has no marker to cut it at."""
    return tidy(stem, is_release_style(split_brackets(stem)[0])) or stem


def _movie(path: str, folders: list[str], stem: str, strm: bool) -> MovieFile:
    stack = stack_part(stem)
    if folders:
        parent = folders[-1]
        folder_name = _parse_movie_folder(parent)
        label = _version_label(stem, stack, parent)
        if folder_name.year is not None or label is not None:
            return MovieFile(path, strm, "/".join(folders), folder_name, label, stack)
        name = parse_movie(stem)
        if name.title.casefold() == folder_name.title.casefold():
            return MovieFile(path, strm, "/".join(folders), name, None, stack)
        return MovieFile(path, strm, None, name, None, stack)
    return MovieFile(path, strm, None, parse_movie(stem), None, stack)


def _version_label(stem: str, stack: StackPart | None, folder: str) -> str | None:
    """The version label within ``folder``; a stack marker is not a label."""
    if stack is not None:
        label = split_version(stack.base, folder)
        if label is not None:
            return label
    return split_version(stem, folder)


def _episode(
    path: str, folders: list[str], stem: str, strm: bool, parsed: EpisodeName | None
) -> EpisodeFile:
    season_folder, series_folder, folder_season = _episode_folders(folders)
    series = _series(series_folder, season_folder, parsed)
    if parsed is not None and parsed.marker is EpisodeMarker.LEADING:
        parsed = _leading_in_context(parsed, stem, series, season_folder is not None)
    if parsed is None and series_folder is not None:
        parsed = parse_trailing_number(stem)  # `The Simpsons 12` in `The Simpsons/`
    if parsed is None:
        title = _readable(stem)
        return EpisodeFile(
            path, strm, series_folder, series, season_folder, folder_season,
            None, None, None, None, title, None,
        )
    season = parsed.season if parsed.season is not None else folder_season
    episode = parsed.episode if parsed.episode is not None else parsed.absolute
    return EpisodeFile(
        path, strm, series_folder, series, season_folder, season,
        episode, parsed.episode_end, parsed.absolute, parsed.air_date, parsed.title, parsed.marker,
    )


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
    for the series.
    """
    for depth in (1, 2):
        if len(folders) < depth:
            break
        season = parse_season_folder(folders[-depth])
        if season is not None:
            series_folder = "/".join(folders[:-depth]) or None
            if series_folder is not None and not _same_series(series_folder, folders[-depth]):
                series_folder = None  # `TV/The.Show.S01.720p/`: named by the season folder
            return "/".join(folders[: len(folders) - depth + 1]), series_folder, season
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
        return parse_series_folder(parsed.series_hint)
    return None


@functools.lru_cache(maxsize=MOVIE_FOLDER_CACHE_SIZE)
def _parse_movie_folder(name: str) -> MovieName:
    # A movie folder is parsed once for each of its videos and extras.
    return parse_movie(name)


def _mixed(path: str, folders: list[str], stem: str, strm: bool) -> Classified:
    parsed = parse_episode(stem)
    # A folder named like a season after a title (`The Last Season 2 (2020)`)
    # may be a movie's: it makes its files episodes only when they are numbered.
    in_season = (
        bool(folders)
        and parse_season_folder(folders[-1]) is not None
        and (parsed is not None or not season_series_prefix(folders[-1]))
    )
    if in_season or (parsed is not None and parsed.marker in STRONG_MARKERS):
        return _episode(path, folders, stem, strm, parsed)
    return _movie(path, folders, stem, strm)
