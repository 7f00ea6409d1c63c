"""Dedicated worker threads fed from one queue: a cheaper hop than ``trio.to_thread``.

Each thread owns one piece of state for its whole life (an SQLite reader
connection, say) and takes jobs ``fn(state)`` from a shared FIFO queue; the
answer goes back to the waiting task through the Trio token.  Measured on
this project's 2-core machine, with the event loop busy: a point read through
``trio.to_thread.run_sync`` costs about 330 us of CPU per hop, through this
pool about 100-130 us.  ``to_thread`` hands every job to a cached thread (a
lock hand-off, a thread rename, a cancellation and ``from_thread`` channel per
call); here a job is one queue put and one ``run_sync_soon``, and a thread
that finishes a job takes the next queued one without going to sleep.

Contract of :meth:`ThreadPool.run`:

- it is a checkpoint: it raises Cancelled at once if the caller is already
  cancelled, and always yields;
- a caller cancelled while its job is queued or running waits for the job to
  finish (a thread cannot be interrupted safely), then raises Cancelled;
  with ``abandon_on_cancel=True`` it raises Cancelled at once instead and
  the job's result is dropped (a queued job is then skipped);
- whatever ``fn`` raises is raised in the caller.

The pool is created inside ``trio.run`` and closed by :meth:`aclose`, which
stops and joins its threads (after the jobs queued before it); a job
submitted after that raises :class:`PoolClosed`.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import outcome
import trio

from reelhouse.loop.thread_priority import lower_current_thread

S = TypeVar("S")
T = TypeVar("T")


class PoolClosed(RuntimeError):
    """A job was submitted to a closed pool."""


@dataclass(eq=False, slots=True)
class _Job:
    fn: Callable[[Any], Any]
    task: trio.lowlevel.Task
    abandoned: bool = False  # written on the loop thread; a worker only reads it
    raise_cancel: Callable[[], Any] | None = None


_STOP = object()


class ThreadPool(Generic[S]):
    """One thread per element of ``states``; ``await run(fn)`` runs ``fn(state)`` on one of them."""

    def __init__(self, states: Sequence[S], *, name: str, niceness: int = 0) -> None:
        """``niceness``: added to each thread's nice value at its start (:mod:`reelhouse.loop.thread_priority`)."""
        if not states:
            raise ValueError("a thread pool needs at least one thread")
        self._token = trio.lowlevel.current_trio_token()
        self._jobs: queue.SimpleQueue[_Job | object] = queue.SimpleQueue()
        self._closed = False
        self._outstanding = 0  # jobs submitted and not yet answered (read by metrics)
        self._niceness = niceness
        self._threads = [
            threading.Thread(target=self._work, args=(state,), name=f"{name}-{i}", daemon=True)
            for i, state in enumerate(states)
        ]
        for thread in self._threads:
            thread.start()

    async def run(self, fn: Callable[[S], T], *, abandon_on_cancel: bool = False) -> T:
        """``fn(state)`` on a pool thread; its result, or what it raised (see the module doc)."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if self._closed:
            raise PoolClosed("the thread pool is closed")
        job = _Job(fn, trio.lowlevel.current_task())

        def abort(raise_cancel: Callable[[], Any]) -> trio.lowlevel.Abort:
            if abandon_on_cancel:
                job.abandoned = True
                return trio.lowlevel.Abort.SUCCEEDED
            job.raise_cancel = raise_cancel
            return trio.lowlevel.Abort.FAILED

        self._jobs.put(job)
        self._outstanding += 1
        try:
            return await trio.lowlevel.wait_task_rescheduled(abort)
        finally:
            self._outstanding -= 1

    @property
    def size(self) -> int:
        return len(self._threads)

    @property
    def outstanding(self) -> int:
        """Jobs running or queued (their callers wait): over ``size``, the rest wait for a thread."""
        return self._outstanding

    async def call(self, fn: Callable[..., T], *args: Any, abandon_on_cancel: bool = False) -> T:
        """``fn(*args)`` on a pool thread, ignoring its state: for pools of plain threads."""
        return await self.run(lambda _state: fn(*args), abandon_on_cancel=abandon_on_cancel)

    async def aclose(self, timeout: float | None = None) -> bool:
        """Refuse new jobs, let the queued ones finish, then stop and join the threads.

        Waits at most ``timeout`` seconds in all (None: as long as it takes);
        True when every thread has stopped.  A thread still stuck in a job
        (a read from a hung network mount) is left behind: the threads are
        daemons, so it does not keep the process alive.  Idempotent.  The
        pool is marked closed on the loop thread, where ``run`` checks it,
        so no job can be queued behind the threads' stop signals.
        """
        if not self._closed:
            self._closed = True
            for _ in self._threads:
                self._jobs.put(_STOP)
        return await trio.to_thread.run_sync(self._join, timeout)

    def _join(self, timeout: float | None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in self._threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads)

    def _work(self, state: S) -> None:
        lower_current_thread(self._niceness)
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            assert isinstance(job, _Job)
            if job.abandoned:
                continue
            result = outcome.capture(job.fn, state)
            try:
                self._token.run_sync_soon(_deliver, job, result)
            except trio.RunFinishedError:
                return  # the loop is gone: nobody is waiting any more


def _deliver(job: _Job, result: outcome.Outcome[Any]) -> None:
    """On the loop thread: wake the job's task, unless it gave up on the job."""
    if job.abandoned:
        return
    if job.raise_cancel is not None:
        result = outcome.capture(job.raise_cancel)
    trio.lowlevel.reschedule(job.task, result)
