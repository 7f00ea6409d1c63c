"""Which files are videos, samples and extras.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over names and path strings; nothing touches the file system.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath

from reelhouse.media.naming._text import strip_extension

STRM_EXTENSION = ".strm"
FOLDER_CACHE_SIZE = 8192
VIDEO_EXTENSIONS: frozenset[str] = frozenset(
    {
        ".3g2", ".3gp", ".amv", ".asf", ".avi", ".bivx", ".divx", ".dv", ".dvr-ms",
        ".evo", ".f4v", ".flv", ".img", ".iso", ".m1v", ".m2t", ".m2ts", ".m2v",
        ".m4v", ".mk3d", ".mkv", ".mod", ".mov", ".mp4", ".mpe", ".mpeg", ".mpg",
        ".mpv", ".mts", ".mxf", ".nrg", ".nsv", ".nuv", ".ogm", ".ogv", ".pva",
        ".qt", ".rec", ".rm", ".rmvb", ".svq3", ".tod", ".tp", ".trp", ".ts",
        ".ty", ".viv", ".vob", ".vp3", ".vro", ".webm", ".wmv", ".wtv", ".xvid",
        ".y4m",
    }
)
# A stub for a disc kept on a shelf: an item with nothing to play.
DISC_STUB_EXTENSION = ".disc"
_VIDEO_OR_STRM = VIDEO_EXTENSIONS | {STRM_EXTENSION, DISC_STUB_EXTENSION}
SAMPLE_FOLDERS = frozenset({"sample", "samples"})
# Folders of disc structures: their files are pieces of one disc, not items.
DISC_FOLDERS = frozenset({"video_ts", "bdmv", "audio_ts", "hvdvd_ts"})
# Theme media of the item whose folder holds these folders (or `theme.mp3`).
THEME_VIDEO_FOLDERS = frozenset({"backdrops", "theme-videos", "theme videos", "themevideos"})
THEME_SONG_FOLDERS = frozenset({"theme-music", "theme music", "thememusic", "theme-songs"})
THEME_FOLDERS = THEME_VIDEO_FOLDERS | THEME_SONG_FOLDERS
THEME_AUDIO_EXTENSIONS = frozenset(
    {".mp3", ".flac", ".m4a", ".ogg", ".oga", ".opus", ".wav", ".aac", ".mka"}
)
_THEME_STEM_RE = re.compile(r"theme(?:[ ._-]?\d{1,2})?", re.IGNORECASE)


class ExtraType(StrEnum):
    """The reference's ExtraType. Members compare equal to their strings."""

    TRAILER = "Trailer"
    BEHIND_THE_SCENES = "BehindTheScenes"
    DELETED_SCENE = "DeletedScene"
    FEATURETTE = "Featurette"
    INTERVIEW = "Interview"
    SCENE = "Scene"
    SHORT = "Short"
    CLIP = "Clip"
    OTHER = "Other"
    ADDITIONAL_PART = "AdditionalPart"
    # Theme media (not listed in the reference's ExtraType; Jellyfin's names).
    THEME_SONG = "ThemeSong"
    THEME_VIDEO = "ThemeVideo"


