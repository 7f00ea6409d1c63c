"""One entry point for the scanner: what a file under a library root is.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure:
paths are strings relative to the library root, nothing is read from disk.
Decisions that need a file's siblings (stacks, versions, whether a folder
holds one movie or many) are left to ``group_stacks`` / ``group_versions``
and the scanner; :func:`classify` gives the per-file facts they need.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import PurePosixPath

from reelhouse.media.naming._3d import format_3d, may_be_3d, without_3d_label
from reelhouse.media.naming._confidence import BY_FOLDER, BY_NAME, BY_SUFFIX, movie_confidence
from reelhouse.media.naming._episode_files import episode_file, folder_episode
from reelhouse.media.naming._episodes import (
    STRONG_MARKERS,
    parse_episode,
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
from reelhouse.media.naming._prefixes import strip_prefixes
from reelhouse.media.naming._results import (
    Classified,
    EpisodeFile,
    ExtraFile,
    LibraryKind,
    MovieFile,
    SkippedFile,
    SkipReason,
)
from reelhouse.media.naming._seasons import parse_season_folder, season_series_prefix
from reelhouse.media.naming._text import is_junk, is_obfuscated, is_release_style, readable, strip_extension
from reelhouse.media.naming._titles import MovieName, parse_movie, parse_series_folder

MOVIE_FOLDER_CACHE_SIZE = 4096


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
    stem = strip_prefixes(strip_extension(name))
    extra = _extra(path, parts, stem, strm)
    if extra is not None:
        return extra
    if library is LibraryKind.MOVIES:
        found: Classified = _movie(path, folders, stem, strm)
    elif library is LibraryKind.TVSHOWS:
        found = episode_file(path, folders, stem, strm, parse_episode(stem))
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
    return ExtraFile(path, False, extra_type, owner, None, readable(strip_extension(parts[-1])), BY_FOLDER)


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
            return ExtraFile(path, strm, extra_type, "/".join(folders[:index]), None, readable(stem), BY_FOLDER)
    owner = "/".join(folders) or None
    suffix = extra_suffix(stem)
    # `Show.S01E05.The.Trailer` and `Show - S01E05 - Interview` are episode
    # titles, not extras.
    if suffix is not None and (suffix.separator == "-" or parse_episode(stem) is None):
        return ExtraFile(path, strm, suffix.extra_type, owner, suffix.base, readable(stem), BY_SUFFIX)
    if folders and is_bare_trailer(stem):
        return ExtraFile(path, strm, ExtraType.TRAILER, owner, None, readable(stem), BY_NAME)
    return None


def _movie(path: str, folders: list[str], stem: str, strm: bool) -> MovieFile:
    obfuscated = is_obfuscated(stem)
    folder, name, label, stack = _movie_name(folders, stem, obfuscated)
    confidence = movie_confidence(name, folder is not None, obfuscated)
    return MovieFile(path, strm, folder, name, label, stack, confidence=confidence)


def _movie_name(
    folders: list[str], stem: str, obfuscated: bool
) -> tuple[str | None, MovieName, str | None, StackPart | None]:
    """(the movie's own folder, its name, version label, stack marker)."""
    stack = stack_part(stem)
    if folders:
        parent = folders[-1]
        folder_name = _parse_movie_folder(parent)
        label = _version_label(stem, stack, parent)
        if folder_name.year is not None or label is not None:
            return "/".join(folders), folder_name, label, stack
        if obfuscated and is_release_style(parent):  # `Movie.Title.1080p-GRP/abc123xyz.mkv`
            return "/".join(folders), folder_name, None, stack
        name = parse_movie(stem)
        if name.title.casefold() == folder_name.title.casefold():
            return "/".join(folders), name, None, stack
        return None, name, None, stack
    return None, parse_movie(stem), None, stack


def _version_label(stem: str, stack: StackPart | None, folder: str) -> str | None:
    """The version label within ``folder``; a stack marker is not a label."""
    if stack is not None:
        label = split_version(stack.base, folder)
        if label is not None:
            return label
    return split_version(stem, folder)


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
        return episode_file(path, folders, stem, strm, parsed)
    if folders and is_obfuscated(stem) and folder_episode(folders[-1]) is not None:
        return episode_file(path, folders, stem, strm, parsed)  # `Show.S01E02-GRP/161219_06.mkv`
    return _movie(path, folders, stem, strm)


def clear_caches() -> None:
    """Forget every memo of the naming rules (folder names, junk words): a
    benchmark or a test starts cold, like a fresh scan."""
    for cached in (parse_series_folder, parse_season_folder, season_series_prefix, _parse_movie_folder,
                   extras_folder_type, is_junk, folder_episode):
        cached.cache_clear()
