"""writeBack: a provider's answer written next to the media, never over anything.

With the library's ``writeBack`` on, an applied match also writes, in the
item's folder and only where nothing of the kind exists:

- an NFO (:func:`reelhouse.media.nfo_write.render_nfo` of the provider's
  answer) under the name the scanner reads first: ``<stem>.nfo`` for a
  movie file or an episode, ``movie.nfo`` for a movie folder (DVD/Blu-ray),
  ``tvshow.nfo`` in a series folder, ``season.nfo`` in a season folder; it
  is not written when *any* NFO name the scanner would read for the item
  exists (``movie.nfo`` beside ``<stem>.nfo``): an existing NFO is never
  modified nor shadowed;
- images of index 0 of the primary, backdrop and logo kinds: for a movie or
  an episode ``<stem>-poster``, ``<stem>-fanart``, ``<stem>-clearlogo``;
  for a series or season folder ``poster``, ``fanart``, ``clearlogo``; with
  the image's own extension; skipped when the catalogue already has a local
  image of that kind and index (``folder.jpg`` counts as the poster).

Files are created with :func:`reelhouse.storage.confined_files.create_confined`
(inside the library's roots, atomically, never replacing: a name that
exists is left alone).  Failures (a read-only folder) are reported in the
outcome, never raised.  Items without a folder of their own on disk
(virtual items, ``Video`` items, remote sources) are ``unavailable``.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from typing import Literal

from reelhouse.media.containment import Confinement
from reelhouse.media.file_names import to_fs
from reelhouse.media.nfo import NfoKind, nfo_candidates
from reelhouse.storage.confined_files import OutsideRoots, create_confined
from reelhouse.storage.provider_apply import ApplyTarget

WriteBackState = Literal["off", "written", "skipped", "failed", "unavailable"]
NFO_KINDS: dict[str, NfoKind] = {"Movie": "movie", "Series": "tvshow", "Season": "season", "Episode": "episode"}
IMAGE_NAMES = {"primary": "poster", "backdrop": "fanart", "logo": "clearlogo"}
_SEVERITY: dict[WriteBackState, int] = {"off": 0, "unavailable": 1, "skipped": 2, "written": 3, "failed": 4}


@dataclass(frozen=True, slots=True)
class WriteBackFile:
    name: str
    data: bytes
    kind: str  # nfo, or the ImageKind


@dataclass(frozen=True, slots=True)
class WriteBackOutcome:
    state: WriteBackState
    files: tuple[str, ...] = ()  # paths written
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """Where an item's files go: its folder, the video stem (None for folder items), its NFO kind."""

    directory: str
    stem: str | None
    nfo_kind: NfoKind


def worst(a: WriteBackOutcome, b: WriteBackOutcome) -> WriteBackOutcome:
    """The outcome that says most (failed over written over skipped...), files of both."""
    state = a.state if _SEVERITY[a.state] >= _SEVERITY[b.state] else b.state
    return WriteBackOutcome(state, a.files + b.files, a.error or b.error)


def placement(target: ApplyTarget) -> Placement | None:
    """Where ``target``'s NFO and images would go (blocking: looks whether its path is a folder)."""
    kind = NFO_KINDS.get(target.stored.type)
    if kind is None or not target.path:
        return None
    path = to_fs(target.path)
    if kind in ("tvshow", "season"):
        return Placement(path, None, kind) if os.path.isdir(path) else None
    if kind == "movie" and os.path.isdir(path):
        return Placement(path, None, kind)  # a disc folder
    if not os.path.isfile(path):
        return None  # remote (.strm target) or gone
    directory, name = os.path.split(path)
    return Placement(directory, name.rpartition(".")[0] or name, kind)


def image_file_name(where: Placement, kind: str, extension: str) -> str:
    base = IMAGE_NAMES[kind]
    return f"{where.stem}-{base}.{extension}" if where.stem else f"{base}.{extension}"


def nfo_file_name(where: Placement) -> str:
    return f"{where.stem}.nfo" if where.stem else f"{where.nfo_kind}.nfo"


def write_files(where: Placement, files: list[WriteBackFile], within: Confinement) -> WriteBackOutcome:
    """Create each of ``files`` in ``where`` unless it (or, for the NFO, any NFO the scanner reads) exists.

    Blocking: run it in a worker thread.
    """
    written: list[str] = []
    try:
        for file in files:
            if file.kind == "nfo" and _any_nfo(where):
                continue
            try:
                create_confined(where.directory, file.name, file.data, within)
            except FileExistsError:
                continue
            written.append(os.path.join(where.directory, file.name))
    except OutsideRoots:
        return WriteBackOutcome("failed", tuple(written), "the folder is outside the library's folders")
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else type(exc).__name__
        state: WriteBackState = "failed" if exc.errno != errno.ENOENT else "unavailable"
        return WriteBackOutcome(state, tuple(written), reason)
    return WriteBackOutcome("written" if written else "skipped", tuple(written))


def _any_nfo(where: Placement) -> bool:
    names = nfo_candidates(where.stem or "", where.nfo_kind)
    return any(os.path.lexists(os.path.join(where.directory, name)) for name in names)
