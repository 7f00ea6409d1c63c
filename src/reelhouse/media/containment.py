"""Containment: the one rule for what the server may index or serve.

Everything the server reads or serves from a library resolves (after
symbolic links: the *real* path) inside one of that library's roots, and
outside every *fenced* directory: ``/proc``, ``/sys``, ``/dev`` and the
server's own data directory.  A symbolic link inside a root that stays
inside (even in another root of the same library) keeps working; one that
leaves is as if it were not there.

Pure: the caller resolves real paths (``os.path.realpath``, or the path of
an opened descriptor) and passes strings in.  The file-system side lives in
:mod:`reelhouse.storage.confined_files`.

Library roots themselves (:func:`refused_root`): a root that is, lies
under or holds a system directory (so ``/`` too) is refused, and so is a
root that is or lies under the data directory.  A root that *holds* the
data directory is accepted (a data directory kept beside the media is a
reasonable layout): the data directory is fenced, never walked nor served.
Both the path as given and its real path are checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SYSTEM_DIRS: tuple[str, ...] = ("/proc", "/sys", "/dev")
"""Kernel file systems: walking them reaches the whole machine (``/proc/*/root``)."""


def is_under(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or below it (both absolute, normalised)."""
    if path == directory:
        return True
    prefix = directory if directory.endswith("/") else directory + "/"
    return path.startswith(prefix)


@dataclass(frozen=True, slots=True)
class Confinement:
    """Where one library's files may resolve: real paths of its roots and of the fences."""

    roots: tuple[str, ...]
    fenced: tuple[str, ...] = SYSTEM_DIRS

    def allows(self, real_path: str) -> bool:
        """Whether a file or directory whose real path is ``real_path`` may be used."""
        return any(is_under(real_path, root) for root in self.roots) and not self.is_fenced(real_path)

    def is_fenced(self, real_path: str) -> bool:
        return any(is_under(real_path, fence) for fence in self.fenced)


def fences(*data_dirs: str) -> tuple[str, ...]:
    """The fenced directories: the system ones and the data directory (absolute forms of it)."""
    return SYSTEM_DIRS + tuple(dict.fromkeys(data_dirs))


def refused_root(root_forms: Iterable[str], fenced: Iterable[str]) -> str | None:
    """Why a library root may not be used (``system_directory``, ``data_directory``), or None.

    ``root_forms``: the root as given (normalised) and its real path.
    """
    forms = tuple(root_forms)
    for fence in fenced:
        if fence in SYSTEM_DIRS and any(roots_overlap(form, fence) for form in forms):
            return "system_directory"
        if fence not in SYSTEM_DIRS and any(is_under(form, fence) for form in forms):
            return "data_directory"
    return None


def roots_overlap(a: str, b: str) -> bool:
    """Whether two roots (real paths) are the same or one holds the other."""
    return is_under(a, b) or is_under(b, a)
