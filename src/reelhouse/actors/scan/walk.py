"""Walking library roots: which directories changed, and what they hold.

:class:`Walker` runs in a worker thread, a budget of directories per call
(:meth:`Walker.step`), so the caller can honour cancellation and report
progress between calls. It visits directories depth-first, parents before
children, names sorted.

- Quick mode: a directory whose mtime equals the one stored by the last
  completed scan is *unchanged*: it is not listed, and its subdirectories are
  the stored ones (adding, removing or renaming an entry changes a
  directory's mtime; editing a file in place does not: that is what full
  mode is for).
- Full mode: every directory is listed, each listed file stat'ed. A
  directory whose mtime and listing (names, sizes and mtimes of the files
  the scanner reads, and the scan's rules: its *signature*) equal those the
  last scan stored is *unchanged* too, unless it holds a missing item
  (``dirty``): nothing in it is parsed again (parsing it would find every
  item's fingerprint unchanged). Without
  stored signatures (a rewrite) every directory counts as changed.
- ``forced`` starts, and the subdirectories of a changed series folder
  (``expand``), always count as changed.

A listed directory yields a :class:`~reelhouse.media.assembly.Listing` of
the files the scanner cares about (by extension), each stat'ed once.
Hidden entries (``.name``) are skipped. A directory reached twice (a
symlink loop, a bind mount) is walked once. A directory whose mtime is
younger than :data:`RACY_WINDOW_NS` is recorded with mtime -1, so the next
quick scan lists it again: a change in the same clock tick as the stored
mtime would otherwise go unnoticed.

Containment (:mod:`reelhouse.media.containment`): a symbolic link, file
or directory, whose real path leaves every root of the library (or enters
``/proc``, ``/sys``, ``/dev`` or the data directory) is not followed and
becomes a :class:`WalkError`; links that stay inside keep working.  A
fenced directory reached without a link (a root of ``/``) is skipped.
Reads go through :mod:`reelhouse.storage.confined_files`, which checks
the opened file again.

Names are bytes: the walk talks to ``os`` in its strings (undecodable
bytes as surrogates) and hands out path text (``media.file_names``), so a
name that is not UTF-8 is indexed like any other; its inputs (starts,
stored directories) are path text too.

Errors do not stop the walk: an unreadable directory or file and a dangling
symlink become :class:`WalkError` s; an unreadable directory is also
reported in ``unreadable`` so that nothing below it turns missing. A
directory that vanished meanwhile is simply not there.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from reelhouse.media.assembly import RELEVANT_SUFFIXES, FileStat, Listing, join_path
from reelhouse.media.containment import Confinement
from reelhouse.media.file_names import from_fs, to_fs
from reelhouse.storage.confined_files import confinement_for, read_confined, resolves_inside

RACY_WINDOW_NS = 1_000_000_000
RACY_MTIME = -1
NS_PER_MS = 1_000_000
SIGNATURE_VERSION = "1"  # bump when parsing changes what an unchanged listing yields
SIGNATURE_BYTES = 12
OUTSIDE_ROOTS = "The symbolic link leads outside the library's folders; it is not scanned."


@dataclass(frozen=True, slots=True)
class WalkStart:
    """Where a walk begins: ``rel`` below ``root``; ``forced`` lists it
    whatever its mtime (a directory named by the realtime monitor)."""

    root: str
    rel: str = ""
    forced: bool = False


@dataclass(frozen=True, slots=True)
class DirVisit:
    """One directory the walk reached. ``listing`` is None when unchanged."""

    path: str
    parent: str | None
    mtime_ns: int
    listing: Listing | None
    signature: str | None = None  # of the listing, when the walk listed it


@dataclass(frozen=True, slots=True)
class WalkError:
    path: str
    error: str


@dataclass(slots=True)
class WalkStep:
    visits: list[DirVisit] = field(default_factory=list)
    errors: list[WalkError] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    pending: int = 0  # directories found but not yet visited
    done: bool = False


@dataclass(frozen=True, slots=True)
class _Todo:
    root: str  # path text
    rel: str  # the os form (see the module docstring)
    parent: str | None
    forced: bool


class Walker:
    """A resumable depth-first walk; one thread at a time may call :meth:`step`.

    ``stored_mtimes`` / ``stored_children``: directory mtimes (ns) and
    subdirectories recorded by the last completed scan. ``expand`` holds
    directories whose subdirectories are listed too whenever they are (the
    folders of series: their season images name seasons in subfolders).
    ``within``: where files may resolve (default: the starts' roots).
    ``stored_signatures`` (full mode): the listings' signatures the last
    scan stored, None to parse every directory; ``salt`` goes into every
    signature (the scan's rules); ``dirty``: directories that are parsed
    whatever their signature.
    """

    def __init__(
        self,
        starts: Sequence[WalkStart],
        *,
        quick: bool,
        stored_mtimes: Mapping[str, int],
        stored_children: Mapping[str, Sequence[str]],
        expand: Collection[str] = (),
        within: Confinement | None = None,
        stored_signatures: Mapping[str, str | None] | None = None,
        salt: str = "",
        dirty: Collection[str] = (),
    ) -> None:
        self._parse_all = not quick and stored_signatures is None
        self._stack = [_Todo(s.root, to_fs(s.rel), None, s.forced or self._parse_all) for s in reversed(starts)]
        self._quick = quick
        self._signatures = stored_signatures or {}
        self._salt = f"{SIGNATURE_VERSION}|{salt}"
        self._dirty = dirty
        self._mtimes = stored_mtimes
        self._children = stored_children
        self._expand = expand
        self._seen: set[tuple[int, int]] = set()
        self.within = within or confinement_for(dict.fromkeys(s.root for s in starts), None)
        self._fenced = _identities(self.within.fenced)

    def step(self, *, max_dirs: int, max_seconds: float) -> WalkStep:
        """Visit up to ``max_dirs`` directories (or for about ``max_seconds``)."""
        out = WalkStep()
        deadline = time.monotonic() + max_seconds
        while self._stack and len(out.visits) < max_dirs and time.monotonic() < deadline:
            self._visit(self._stack.pop(), out)
        out.pending = len(self._stack)
        out.done = not self._stack
        return out

    def _visit(self, todo: _Todo, out: WalkStep) -> None:
        path = join_path(to_fs(todo.root), todo.rel)
        text = join_path(todo.root, from_fs(todo.rel))
        try:
            info = os.lstat(path)
            if todo.parent is None or stat.S_ISLNK(info.st_mode):
                real = os.path.realpath(path)
                if not self.within.allows(real):
                    if not self.within.is_fenced(real):  # a rescan of the data directory: no error
                        out.errors.append(WalkError(text, OUTSIDE_ROOTS))
                    return
                info = os.stat(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            _unreadable(text, exc, out)
            return
        key = (info.st_dev, info.st_ino)
        if not stat.S_ISDIR(info.st_mode) or key in self._seen or key in self._fenced:
            return
        self._seen.add(key)
        mtime = info.st_mtime_ns
        stored = self._mtimes.get(text, RACY_MTIME) == mtime != RACY_MTIME and not todo.forced
        if stored and self._quick:
            out.visits.append(DirVisit(text, todo.parent, mtime, None))
            self._push(todo, text, [to_fs(_name(c)) for c in self._children.get(text, ())], forced=False)
            return
        listed = _list(path, out, self.within)
        if listed is None:
            return
        files, subdirs = listed
        if time.time_ns() - mtime < RACY_WINDOW_NS:
            mtime = RACY_MTIME
        signature = _signature(self._salt, files)
        if stored and mtime != RACY_MTIME and text not in self._dirty and self._signatures.get(text) == signature:
            out.visits.append(DirVisit(text, todo.parent, mtime, None, signature))
            self._push(todo, text, subdirs, forced=False)
            return
        listing = Listing(todo.root, from_fs(todo.rel), files)
        out.visits.append(DirVisit(text, todo.parent, mtime, listing, signature))
        self._push(todo, text, subdirs, forced=self._parse_all or text in self._expand)

    def _push(self, todo: _Todo, path: str, names: list[str], *, forced: bool) -> None:
        """Queue ``names`` (os form) below ``todo``; ``path`` is its path text."""
        for name in sorted(names, reverse=True):
            rel = f"{todo.rel}/{name}" if todo.rel else name
            self._stack.append(_Todo(todo.root, rel, path, forced))


def _signature(salt: str, files: Sequence[FileStat]) -> str:
    """A short hash of ``files`` (sorted by name) and ``salt``."""
    text = salt + "".join(f"\0{f.name}\t{f.size}\t{f.mtime_ms}" for f in files)
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=SIGNATURE_BYTES).hexdigest()


def _name(child_path: str) -> str:
    return child_path.rpartition("/")[2]


def _unreadable(path: str, exc: OSError, out: WalkStep) -> None:
    out.errors.append(WalkError(path, _describe(exc)))
    out.unreadable.append(path)


def _identities(paths: Collection[str]) -> frozenset[tuple[int, int]]:
    """(device, inode) of the directories that exist among ``paths``."""
    found: set[tuple[int, int]] = set()
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue
        found.add((info.st_dev, info.st_ino))
    return frozenset(found)


def _list(path: str, out: WalkStep, within: Confinement) -> tuple[tuple[FileStat, ...], list[str]] | None:
    """The relevant files and the subdirectories of ``path``; None if unreadable."""
    files: list[FileStat] = []
    subdirs: list[str] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_symlink() and not _link_inside(entry, within, out):
                    continue
                _take(entry, files, subdirs, out)
    except FileNotFoundError:
        return None
    except OSError as exc:
        _unreadable(from_fs(path), exc, out)
        return None
    files.sort(key=lambda f: f.name)
    return tuple(files), subdirs


def _take(entry: os.DirEntry[str], files: list[FileStat], subdirs: list[str], out: WalkStep) -> None:
    name = entry.name
    if name.startswith("."):
        return
    try:
        if entry.is_dir():
            subdirs.append(name)
            return
        dot = name.rfind(".")
        if dot <= 0 or name[dot:].lower() not in RELEVANT_SUFFIXES:
            if entry.is_symlink() and not os.path.exists(entry.path):
                out.errors.append(WalkError(from_fs(entry.path), "Dangling symbolic link: its target does not exist."))
            return
        info = entry.stat()
    except FileNotFoundError:
        if entry.is_symlink():
            out.errors.append(WalkError(from_fs(entry.path), "Dangling symbolic link: its target does not exist."))
        return
    except OSError as exc:
        out.errors.append(WalkError(from_fs(entry.path), _describe(exc)))
        return
    if stat.S_ISREG(info.st_mode):
        files.append(FileStat(from_fs(name), info.st_size, info.st_mtime_ns // NS_PER_MS))


def _link_inside(entry: os.DirEntry[str], within: Confinement, out: WalkStep) -> bool:
    """Whether a symbolic link stays inside; one leading out is reported (unless hidden)."""
    if resolves_inside(entry.path, within):
        return True
    if not entry.name.startswith("."):
        out.errors.append(WalkError(from_fs(entry.path), OUTSIDE_ROOTS))
    return False


def _describe(exc: OSError) -> str:
    reason = exc.strerror or type(exc).__name__
    return f"{reason} (errno {exc.errno})" if exc.errno is not None else reason


def read_file(path: str, max_bytes: int, within: Confinement) -> bytes:
    """At most ``max_bytes + 1`` bytes of the file at ``path`` (path text) inside ``within``.

    At most one byte more than ``max_bytes``, so "too large" can be told.

    Raises OSError (OutsideRoots when it resolves outside). Blocking: call
    it from a worker thread.
    """
    return read_confined(to_fs(path), within, max_bytes)


def read_whole(path: str, within: Confinement) -> bytes:
    """A whole file (path text) inside ``within`` (images, for their content hash). Raises OSError."""
    return read_confined(to_fs(path), within)


def list_directory(root: str, rel: str, within: Confinement) -> tuple[Listing | None, list[WalkError]]:
    """One directory's listing outside a walk (None when it cannot be read)."""
    out = WalkStep()
    listed = _list(join_path(to_fs(root), to_fs(rel)), out, within)
    return (Listing(root, rel, listed[0]) if listed else None), out.errors
