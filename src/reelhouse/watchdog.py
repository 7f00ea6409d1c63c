"""A watchdog for the event loop: reports when the loop was blocked.

A task that should wake every ``TICK_SECONDS`` measures how late it woke;
lateness over ``STALL_THRESHOLD_SECONDS`` means something held the loop
(blocking work that belongs in a worker thread) and is logged as a warning
(``event loop stalled for N ms``) so operators and benchmarks can see it.
"""

from __future__ import annotations

import logging

import trio

log = logging.getLogger("reelhouse.watchdog")

TICK_SECONDS = 0.02
STALL_THRESHOLD_SECONDS = 0.1


class LoopWatchdog:
    def __init__(self, threshold: float = STALL_THRESHOLD_SECONDS) -> None:
        self.threshold = threshold
        self.max_stall = 0.0
        self.stalls = 0
        self._recent_max = 0.0  # the largest lateness since take_recent_max() last read it

    def take_recent_max(self) -> float:
        """The largest lateness (seconds) since the previous call: the loop lag a metrics scrape reports."""
        recent, self._recent_max = self._recent_max, 0.0
        return recent

    async def run(self) -> None:
        """Watch until cancelled."""
        while True:
            expected = trio.current_time() + TICK_SECONDS
            await trio.sleep(TICK_SECONDS)
            late = trio.current_time() - expected
            self.max_stall = max(self.max_stall, late)
            self._recent_max = max(self._recent_max, late)
            if late > self.threshold:
                self.stalls += 1
                log.warning("event loop stalled for %d ms", int(late * 1000))
