"""Nice values of the server's own background threads (Linux sets them per thread).

On two cores, a request arriving during two scans waits for a CPU: the
event loop's thread competes with the SQLite writer's thread, the scans'
readers and the parser processes. Threads that do background work take a
higher nice value from their start, so the scheduler hands the CPU to the
loop's thread first when a request arrives, and the background work takes
what the loop leaves (on an idle machine, all of it: nice only weighs
threads that want the CPU at the same time).

The value is added to the thread's own, never lowered: an unprivileged
process may raise its threads' nice values but not take them back.
Elsewhere than Linux (``setpriority`` there sets the whole process's
priority) nothing changes.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger(__name__)

MAX_NICENESS = 19
WRITER_NICENESS = 0
"""The SQLite writer's thread: the process's priority. It commits every write, a request's too, and a
small write waits for the bulk commit under way: niced +5 (parsers +5), two scans under load delivered
their final events 2.4-3.9 s late (0.01-1.1 s at 0), and a request's write would wait as long."""
CHECKPOINT_NICENESS = 5
"""The WAL checkpoints' thread (storage._sqlite_checkpoint): a late checkpoint only lets the WAL grow a little."""
BACKGROUND_READER_NICENESS = 5
"""The scans' reader threads (storage._read_lane): a library's whole index, its images, what is left to probe."""


def lower_current_thread(niceness: int) -> bool:
    """Add ``niceness`` to the calling thread's nice value (capped at 19); True when it took effect.

    Call it from the thread itself, at its start. Only on Linux, where the
    nice value belongs to the thread; elsewhere, or when the system refuses,
    nothing changes (the thread works as before, at the process's priority).
    """
    if niceness <= 0 or not sys.platform.startswith("linux"):
        return False
    tid = threading.get_native_id()
    try:
        current = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(MAX_NICENESS, current + niceness))
    except OSError as exc:  # a sandbox that forbids it: the thread keeps the process's priority
        log.debug("could not lower the priority of thread %s: %s", threading.current_thread().name, exc)
        return False
    return True
