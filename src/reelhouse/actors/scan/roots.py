"""Root checks before a scan walks: is each library root there?

A root that is gone, unreadable or not a directory is offline, and so is
an *empty* root while the catalogue still has present items under it:
the classic disk that is not mounted, where walking would turn every item
missing. An offline root is reported (RootStatus) and skipped; none of
its items turns missing.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio

from reelhouse.media.file_names import to_fs

# errno values that mean the file system behind the path went away.
UNMOUNTED_ERRNOS = frozenset({errno.ENOTCONN, errno.ESTALE, errno.ENODEV, errno.EHOSTDOWN})


@dataclass(frozen=True, slots=True)
class RootState:
    """One root's check: ``reason_code`` is a RootErrorCode when offline."""

    path: str
    online: bool
    checked_at_ms: int
    reason_code: str | None = None  # not_found, permission_denied, not_directory, not_mounted, unknown
    message: str | None = None


def check_root(path: str, *, has_items: bool) -> RootState:
    """Check one root (blocking: run it in a worker thread).

    ``has_items``: the catalogue has present items under this root, so an
    empty directory means "not mounted". Never raises for a file system
    error: every failure is a RootState.
    """
    now = time.time_ns() // 1_000_000
    try:
        info = os.stat(to_fs(path))  # path text -> the name on disk
        if not stat.S_ISDIR(info.st_mode):
            return RootState(path, False, now, "not_directory", "The library folder is not a directory.")
        with os.scandir(to_fs(path)) as entries:
            empty = next(iter(entries), None) is None
    except OSError as exc:
        code, message = _failure(exc)
        return RootState(path, False, now, code, message)
    if empty and has_items:
        return RootState(
            path, False, now, "not_mounted",
            "The library folder is empty but the library has items there; is the disk mounted?",
        )  # fmt: skip
    return RootState(path, True, now)


def _failure(exc: OSError) -> tuple[str, str]:
    text = f"{exc.strerror or type(exc).__name__} (errno {exc.errno})"
    if isinstance(exc, FileNotFoundError):
        return "not_found", f"The library folder does not exist: {text}."
    if isinstance(exc, PermissionError):
        return "permission_denied", f"The library folder cannot be read: {text}."
    if isinstance(exc, NotADirectoryError):
        return "not_directory", f"The library folder is not a directory: {text}."
    if exc.errno in UNMOUNTED_ERRNOS:
        return "not_mounted", f"The library folder's file system is not available: {text}."
    return "unknown", f"The library folder cannot be used: {text}."


async def check_roots(
    roots: Sequence[str], has_items: Callable[[str], bool], *, limiter: trio.CapacityLimiter
) -> list[RootState]:
    """Check every root in one worker-thread hop, in order."""

    def check_all() -> list[RootState]:
        return [check_root(root, has_items=has_items(root)) for root in roots]

    return await trio.to_thread.run_sync(check_all, limiter=limiter)
