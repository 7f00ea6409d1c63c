"""Which directories to rescan for a set of changed paths (the realtime monitor's rule).

Pure: it compares paths and reads no files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


def rescan_directories(changed: Iterable[Path], roots: Sequence[Path]) -> frozenset[Path]:
    """The directories to rescan for a set of changed paths.

    A changed, added or deleted entry (file or directory: after a deletion
    nobody can tell which it was) needs its parent rescanned; a root itself
    (deleted, or back) needs itself. Directories outside every root are
    dropped, and a directory inside another one in the result is folded into
    it, because a rescan covers the tree below it.
    """
    root_set = frozenset(roots)
    directories: set[Path] = set()
    for path in changed:
        directory = path if path in root_set else path.parent
        if directory in root_set or any(parent in root_set for parent in directory.parents):
            directories.add(directory)
    return _outermost(directories)


def _outermost(directories: Iterable[Path]) -> frozenset[Path]:
    kept: set[Path] = set()
    for directory in sorted(directories, key=lambda path: len(path.parts)):
        if not any(parent in kept for parent in directory.parents):
            kept.add(directory)
    return frozenset(kept)
