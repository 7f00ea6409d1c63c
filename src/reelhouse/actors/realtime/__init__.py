"""The realtime monitor: a library's roots watched with inotify, changes debounced into rescans.

- :mod:`.monitor`: :class:`RootMonitor`, run by the library's actor while
  ``realtimeMonitor`` is on (one watcher thread per root, retries, status);
- :mod:`.watchdog_watch`: the watcher (watchdog's inotify observer as
  batches of changes);
- :mod:`.debounce`: batches merged per quiet period;
- :mod:`.status`: each root's state and the one status a library reports;
- :mod:`.inotify`: the kernel's watch limits, probed and recognised;
- :mod:`.mount_table`: which file system holds a root (network and FUSE
  file systems are not watched; the rule is :mod:`reelhouse.media.mounts`).
"""

from .monitor import RootMonitor
from .status import WatchStatus

__all__ = ["RootMonitor", "WatchStatus"]