_SUFFIX_TYPES: dict[str, ExtraType] = {
    "trailer": ExtraType.TRAILER,
    "behindthescenes": ExtraType.BEHIND_THE_SCENES,
    "deleted": ExtraType.DELETED_SCENE,
    "deletedscene": ExtraType.DELETED_SCENE,
    "featurette": ExtraType.FEATURETTE,
    "interview": ExtraType.INTERVIEW,
    "scene": ExtraType.SCENE,
    "short": ExtraType.SHORT,
    "clip": ExtraType.CLIP,
    "other": ExtraType.OTHER,
    "extra": ExtraType.OTHER,
}
# Folder names with spaces, dashes and underscores removed, casefolded.
_FOLDER_TYPES: dict[str, ExtraType] = {
    "trailers": ExtraType.TRAILER,
    "trailer": ExtraType.TRAILER,
    "behindthescenes": ExtraType.BEHIND_THE_SCENES,
    "deletedscenes": ExtraType.DELETED_SCENE,
    "deleted": ExtraType.DELETED_SCENE,
    "featurettes": ExtraType.FEATURETTE,
    "featurette": ExtraType.FEATURETTE,
    "interviews": ExtraType.INTERVIEW,
    "interview": ExtraType.INTERVIEW,
    "scenes": ExtraType.SCENE,
    "shorts": ExtraType.SHORT,
    "clips": ExtraType.CLIP,
    "other": ExtraType.OTHER,
    "others": ExtraType.OTHER,
}
# Generic folders hold extras of any type (``Other`` unless a suffix says).
GENERIC_EXTRAS_FOLDERS = frozenset({"extras", "extra", "bonus", "bonusfeatures"})
# `-trailer`, ` - trailer`, `.trailer`, `_trailer`.
_SUFFIX_RE = re.compile(
    r"(?P<sep>\s*-\s*|[._])(?P<word>"
    + "|".join(sorted(_SUFFIX_TYPES, key=len, reverse=True))
    + r")(?:[ ._-]?\d{1,2})?$",
    re.IGNORECASE,
)
_SUFFIX_WORDS = tuple(_SUFFIX_TYPES)
_BARE_TRAILER_RE = re.compile(r"trailers?(?:[ ._-]?\d{1,2})?", re.IGNORECASE)
_FOLDER_NOISE = str.maketrans("", "", " -_")
_SAMPLE_END_RE = re.compile(r"(?:[._]|\s*-\s*)sample$")


@dataclass(frozen=True, slots=True)
class ExtraSuffix:
    """An extra named by a stem suffix: ``Movie (2010)-trailer2``.

    ``base`` is the stem before the suffix (it names the owner in a flat
    folder); ``separator`` is ``-``, `` - `` (spaced), ``.`` or ``_``.
    """

    extra_type: ExtraType
    base: str
    separator: str


def extension(name: str) -> str:
    """The lowercased last extension with its dot, or ``""``."""
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def is_video(name: str) -> bool:
    """Whether a file name has a video container extension or is ``.strm``."""
    return extension(name) in _VIDEO_OR_STRM


def is_sample(rel_path: PurePosixPath | str) -> bool:
    """The built-in sample rule (api-decisions "Sample rule"), case-insensitive.

    True when the stem is ``sample``, or ends in ``-sample`` / ``.sample``,
    or the file lies in a ``sample`` / ``samples`` folder anywhere on
    ``rel_path`` (relative to the library root).
    """
    return is_sample_parts(str(rel_path).split("/"))


def is_sample_parts(parts: Sequence[str]) -> bool:
    """:func:`is_sample` for a path already split into its parts."""
    if is_sample_stem(strip_extension(parts[-1])):
        return True
    return any(part.casefold() in SAMPLE_FOLDERS for part in parts[:-1])


def is_sample_stem(stem: str) -> bool:
    """The stem half of the sample rule: ``sample``, ``*-sample``, ``*.sample``,
    and the variants ``*_sample`` and ``* - sample``."""
    folded = stem.casefold()
    if not folded.endswith("sample"):
        return False
    return folded == "sample" or _SAMPLE_END_RE.search(folded) is not None


