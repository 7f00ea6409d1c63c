"""A watchdog for the event loop: which task blocked it, and how late it ran.

Two measures, because a late loop has two causes that call for different
actions:

- A task that ran one step longer than ``STALL_THRESHOLD_SECONDS`` without
  yielding (blocking work that belongs in a worker thread: a synchronous
  read, a CPU-bound parse, loading a CA bundle) is a defect of the server.
  A Trio instrument times every task step and logs that as a warning that
  names the task: ``event loop blocked for 140 ms (0 ms waiting for a CPU)
  by reelhouse.actors...``.
- A ticker that should wake every ``TICK_SECONDS`` and woke late without
  such a step means the process waited for a CPU (a busy machine) or for
  the GIL (its own worker threads): nothing in the loop to fix. Logged at
  debug level only; the lateness still counts, as ``stalls`` and in the
  loop lag that GET /metrics reports.

A step can also run long because the loop's thread was taken off the CPU
in the middle of it (two cores, scans and other processes beside it): Linux
counts, per thread, the time it waited on a run queue (``schedstat``). The
watchdog reads it at every tick; a long step whose length less the wait
since the last tick is under the threshold was preempted, not blocking, and
is logged at debug level (``preempted`` counts it). The wait since the tick
may include a little from steps before this one, so a step blocking just
over the threshold while the loop also waited for a CPU can pass as
preempted; a step blocking well over it (a synchronous read, a parse) is
still named in a warning, as are steps waiting for the GIL.

Warnings start once the server serves (``serving``): start-up work
(migrations, building the app) keeps no client waiting and is logged at
debug level.

Measured on this machine (2 cores, load 8 to 16): the stalls at start came
from building HTTP clients on the loop (their SSL context loads the CA
bundle: 30-90 ms of CPU, 100-500 ms under load; now in worker threads);
the first GET /openapi.json built the document on the loop (819 ms under
load; now built once in a worker thread); an idle server then logged
100-260 ms "stalls" with no task step over 30 ms: waits for a CPU, no
longer warnings.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable

import trio

log = logging.getLogger("reelhouse.watchdog")

TICK_SECONDS = 0.02
STALL_THRESHOLD_SECONDS = 0.1
SCHEDSTAT = "/proc/thread-self/schedstat"  # CPU time, run-queue wait (ns), time slices of the calling thread


class RunQueueWait:
    """Seconds the thread that first reads it has waited on a run queue since it started.

    The ticker reads it 50 times a second on the loop's thread: the file is
    opened at the first read (``thread-self`` names the opener) and read again
    from its start, not opened each time (the open was 2-3 % of a busy loop's
    samples during a scrape). ``close`` gives the descriptor back: a test
    process runs many servers, each on a thread of its own.
    """

    def __init__(self) -> None:
        self._fd: int | None = None

    def __call__(self) -> float | None:
        """None where unknown (not Linux, or no scheduler statistics)."""
        try:
            if self._fd is None:
                self._fd = os.open(SCHEDSTAT, os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(self._fd, 256, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def run_queue_wait() -> float | None:
    """Seconds the calling thread has waited on a run queue since it started; None where unknown."""
    reader = RunQueueWait()
    try:
        return reader()
    finally:
        reader.close()


class LoopWatchdog(trio.abc.Instrument):
    def __init__(
        self, threshold: float = STALL_THRESHOLD_SECONDS, waited: Callable[[], float | None] | None = None
    ) -> None:
        """``waited``: the loop thread's run-queue wait so far (default :class:`RunQueueWait`; tests pass their own)."""
        self.threshold = threshold
        self.max_stall = 0.0
        self.stalls = 0  # the ticker woke more than ``threshold`` late (for any reason)
        self.blocked = 0  # a task step ran longer than ``threshold``, not for want of a CPU
        self.preempted = 0  # a task step ran longer only because the loop's thread waited for a CPU
        self._reader: RunQueueWait | None = None  # the watchdog's own, closed when run() ends
        if waited is None:
            waited = self._reader = RunQueueWait()
        self._waited = waited
        self._waited_at_tick: float | None = None  # read on the loop's thread, at every tick
        self._recent_max = 0.0  # the largest lateness since take_recent_max() last read it
        self._step_started = 0.0
        self._last_blocked_at = 0.0
        # Set once the server serves: before, a long step (migrations, building the app) keeps no
        # client waiting, and is logged at debug level only.
        self.serving = False

    def take_recent_max(self) -> float:
        """The largest lateness (seconds) since the previous call: the loop lag a metrics scrape reports."""
        recent, self._recent_max = self._recent_max, 0.0
        return recent

    async def run(self) -> None:
        """Watch until cancelled."""
        self._step_started = time.perf_counter()  # this step began before the instrument was added
        self._waited_at_tick = self._waited()
        trio.lowlevel.add_instrument(self)
        try:
            await self._tick_forever()
        finally:
            trio.lowlevel.remove_instrument(self)
            if self._reader is not None:
                self._reader.close()

    async def _tick_forever(self) -> None:
        while True:
            expected = trio.current_time() + TICK_SECONDS
            await trio.sleep(TICK_SECONDS)
            late = trio.current_time() - expected
            self._waited_at_tick = self._waited()
            self.max_stall = max(self.max_stall, late)
            self._recent_max = max(self._recent_max, late)
            if late > self.threshold:
                self.stalls += 1
                if time.perf_counter() - self._last_blocked_at > late + TICK_SECONDS:
                    log.debug("event loop ran %d ms late: the process waited for a CPU or the GIL", late * 1000)

    # trio.abc.Instrument: called on the loop thread around every task step.
    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self._step_started = time.perf_counter()

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        now = time.perf_counter()
        took = now - self._step_started
        if took <= self.threshold:
            return
        waited = self._waited_since_tick(took)
        if took - waited <= self.threshold:
            self.preempted += 1
            log.debug("a step of %s took %d ms, %d ms of it waiting for a CPU", task.name, took * 1000, waited * 1000)
            return
        self.blocked += 1
        self._last_blocked_at = now
        level = logging.WARNING if self.serving else logging.DEBUG
        message = "event loop blocked for %d ms (%d ms waiting for a CPU) by %s"
        log.log(level, message, took * 1000, waited * 1000, task.name)

    def _waited_since_tick(self, took: float) -> float:
        """The loop thread's run-queue wait since the last tick, at most ``took``; 0 when unknown."""
        now, before = self._waited(), self._waited_at_tick
        if now is None or before is None:
            return 0.0
        return min(max(now - before, 0.0), took)
