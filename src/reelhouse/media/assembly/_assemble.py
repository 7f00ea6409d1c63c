"""Directory listings -> items: the scanner's pure rules.

The scan walks the library (``reelhouse.actors.scan``) and hands each
directory's relevant files (names, sizes, mtimes: a :class:`Listing`) to
:func:`assemble_directory`, which applies the naming rules
(``media.naming``) and returns :class:`ItemDraft` s. Nothing here reads a
file: drafts *name* the NFO, image, subtitle and ``.strm`` files an item
depends on, and the caller reads only what changed (a draft's
:func:`fingerprint` covers every file it names, with size and mtime).

Items
    Movies, in their own folder or flat; the name is the parsed title
    without the year (a movie in its own folder takes the folder's). Versions
    (``Movie (2010) - 4K``) are Movie items each; members point to the
    primary with ``version_of`` (primary as ``naming.group_versions``
    chooses). A multi-part stack is one Movie (its first part) plus a
    ``Video`` item per later part (``extra_type`` ``AdditionalPart``,
    ``owner_id`` the movie, ``index_number`` = part number from 2).
    Extras are ``Video`` items with their ExtraType, owned by the movie,
    episode, season or series they belong to and numbered per owner and
    folder; an extra whose owner is in another directory carries
    ``owner_folder`` until the caller resolves it (:func:`resolve_owner`).
    Theme songs and videos (``theme.mp3``, ``backdrops/``) are extras
    (``ThemeSong`` / ``ThemeVideo``) of the item whose folder holds them.
    A ``.disc`` stub is a Movie or Episode with ``offline`` set: it gets no
    media source and is never probed. A version's 3D format from its name
    is ``format3d``.
    Samples, hidden files and disc structures are not indexed.
    Episodes belong to a series (their series folder; the library root when
    they sit in a season folder there or name no series; else a series known
    only by the name in the file names, which has no path) and, when they
    lie in a season folder, to that Season (``Specials`` / ``Season 00``
    are 0); episodes directly in the series folder have no season and their
    parent is the series. An episode's name is the title after its number,
    else ``Episode N``. Versions of one episode (``Show - S01E01 - 1080p``
    and ``- 720p``) point to their primary with ``version_of``, as movie
    versions do. Series and Season items are drafted from their
    folders by :func:`series_draft` / :func:`season_draft`.

Ids
    :func:`item_id` hashes library id, kind and path: an item keeps its id
    while its file (or folder) stays where it is.

Exclusions
    :class:`ScanRules` (built from LibraryOptions) drops media files by
    keyword (whole words of the stem), extension and size.

Local metadata
    NFO per ``media.nfo.nfo_candidates`` (a movie's ``movie.nfo`` only in
    its own folder), images per ``media.local_images`` (folder-named images
    go to the folder's item, ``<stem>-poster.jpg`` to that video),
    subtitles and audio per ``media.companions`` (audio only with
    ``externalAudio``). :func:`metadata_from_nfo` turns a parsed NFO into
    item fields; :func:`strm_target` reads a ``.strm`` pointer.
"""

from __future__ import annotations

from dataclasses import replace

from reelhouse.media.assembly._dir import assemble_directory, series_ref_of
from reelhouse.media.assembly._folders import season_draft, season_path, series_draft, series_path
from reelhouse.media.assembly._meta import (
    MAX_STRM_BYTES,
    MPEGTS_EXTENSIONS,
    STRM_CONTAINER,
    container_of,
    date_ms,
    external_streams,
    fingerprint,
    image_record,
    metadata_from_nfo,
    person_id,
    strm_target,
)
from reelhouse.media.assembly._model import (
    RELEVANT_SUFFIXES,
    CompanionFile,
    DirectoryDrafts,
    ExternalStream,
    FileStat,
    ImageFile,
    ImageRecord,
    ItemDraft,
    ItemRecord,
    ItemType,
    Listing,
    Metadata,
    PersonCredit,
    ScanRules,
    SeasonRef,
    SeriesRef,
    item_id,
    join_path,
)


def resolve_owner(draft: ItemDraft, owner_id: str | None) -> ItemDraft:
    """An extra whose owner was looked up by folder: owned, or standalone.

    A standalone video (no owner found) is a plain ``Video`` with no extra
    type, so it is listed like any other work.
    """
    if owner_id is None:
        return replace(draft, owner_folder=None, owner_id=None, extra_type=None, index_number=None)
    return replace(draft, owner_folder=None, owner_id=owner_id)


__all__ = [
    "MAX_STRM_BYTES",
    "MPEGTS_EXTENSIONS",
    "RELEVANT_SUFFIXES",
    "STRM_CONTAINER",
    "CompanionFile",
    "DirectoryDrafts",
    "ExternalStream",
    "FileStat",
    "ImageFile",
    "ImageRecord",
    "ItemDraft",
    "ItemRecord",
    "ItemType",
    "Listing",
    "Metadata",
    "PersonCredit",
    "ScanRules",
    "SeasonRef",
    "SeriesRef",
    "assemble_directory",
    "container_of",
    "date_ms",
    "external_streams",
    "fingerprint",
    "image_record",
    "item_id",
    "join_path",
    "metadata_from_nfo",
    "person_id",
    "resolve_owner",
    "season_draft",
    "season_path",
    "series_draft",
    "series_path",
    "series_ref_of",
    "strm_target",
]
