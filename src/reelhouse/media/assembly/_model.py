"""The scanner's value types: listings in, item drafts and records out.

Private to ``reelhouse.media.assembly`` (which documents the rules). Plain
frozen dataclasses of strings and numbers, so a draft's ``repr`` is a
stable fingerprint input.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from reelhouse.media.companions import AUDIO_CODECS, SUBTITLE_CODECS, Companion
from reelhouse.media.library_options import LibraryOptions
from reelhouse.media.local_images import IMAGE_EXTENSIONS
from reelhouse.media.naming import DISC_STUB_EXTENSION, STRM_EXTENSION, VIDEO_EXTENSIONS, LibraryKind

IdKind = Literal["video", "series", "season", "source", "person"]
ItemType = Literal["Movie", "Series", "Season", "Episode", "Video"]

ID_DIGEST_BYTES = 16  # 22 URL-safe characters
FINGERPRINT_BYTES = 12
NFO_EXTENSION = ".nfo"
# Files the scanner looks at; everything else in a folder is never stat'ed.
VIDEO_OR_STRM = VIDEO_EXTENSIONS | {STRM_EXTENSION, DISC_STUB_EXTENSION}
IMAGE_SUFFIXES = frozenset(f".{ext}" for ext in IMAGE_EXTENSIONS)
COMPANION_SUFFIXES = frozenset(f".{ext}" for ext in (*SUBTITLE_CODECS, *AUDIO_CODECS))
RELEVANT_SUFFIXES = VIDEO_OR_STRM | IMAGE_SUFFIXES | COMPANION_SUFFIXES | {NFO_EXTENSION}


def item_id(library_id: str, kind: str, path: str) -> str:
    """A deterministic id: 22 characters of ``[A-Za-z0-9_-]``.

    ``kind`` is ``video`` (a movie, episode or extra: its file path),
    ``series`` / ``season`` (the folder path, or a key for a series without
    a folder), ``source`` (a media source: its file path) or ``person``
    (library id empty, the casefolded name). The same inputs always give
    the same id, so an item keeps its id while its file stays where it is.
    """
    text = f"{library_id}\x00{kind}\x00{path}".encode("utf-8", "surrogateescape")
    digest = hashlib.blake2b(text, digest_size=ID_DIGEST_BYTES).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True, slots=True)
class FileStat:
    """One file of a directory: its name, size and modification time (ms)."""

    name: str
    size: int
    mtime_ms: int


@dataclass(frozen=True, slots=True)
class Listing:
    """The relevant files directly inside one directory.

    ``root`` is the absolute library root; ``rel_dir`` the directory
    relative to it (``""`` for the root itself, ``/``-separated).
    """

    root: str
    rel_dir: str
    files: tuple[FileStat, ...]

    @property
    def abs_dir(self) -> str:
        return join_path(self.root, self.rel_dir)


def join_path(root: str, rel: str) -> str:
    """``root`` and a ``/``-separated relative path ("" is the root)."""
    if not rel:
        return root
    return root + rel if root.endswith("/") else f"{root}/{rel}"


class ScanRules:
    """The library settings the pure rules need, with exclusions compiled.

    Exclusions (LibraryOptions): ``excludeKeywords`` match whole words of
    the file name stem, case-insensitively (never directory names);
    ``excludeExtensions`` by the lowercased extension; files smaller than
    ``excludeSmallerThanBytes`` are skipped (a file exactly at the
    threshold is kept; ``.strm`` pointer files are never size-excluded).
    """

    __slots__ = (
        "_extensions",
        "_keywords",
        "_min_size",
        "external_audio",
        "kind",
        "library_id",
        "use_nfo",
    )  # fmt: skip

    def __init__(
        self,
        library_id: str,
        kind: LibraryKind | str,
        *,
        exclude_keywords: tuple[str, ...] = (),
        exclude_extensions: tuple[str, ...] = (),
        exclude_smaller_than_bytes: int = 0,
        use_nfo: bool = True,
        external_audio: bool = True,
    ) -> None:
        self.library_id = library_id
        self.kind = LibraryKind(kind)
        self.use_nfo = use_nfo
        self.external_audio = external_audio
        words = [re.escape(k.strip()) for k in exclude_keywords if k.strip()]
        # A word boundary that treats "_" as a separator, as release names do.
        self._keywords = (
            re.compile(r"(?<![^\W_])(?:" + "|".join(words) + r")(?![^\W_])", re.IGNORECASE)
            if words
            else None
        )
        self._extensions = frozenset(_dotted(e) for e in exclude_extensions if e.strip())
        self._min_size = max(0, exclude_smaller_than_bytes)

    @classmethod
    def from_options(cls, library_id: str, kind: str, options: LibraryOptions) -> ScanRules:
        return cls(
            library_id,
            kind,
            exclude_keywords=options.exclude_keywords,
            exclude_extensions=options.exclude_extensions,
            exclude_smaller_than_bytes=options.exclude_smaller_than_bytes,
            use_nfo=options.use_nfo,
            external_audio=options.external_audio,
        )

    @property
    def signature(self) -> str:
        """The settings that change what a scan writes (part of fingerprints)."""
        return f"nfo={int(self.use_nfo)};audio={int(self.external_audio)}"

    def excluded(self, file: FileStat, extension: str, stem: str) -> bool:
        """Whether the exclusion rules drop this media file."""
        if extension in self._extensions:
            return True
        if self._min_size and extension not in _POINTERS and file.size < self._min_size:
            return True
        return self._keywords is not None and self._keywords.search(stem) is not None


# Small by nature: a URL (`.strm`) or a disc's label (`.disc`).
_POINTERS = frozenset({STRM_EXTENSION, DISC_STUB_EXTENSION})


def _dotted(extension: str) -> str:
    lowered = extension.strip().lower()
    return lowered if lowered.startswith(".") else f".{lowered}"


@dataclass(frozen=True, slots=True)
class ImageFile:
    """A local image of an item: kind (ImageKind value), index, absolute path
    (a season's image may lie in its series' folder)."""

    file: FileStat
    kind: str
    index: int
    path: str


@dataclass(frozen=True, slots=True)
class CompanionFile:
    """An external subtitle or audio file of a video."""

    file: FileStat
    companion: Companion


@dataclass(frozen=True, slots=True)
class ItemDraft:
    """An item as the file names describe it, before any file is read.

    ``path`` is the absolute file path (the folder for series and seasons;
    None for a series without a folder); ``file`` is None for folder items.
    ``offline`` marks a ``.disc`` stub: the item has no playable source;
    ``format3d`` is the 3D format the file name gives the version (movie
    or episode; ``naming.MovieFile.format3d``).
    ``nfo`` is the NFO file to read (None: none found); ``owner_folder`` is
    set, with ``owner_id`` None, while an extra's owner is still to be
    looked up by that absolute folder.
    """

    id: str
    type: ItemType
    path: str | None
    dir_path: str
    name: str
    sort_name: str
    file: FileStat | None = None
    strm: bool = False
    production_year: int | None = None
    premiere_date_ms: int | None = None
    index_number: int | None = None
    index_number_end: int | None = None
    parent_index_number: int | None = None
    extra_type: str | None = None
    part_number: int | None = None
    parent_id: str | None = None
    series_id: str | None = None
    season_id: str | None = None
    owner_id: str | None = None
    version_of: str | None = None
    owner_folder: str | None = None
    offline: bool = False
    format3d: str | None = None
    nfo: FileStat | None = None
    nfo_kind: str | None = None
    images: tuple[ImageFile, ...] = ()
    companions: tuple[CompanionFile, ...] = ()


@dataclass(frozen=True, slots=True)
class SeriesRef:
    """A series that episodes of a directory belong to.

    ``rel_folder`` is its folder relative to ``root`` (``""``: the root);
    None with ``title`` for a series named only by its episodes' file names.
    """

    id: str
    root: str
    rel_folder: str | None
    title: str
    year: int | None = None


@dataclass(frozen=True, slots=True)
class SeasonRef:
    """A season folder that episodes of a directory lie in."""

    id: str
    root: str
    rel_folder: str
    number: int
    series: SeriesRef


@dataclass(frozen=True, slots=True)
class DirectoryDrafts:
    """What one directory listing holds.

    ``items`` are ordered so that every item comes after the items it
    points to (primaries before versions, owners before extras).
    ``owners`` maps absolute folders to the item that owns extras found
    below them (a movie folder's movie).
    """

    items: tuple[ItemDraft, ...] = ()
    series: tuple[SeriesRef, ...] = ()
    seasons: tuple[SeasonRef, ...] = ()
    owners: Mapping[str, str] = field(default_factory=dict)


# -- after the files are read ----------------------------------------------


@dataclass(frozen=True, slots=True)
class PersonCredit:
    person_id: str
    name: str
    kind: str  # PersonKind value
    role: str
    order: int


@dataclass(frozen=True, slots=True)
class Metadata:
    """Item fields from an NFO file (all optional except the name)."""

    name: str
    sort_name: str
    original_title: str | None = None
    production_year: int | None = None
    premiere_date_ms: int | None = None
    end_date_ms: int | None = None
    overview: str | None = None
    tagline: str | None = None
    runtime_ticks: int | None = None
    official_rating: str | None = None
    community_rating: float | None = None
    critic_rating: float | None = None
    lock_data: bool = False
    provider_ids: str = "{}"  # JSON object
    extra: str = "{}"  # JSON object: ratings, trailers, collection...
    values: tuple[tuple[str, str], ...] = ()  # (genre|studio|tag|country, value)
    credits: tuple[PersonCredit, ...] = ()
    index_number: int | None = None
    index_number_end: int | None = None
    parent_index_number: int | None = None


@dataclass(frozen=True, slots=True)
class ImageRecord:
    path: str
    kind: str
    index: int
    tag: str
    width: int | None
    height: int | None
    size: int
    mtime_ms: int


@dataclass(frozen=True, slots=True)
class ExternalStream:
    """An external subtitle or audio track: ``index`` counts from 0 per video."""

    index: int
    type: str  # StreamType value
    codec: str
    language: str | None
    title: str | None
    is_default: bool
    is_forced: bool
    path: str


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """An item ready to write.

    ``meta`` is None when no NFO data applies (no NFO, ``useNfo`` off, or a
    file that could not be read): stored metadata is then kept.
    ``source_path`` is the file path, or the URL inside a ``.strm`` file.
    ``file_changed``: new, or size or mtime differ from the stored ones
    (stored media info is dropped). ``probe``: mark the source for probing.
    """

    draft: ItemDraft
    fingerprint: str
    is_new: bool
    meta: Metadata | None = None
    images: tuple[ImageRecord, ...] = ()
    streams: tuple[ExternalStream, ...] = ()
    source_path: str | None = None
    container: str = ""
    file_changed: bool = False
    probe: bool = False