def extra_suffix(stem: str) -> ExtraSuffix | None:
    """The extra suffix on ``stem``: ``-trailer``, ``-featurette``, ``-clip3``...

    Every suffix follows a ``-``; a trailer may also follow ``.``, ``_`` or
    a spaced dash (``Movie - trailer``). ``-extra`` is ``Other``.
    """
    # Cheap test first: almost no stem ends in a suffix word.
    if not stem.rstrip("0123456789 ._-").casefold().endswith(_SUFFIX_WORDS):
        return None
    match = _SUFFIX_RE.search(stem)
    if match is None or match.start() == 0:
        return None
    extra_type = _SUFFIX_TYPES[match.group("word").casefold()]
    raw = match.group("sep")
    separator = raw if raw in "-._" else " - "
    # Only trailers take `.`/`_` (Kodi's `300.trailer`) or a spaced dash:
    # `The.Interview`, `The.Big.Short` and `Movie (2010) - Clip` are titles.
    if separator != "-" and extra_type is not ExtraType.TRAILER:
        return None
    return ExtraSuffix(extra_type, stem[: match.start()].rstrip(), separator)


@functools.lru_cache(maxsize=FOLDER_CACHE_SIZE)
def extras_folder_type(folder: str) -> ExtraType | None:
    """The ExtraType a folder name stands for (``extras`` is ``Other``)."""
    folded = folder.casefold().translate(_FOLDER_NOISE)
    if folded in GENERIC_EXTRAS_FOLDERS:
        return ExtraType.OTHER
    return _FOLDER_TYPES.get(folded)


def _is_generic_extras_folder(folder: str) -> bool:
    return folder.casefold().translate(_FOLDER_NOISE) in GENERIC_EXTRAS_FOLDERS


def is_theme_audio(name: str) -> bool:
    """Whether ``name`` has an audio extension a theme song may have."""
    return extension(name) in THEME_AUDIO_EXTENSIONS


def theme_type(parts: Sequence[str]) -> tuple[ExtraType, int] | None:
    """(ThemeSong or ThemeVideo, index of the owner's last folder) of a path.

    ``Movie (2010)/theme.mp3`` and ``Movie (2010)/theme-music/a.mp3`` are
    theme songs of ``Movie (2010)``; ``Movie (2010)/backdrops/a.mp4`` a
    theme video. None for anything else (and at the library root).
    """
    name = parts[-1]
    audio = extension(name) in THEME_AUDIO_EXTENSIONS
    if not audio and not is_video(name):
        return None
    if name.startswith(".") or any(folder.startswith(".") for folder in parts[:-1]):
        return None
    for index in range(len(parts) - 2, 0, -1):
        folder = parts[index].casefold()
        if folder in THEME_SONG_FOLDERS and audio:
            return ExtraType.THEME_SONG, index - 1
        if folder in THEME_VIDEO_FOLDERS and is_video(name):
            return ExtraType.THEME_VIDEO, index - 1
    if audio and len(parts) > 1 and _THEME_STEM_RE.fullmatch(strip_extension(name)) is not None:
        return ExtraType.THEME_SONG, len(parts) - 2
    return None


def is_bare_trailer(stem: str) -> bool:
    """``trailer``, ``trailer2``, ``Trailer 2``: a trailer by its name alone."""
    return _BARE_TRAILER_RE.fullmatch(stem) is not None


def extra_type_of(rel_parts: Sequence[str]) -> ExtraType | None:
    """The ExtraType of a file, from its parts relative to its item's folder.

    ``rel_parts`` ends with the file name; the folders before it lie below
    the item folder (``["extras", "Making of.mkv"]``, ``["Movie-trailer.mkv"]``).
    Precedence: a suffix on the stem (``-trailer``, ``-deleted``...); then
    the deepest specific extras folder (``trailers``, ``deleted scenes``...);
    then a stem of just ``trailer``; then a generic ``extras`` folder
    (``Other``). None for a main feature.
    """
    stem = strip_extension(rel_parts[-1])
    suffix = extra_suffix(stem)
    if suffix is not None:
        return suffix.extra_type
    generic = False
    specific: ExtraType | None = None
    for folder in rel_parts[:-1]:
        if _is_generic_extras_folder(folder):
            generic = True
        elif (found := extras_folder_type(folder)) is not None:
            specific = found
    if specific is not None:
        return specific
    if is_bare_trailer(stem):
        return ExtraType.TRAILER
    return ExtraType.OTHER if generic else None
