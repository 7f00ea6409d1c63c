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

Library roots themselves: a root that is, or lies under, a fenced
directory is refused (:func:`refused_root`).  A root that *contains* one
(``/``, or a root holding the data directory) is accepted; the fenced
directory below it is simply never walked nor served.
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


def fences(real_data_dir: str | None) -> tuple[str, ...]:
    """The fenced directories: the system ones and the data directory (if known)."""
    return SYSTEM_DIRS + ((real_data_dir,) if real_data_dir else ())


def refused_root(real_root: str, fenced: Iterable[str]) -> str | None:
    """Why a library root may not be used (``system_directory``, ``data_directory``), or None."""
    for fence in fenced:
        if is_under(real_root, fence):
            return "system_directory" if fence in SYSTEM_DIRS else "data_directory"
    return None


def roots_overlap(a: str, b: str) -> bool:
    """Whether two roots (real paths) are the same or one holds the other."""
    return is_under(a, b) or is_under(b, a)
