"""Opening library files only where the containment rule allows (and creating them, for writeBack).

The rule is :mod:`reelhouse.media.containment`; this is its file-system
side, for every reader of library files (the scan's NFO, image and
``.strm`` reads, the image endpoint, and a future stream route).

A path checked and then opened can be swapped in between (a symbolic link
replaced after the scan, or between two system calls), so the check that
counts is made on the *opened* descriptor: its real path as the kernel
reports it (``/proc/self/fd/N``), or, where that is unavailable, the real
path of the name compared with the descriptor's device and inode.  Only
regular files are opened (a FIFO would block the reading thread).

Everything here blocks: call it from a worker thread.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from reelhouse.media.containment import Confinement, fences, is_under, refused_root

READ_CHUNK = 256 * 1024
PROC_FDS = "/proc/self/fd"  # where Linux tells the path of an open descriptor
_OPEN_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)


class OutsideRoots(OSError):
    """The file resolves outside the library's roots (or into a fenced directory)."""

    def __init__(self) -> None:
        super().__init__("the file resolves outside the library's folders")


def confinement_for(roots: Iterable[str], data_dir: str | os.PathLike[str] | None) -> Confinement:
    """A library's confinement: its roots and the fences, resolved now."""
    real_data = () if data_dir is None else (os.path.realpath(data_dir),)
    return Confinement(tuple(os.path.realpath(root) for root in roots), fences(*real_data))


def root_refusal(root: str, data_dir: str | os.PathLike[str] | None) -> str | None:
    """Why ``root`` may not be a library root (see :func:`~reelhouse.media.containment.refused_root`)."""
    forms = (os.path.normpath(root), os.path.realpath(root))
    data_forms = () if data_dir is None else (os.path.abspath(data_dir), os.path.realpath(data_dir))
    return refused_root(forms, fences(*data_forms))


def fenced_forms(roots: Iterable[str], data_dir: str | os.PathLike[str] | None) -> tuple[str, ...]:
    """The paths by which the data directory shows under ``roots`` (as a watcher of them names it)."""
    if data_dir is None:
        return ()
    real_data = os.path.realpath(data_dir)
    forms = [os.path.abspath(data_dir), real_data]
    for root in roots:
        real_root = os.path.realpath(root)
        if is_under(real_data, real_root):
            forms.append(os.path.normpath(os.path.join(root, os.path.relpath(real_data, real_root))))
    return tuple(dict.fromkeys(forms))


def resolves_inside(path: str | os.PathLike[str], within: Confinement) -> bool:
    """Whether ``path``'s real path is allowed now (for walking; readers use :func:`open_confined`)."""
    return within.allows(os.path.realpath(path))


def open_confined(path: str | os.PathLike[str], within: Confinement) -> int:
    """A read-only descriptor on ``path``, a regular file resolving inside ``within``.

    Raises OutsideRoots, FileNotFoundError (also for a non-regular file) or
    another OSError.  The caller closes the descriptor.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileNotFoundError(f"not a regular file: {os.fspath(path)!r}")
        if not within.allows(_descriptor_path(fd, path, info)):
            raise OutsideRoots()
        return fd
    except BaseException:
        os.close(fd)
        raise


def read_confined(path: str | os.PathLike[str], within: Confinement, max_bytes: int | None = None) -> bytes:
    """The file's bytes (at most ``max_bytes + 1``, so "too large" can be told).

    Raises as :func:`open_confined`.  Plain ``os`` calls: a buffered file
    object costs more than reading a small file.
    """
    fd = open_confined(path, within)
    try:
        chunks: list[bytes] = []
        left = max_bytes + 1 if max_bytes is not None else None
        while left is None or left > 0:
            chunk = os.read(fd, READ_CHUNK if left is None else min(left, READ_CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _descriptor_path(fd: int, path: str | os.PathLike[str], info: os.stat_result) -> str:
    """The real path of the file open on ``fd``."""
    try:
        return os.readlink(f"{PROC_FDS}/{fd}")
    except OSError:
        pass
    real = os.path.realpath(path)
    try:
        named = os.stat(real)
    except OSError:
        return ""  # gone meanwhile: allowed nowhere
    if (named.st_dev, named.st_ino) != (info.st_dev, info.st_ino):
        return ""  # swapped between the open and the check
    return real


def create_confined(directory: str | os.PathLike[str], name: str, data: bytes, within: Confinement) -> None:
    """Create the file ``directory/name`` holding ``data``, never replacing anything.

    For writeBack next to the media.  The directory is opened and checked
    on its descriptor (so a directory swapped for a link after a check is
    not followed out), the bytes go to a temporary file in it, and that is
    hard-linked to ``name``: the link fails with FileExistsError when
    ``name`` exists (a file, a directory or a dangling link), so an existing
    file is never touched and no half-written file ever shows under
    ``name``.  Raises OutsideRoots, FileExistsError or another OSError.
    """
    if not name or "/" in name or name in (".", ".."):
        raise OutsideRoots()
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        info = os.fstat(dir_fd)
        if not within.allows(_descriptor_path(dir_fd, directory, info)):
            raise OutsideRoots()
        temporary = f".{name}.{os.urandom(4).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
        fd = os.open(temporary, flags, 0o644, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.link(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        finally:
            try:
                os.unlink(temporary, dir_fd=dir_fd)
            except OSError:
                pass
    finally:
        os.close(dir_fd)
