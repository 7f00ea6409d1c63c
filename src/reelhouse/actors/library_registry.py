"""LibraryRegistry: creates libraries and runs one LibraryActor for each.

Creation is serialised here, so two requests can never both claim
overlapping roots. Roots are compared by their real paths (a symbolic link
to another library's root overlaps it); a root that is, or is under,
``/proc``, ``/sys``, ``/dev`` (or holds one: ``/``) or the server's data
directory is refused with ``library_path_not_allowed`` (a root holding the
data directory is accepted: the walk and the image endpoint never enter
it; see :mod:`reelhouse.media.containment`). Everything is validated before anything is written; the
write is one transaction, and if the new LibraryActor cannot start the
library is removed again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from reelhouse import errors
from reelhouse.media.containment import roots_overlap
from reelhouse.media.library_options import apply_update, parse_collection_type
from reelhouse.storage import Store
from reelhouse.storage.confined_files import root_refusal
from reelhouse.storage.libraries import (
    LibraryRecord,
    all_library_paths,
    create_library,
    delete_library,
    existing_user_ids,
    list_libraries,
    new_library_id,
)

from ._runtime import ActorRef
from ._supervisor import ChildSpec, Supervisor
from .library import LibraryActor, LibraryServices, StartScan
from .library_settings import check_roots_writable, entitled

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 200
MAX_PATHS = 64
# Entries looked at when checking a root for .strm files (names only).
STRM_LOOKUP_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class CreateLibrary:
    """Ask: create a library; replies with its LibraryRecord."""

    name: Any
    paths: Any
    collection_type: Any
    options: Mapping[str, Any] | None
    realtime_monitor: bool | None
    access_user_ids: Sequence[str]


@dataclass(frozen=True, slots=True)
class GetLibraryRef:
    """Ask: the ActorRef of a library's actor; NotFound for an unknown id."""

    library_id: str


@dataclass(frozen=True, slots=True)
class ListLibraryRefs:
    """Ask: {library id: ActorRef} for every library."""


class LibraryRegistry(Supervisor):
    def __init__(self, services: LibraryServices) -> None:
        super().__init__()
        self._services = services

    async def on_start(self) -> None:
        await super().on_start()
        for record in await list_libraries(self._services.store):
            await self._start_library(record)

    async def handle(self, msg: object) -> object:
        match msg:
            case CreateLibrary():
                return await self._create(msg)
            case GetLibraryRef(library_id=library_id):
                ref = self.child(_child_name(library_id))
                if ref is None:
                    raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
                return ref
            case ListLibraryRefs():
                return {name.removeprefix("library-"): self.child(name) for name in self.child_names}
            case _:
                raise TypeError(f"unexpected message {msg!r}")

    async def _create(self, request: CreateLibrary) -> LibraryRecord:
        store = self._services.store
        name = _valid_name(request.name)
        collection_type = parse_collection_type(request.collection_type)
        paths = await _valid_paths(store, request.paths, self._services.data_dir)
        has_strm = await trio.to_thread.run_sync(_roots_have_strm, paths)
        outcome = apply_update(
            None,
            None if request.options is None else dict(request.options),
            creating=True,
            collection_type=collection_type,
            installed_plugins=(),
            entitled=entitled,
            roots_have_strm=has_strm,
            realtime_monitor_flag=request.realtime_monitor,
        )
        if outcome.check_roots_writable:
            await trio.to_thread.run_sync(check_roots_writable, paths)
        await _check_access_users(store, request.access_user_ids)
        record = await create_library(
            store,
            library_id=new_library_id(),
            name=name,
            collection_type=collection_type,
            paths=paths,
            options=outcome.options,
            access_user_ids=tuple(request.access_user_ids),
        )
        try:
            ref = await self._start_library(record)
        except Exception:
            log.exception("library %s could not start; removing it", record.id)
            await delete_library(store, record.id)
            raise
        if not record.options.scans_suspended:
            await ref.ask(StartScan(mode="full", trigger="create"), timeout=10.0)
        return record

    async def _start_library(self, record: LibraryRecord) -> ActorRef:
        services = self._services
        spec = ChildSpec(_child_name(record.id), lambda: LibraryActor(record, services))
        return await self.start_child(spec)


def _child_name(library_id: str) -> str:
    return f"library-{library_id}"


def _valid_name(name: Any) -> str:
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


async def _valid_paths(store: Store, raw: Any, data_dir: os.PathLike[str] | None) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw:
        raise errors.Invalid("Give at least one root directory in paths.", field="paths")
    if len(raw) > MAX_PATHS or not all(isinstance(p, str) and p for p in raw):
        raise errors.Invalid("paths must be a list of directory paths.", field="paths")
    paths: list[str] = []
    for path in raw:
        if not os.path.isabs(path):
            raise errors.Invalid(f"{path} is not an absolute path.", field="paths", code="path_not_absolute", params={"path": path})
        paths.append(os.path.normpath(path))
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
    existing = await all_library_paths(store)
    real = await trio.to_thread.run_sync(_real_paths, [*paths, *(root for _id, root in existing)])
    _check_no_overlap(paths, existing, real)
    return tuple(dict.fromkeys(paths))


_REFUSALS = {
    "system_directory": "it is, holds or is under /proc, /sys or /dev",
    "data_directory": "it is, or is under, the server's data directory",
}


def _real_paths(paths: Sequence[str]) -> dict[str, str]:
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


def _check_no_overlap(paths: list[str], existing: list[tuple[str, str]], real: Mapping[str, str]) -> None:
    """No two roots overlap, compared by real path (a path repeated as given is merged instead)."""
    for i, path in enumerate(paths):
        for other in paths[i + 1 :]:
            if other != path and roots_overlap(real[path], real[other]):
                raise errors.Invalid(f"{path} and {other} overlap.", field="paths", params={"path": other, "reason": "overlaps"})
        for library_id, root in existing:
            if roots_overlap(real[path], real[root]):
                raise errors.Invalid(
                    f"{path} overlaps {root}, a root of another library.",
                    field="paths",
                    params={"path": path, "reason": "overlaps", "libraryId": library_id},
                )


def _roots_have_strm(paths: Sequence[str]) -> bool:
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


async def _check_access_users(store: Store, user_ids: Sequence[str]) -> None:
    if not isinstance(user_ids, (list, tuple)) or not all(isinstance(u, str) for u in user_ids):
        raise errors.Invalid("accessUserIds must be a list of member ids.", field="accessUserIds")
    found = await existing_user_ids(store, user_ids)
    for user_id in user_ids:
        if user_id not in found:
            raise errors.Invalid(f"No member {user_id}.", field="accessUserIds", params={"userId": user_id})
        if not found[user_id]:
            raise errors.Invalid(f"Member {user_id} is disabled.", field="accessUserIds", params={"userId": user_id})

