"""The kernel's inotify limits: probing for them and recognising them in a watcher's error.

A root that hits a limit is reported ``limit`` (reason ``watch_limit``) with
a message naming the sysctl an administrator raises.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
from pathlib import Path
from typing import Literal

MAX_USER_WATCHES_PATH = "/proc/sys/fs/inotify/max_user_watches"
MAX_USER_INSTANCES_PATH = "/proc/sys/fs/inotify/max_user_instances"

LimitKind = Literal["watches", "instances"]

LIMIT_MESSAGES: dict[LimitKind, str] = {
    "watches": (
        "inotify watch limit reached: raise fs.inotify.max_user_watches "
        f"({MAX_USER_WATCHES_PATH}); realtime monitoring is off for this root"
    ),
    "instances": (
        "inotify instance limit reached: raise fs.inotify.max_user_instances "
        f"({MAX_USER_INSTANCES_PATH}) or the open-file limit; realtime "
        "monitoring is off for this root"
    ),
}
_WATCH_LIMIT_HINTS = ("maxfileswatch", "watch limit", "os error 28", "no space left on device")
_INSTANCE_LIMIT_HINTS = ("too many open files", "os error 24")
_IN_DELETE_SELF = 0x400


def inotify_watches_exhausted(path: Path) -> bool:
    """Blocking. True when this user cannot add one more inotify watch.

    The watcher drops watches it cannot add for directories created while
    it runs, silently; this probe (add one watch on ``path`` in a fresh
    instance, then close it) is how the limit still gets reported. False
    when inotify is unavailable.
    """
    libc = _libc()
    if libc is None:
        return False
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        return False
    try:
        return libc.inotify_add_watch(fd, os.fsencode(path), _IN_DELETE_SELF) < 0 and (
            ctypes.get_errno() == errno.ENOSPC
        )
    finally:
        os.close(fd)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    return libc if hasattr(libc, "inotify_add_watch") else None


def watch_limit_kind(exc: BaseException) -> LimitKind | None:
    """Which inotify limit ``exc`` reports, if any.

    OSError with ``ENOSPC`` / ``EMFILE`` (what watchdog raises), or an
    OSError or RuntimeError whose text names the limit (what watchfiles, the
    earlier watcher, raised).
    """
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "watches"
    if isinstance(exc, OSError) and exc.errno == errno.EMFILE:
        return "instances"
    if not isinstance(exc, OSError | RuntimeError):
        return None
    text = str(exc).lower()
    if any(hint in text for hint in _WATCH_LIMIT_HINTS):
        return "watches"
    if any(hint in text for hint in _INSTANCE_LIMIT_HINTS):
        return "instances"
    return None
