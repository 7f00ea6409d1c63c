"""A loop's share of the event loop: checkpoint once it has run for a slice of time.

A task that walks thousands of works, items or files on the event loop's
thread holds every other task (requests included) until it awaits
something that really yields.  An ``await`` that finds its answer at once
(a cache hit, a cached check, a mailbox with room) is no checkpoint, so
such a loop can run for half a second without one (issue #29: the poster
pre-generation walked about 7,000 works in 509-575 ms).  A
:class:`TimeSlice` costs one clock read per step and yields to the
scheduler whenever :data:`SLICE_SECONDS` have passed since the last time
it did, so the loop's share stays far under the loop-stall watchdog's
threshold (``reelhouse.watchdog``), however many steps there are and
however cheap each one is.
"""

from __future__ import annotations

import time

import trio

SLICE_SECONDS = 0.01
"""Run this long, at most, between two checkpoints (a tenth of the watchdog's threshold)."""


class TimeSlice:
    """Call :meth:`step` once per iteration of a loop that runs on the event loop."""

    def __init__(self, seconds: float = SLICE_SECONDS) -> None:
        self._seconds = seconds
        self._since = time.perf_counter()

    async def step(self) -> bool:
        """Yield to the other tasks when this slice is used up; True when it did.

        A checkpoint when it yields (cancellation is delivered there), else
        it returns at once without one.
        """
        now = time.perf_counter()
        if now - self._since < self._seconds:
            return False
        await trio.lowlevel.checkpoint()
        self._since = time.perf_counter()
        return True
