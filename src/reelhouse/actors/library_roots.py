"""A library's name and roots, checked: what creating a library and changing it both require.

A root must be absolute, a readable directory, not (under) ``/proc``,
``/sys``, ``/dev`` or the server's data directory (``library_path_not_allowed``),
and overlap no root of another library, compared by real path (a symbolic
link to another library's root overlaps it).  The disk is read in worker
threads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import trio

from reelhouse import errors
from reelhouse.media.containment import roots_overlap
from reelhouse.storage import Store
from reelhouse.storage.confined_files import root_refusal
from reelhouse.storage.libraries import all_library_paths

MAX_NAME_LENGTH = 200
MAX_PATHS = 64
# Entries looked at when checking a root for .strm files (names only).
STRM_LOOKUP_LIMIT = 200_000


def valid_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise errors.Invalid("The library needs a name.", field="name")
    if len(name.strip()) > MAX_NAME_LENGTH:
        raise errors.Invalid(
            f"The name is longer than {MAX_NAME_LENGTH} characters.",
            field="name",
            code="field_too_long",
            params={"limit": MAX_NAME_LENGTH},
        )
    return name.strip()


def _absolute_paths(raw: Any) -> list[str]:
    """The given roots, normalised as text (no file system access)."""
    if not isinstance(raw, list) or not raw:
        raise errors.Invalid("Give at least one root directory in paths.", field="paths")
    if len(raw) > MAX_PATHS or not all(isinstance(p, str) and p for p in raw):
        raise errors.Invalid("paths must be a list of directory paths.", field="paths")
    paths: list[str] = []
    for path in raw:
        if not os.path.isabs(path):
            raise errors.Invalid(
                f"{path} is not an absolute path.", field="paths", code="path_not_absolute", params={"path": path}
            )
        paths.append(os.path.normpath(path))
    return paths


async def valid_paths(
    store: Store, raw: Any, data_dir: os.PathLike[str] | None, *, library_id: str | None = None
) -> tuple[str, ...]:
    """The roots ``raw`` names, checked; ``library_id``'s own roots (a library changed) overlap nothing."""
    paths = _absolute_paths(raw)
    for path in paths:
        refusal = await trio.to_thread.run_sync(root_refusal, path, data_dir)
        if refusal is not None:
            raise errors.Invalid(
                f"{path} may not be a library folder: {_REFUSALS[refusal]}.",
                field="paths", code="library_path_not_allowed", params={"path": path, "reason": refusal},
            )  # fmt: skip
        problem = await trio.to_thread.run_sync(_directory_problem, path)
        if problem is not None:
            raise errors.Invalid(f"{path}: {problem[1]}", field="paths", params={"path": path, "reason": problem[0]})
    existing = await others_paths(store, library_id)
    real = await trio.to_thread.run_sync(real_paths, [*paths, *(root for _id, root in existing)])
    check_no_overlap(paths, existing, real)
    return tuple(dict.fromkeys(paths))


async def others_paths(store: Store, library_id: str | None) -> list[tuple[str, str]]:
    """(library id, root) of every library but ``library_id``."""
    return [(owner, root) for owner, root in await all_library_paths(store) if owner != library_id]


_REFUSALS = {
    "system_directory": "it is, holds or is under /proc, /sys or /dev",
    "data_directory": "it is, or is under, the server's data directory",
}


def real_paths(paths: Sequence[str]) -> dict[str, str]:
    """Each path's real path (symbolic links resolved; a root offline resolves as far as it can)."""
    return {path: os.path.realpath(path) for path in paths}


def _directory_problem(path: str) -> tuple[str, str] | None:
    try:
        if not os.path.exists(path):
            return "not_found", "the directory does not exist"
        if not os.path.isdir(path):
            return "not_directory", "this is not a directory"
        os.scandir(path).close()
    except PermissionError:
        return "permission_denied", "the server may not read this directory"
    except OSError as exc:
        return "unknown", f"the directory cannot be read ({exc.strerror})"
    return None


def check_no_overlap(paths: list[str], existing: list[tuple[str, str]], real: Mapping[str, str]) -> None:
    """No two roots overlap, compared by real path (a path repeated as given is merged instead)."""
    for i, path in enumerate(paths):
        for other in paths[i + 1 :]:
            if other != path and roots_overlap(real[path], real[other]):
                raise errors.Invalid(
                    f"{path} and {other} overlap.", field="paths", params={"path": other, "reason": "overlaps"}
                )
        for library_id, root in existing:
            if roots_overlap(real[path], real[root]):
                raise errors.Invalid(
                    f"{path} overlaps {root}, a root of another library.",
                    field="paths",
                    params={"path": path, "reason": "overlaps", "libraryId": library_id},
                )


def roots_have_strm(paths: Sequence[str]) -> bool:
    """Whether any root holds a .strm file, from directory listings only."""
    seen = 0
    for root in paths:
        for _dir, _subdirs, files in os.walk(root):
            seen += len(files)
            if any(f.lower().endswith(".strm") for f in files):
                return True
            if seen > STRM_LOOKUP_LIMIT:
                return False
    return False
