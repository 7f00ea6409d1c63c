"""Changing a library's name or roots (the admin console's; the reference's API has no such call).

The checks are a creation's (:mod:`.library_roots`): a name of at most 200
characters, roots that are readable directories, allowed, and overlapping
no other library's.  They run off the registry's turn (the disk is read);
the registry then checks the overlap again in its turn, where creations and
changes run one at a time, writes the change in one transaction and, when
the roots changed, restarts the library's actor on them (a running scan is
cancelled; the folder monitor follows the new roots) and starts a full scan
(unless scans are suspended): items under a root given up become missing,
those under a new one are added.  A new name alone restarts nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reelhouse import errors
from reelhouse.runtime import Ask, PendingReply
from reelhouse.storage import Store
from reelhouse.storage.libraries import LibraryRecord, get_library

from .library_roots import valid_name, valid_paths


@dataclass(frozen=True, slots=True)
class ChangeLibrary(Ask["LibraryRecord"]):
    """Ask: give a library a new ``name`` and/or ``paths`` (None: as it is); replies the changed LibraryRecord."""

    library_id: str
    name: Any = None
    paths: Any = None


@dataclass(frozen=True, slots=True)
class CheckedChange:
    """Tell (registry to itself): the off-turn checks of a change are done."""

    before: LibraryRecord
    name: str
    paths: tuple[str, ...]
    reply: PendingReply

    @property
    def roots_changed(self) -> bool:
        return self.paths != self.before.paths


async def check_change(
    store: Store, change: ChangeLibrary, data_dir: Any
) -> tuple[LibraryRecord, str, tuple[str, ...]]:
    """The library as it is, its new name and roots, checked; NotFound, or Invalid as a creation's."""
    before = await get_library(store, change.library_id)
    if before is None:
        raise errors.NotFound(f"No library {change.library_id}.", params={"libraryId": change.library_id})
    name = before.name if change.name is None else valid_name(change.name)
    paths = before.paths
    if change.paths is not None:
        paths = await valid_paths(store, change.paths, data_dir, library_id=before.id)
    return before, name, paths
