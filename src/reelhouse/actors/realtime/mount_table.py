"""Which file system holds a root, from this process's mount table (blocking reads).

The table is parsed and classified by the pure :mod:`reelhouse.media.mounts`;
this module only reads it. It is read again on every attempt to watch a
root, so a share mounted after start-up is noticed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from reelhouse.media.mounts import WatchSupport, mount_for, parse_mountinfo, watch_support

log = logging.getLogger(__name__)

MOUNTINFO_PATH = "/proc/self/mountinfo"


def read_mountinfo() -> str:
    """This process's mount table (blocking)."""
    return Path(MOUNTINFO_PATH).read_text(encoding="utf-8", errors="surrogateescape")


def root_watch_support(root: Path, mountinfo_reader: Callable[[], str]) -> WatchSupport:
    """Blocking. Whether inotify can watch ``root``, judged by its file system."""
    fs_type = _fs_type_of(root, mountinfo_reader)
    return watch_support(fs_type) if fs_type is not None else WatchSupport(supported=True)


def _fs_type_of(root: Path, mountinfo_reader: Callable[[], str]) -> str | None:
    """The type of the file system holding ``root``; None if unknown."""
    try:
        text = mountinfo_reader()
    except OSError as exc:
        # No mount table (not Linux, no /proc): assume local, as most roots are.
        log.debug("Cannot read the mount table, assuming %s is local: %s", root, exc)
        return None
    mount = mount_for(os.path.realpath(root), parse_mountinfo(text))
    return mount.fs_type if mount is not None else None
