"""Which directories a download manager's ``Library/Media/Updated`` rescans, and in which library.

Sonarr, Radarr and autoscan report the paths they wrote (a file, or a
series or movie folder).  Each path is matched to the library whose root
holds it, first by its text (:func:`match_roots`, pure: nothing outside
every root is ever looked at on disk), then on disk (:func:`on_disk`, in a
worker thread): the path's real location must still be inside that root's
real location (a symbolic link out of a library is ignored like any path
outside), an existing directory is rescanned itself, anything else (a
file, or a path already deleted) its parent directory.  A path outside
every library is ignored, never scanned.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import trio

from reelhouse.media.containment import is_under
from reelhouse.media.file_names import to_fs

DISK_SECONDS = 10.0
MAX_PATHS = 1000


@dataclass(frozen=True, slots=True)
class Candidate:
    library_id: str
    root: str
    path: str


def match_roots(paths: Iterable[str], roots: Sequence[tuple[str, str]]) -> list[Candidate]:
    """Each absolute path with the library root that holds it (the deepest); others dropped."""
    found: list[Candidate] = []
    for raw in list(paths)[:MAX_PATHS]:
        if not raw.startswith("/") or "\x00" in raw:
            continue
        path = posixpath.normpath(raw)
        holders = [(library_id, root) for library_id, root in roots if is_under(path, posixpath.normpath(root))]
        if holders:
            library_id, root = max(holders, key=lambda holder: len(holder[1]))
            found.append(Candidate(library_id, posixpath.normpath(root), path))
    return found


def _directory_on_disk(candidate: Candidate) -> str | None:
    """The directory to rescan for ``candidate`` (path text), or None when it resolves outside its root."""
    real_root = os.path.realpath(to_fs(candidate.root))
    path = candidate.path
    fs_path = to_fs(path)
    directory = path if os.path.isdir(fs_path) else posixpath.dirname(path)
    real = os.path.realpath(to_fs(directory))
    if not (real == real_root or real.startswith(real_root.rstrip("/") + "/")):
        return None
    return directory if is_under(directory, candidate.root) else None


async def on_disk(candidates: Sequence[Candidate]) -> dict[str, tuple[str, ...]]:
    """Directories to rescan by library id, checked on disk in a worker thread."""

    def check() -> dict[str, tuple[str, ...]]:
        found: dict[str, set[str]] = {}
        for candidate in candidates:
            directory = _directory_on_disk(candidate)
            if directory is not None:
                found.setdefault(candidate.library_id, set()).add(directory)
        return {library_id: tuple(sorted(dirs)) for library_id, dirs in found.items()}

    with trio.fail_after(DISK_SECONDS):
        return await trio.to_thread.run_sync(check, abandon_on_cancel=True)
