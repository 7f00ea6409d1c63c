"""The nice value Linux holds for one thread of this process."""

from __future__ import annotations


def thread_niceness(native_id: int) -> int:
    """Field 19 of the thread's ``/proc`` stat line (the name before it may hold spaces)."""
    with open(f"/proc/self/task/{native_id}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return int(fields[16])  # fields[0] is the state, field 3 of the line
