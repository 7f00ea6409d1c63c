"""The probe workers: long-lived processes reading media info, supervised.

A :class:`ProbePool` keeps up to ``slots`` worker processes
(``media.probe_worker``), one per probe slot of the server (config
``scan.probe_concurrency``; the callers bound themselves by a library's
read concurrency and the server-wide limiter, as they always did). A
worker is started on first use and kept, so a scan pays for process
start-up once, not once per file; one idle for :data:`IDLE_SECONDS` is
let go.

:meth:`ProbePool.probe` hands a worker a batch of paths and reads its
answers one by one. A worker that hangs on a file for longer than the
probe timeout, or dies on it, is killed: that file gets ``timeout``, or
``invalid`` when the worker crashed (a fatal signal: the file broke the C
library), or ``unknown``; the rest of the batch goes to a fresh worker.
A worker that cannot start fails the batch's files with ``unknown``.

Workers run as ``trio.run_process`` tasks in the pool's nursery: leaving
:func:`open_probe_pool` (or cancelling :func:`run_probe_pool`) kills them
and waits for them, and a worker whose server was killed exits on its own
(``probe_worker``). A caller cancelled mid-batch kills its worker too: its
answers would come after the caller stopped reading.
"""

from __future__ import annotations

import functools
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import trio

from reelhouse.media.probe import ProbeFailure, ProbeResult
from reelhouse.media.probe_worker import WORKER_ENTRY, FrameDecoder, decode_answer, encode_request

from .parser_process import _child_env

START_TIMEOUT_S = 30.0  # a worker's time to import and say it is ready
EXIT_WAIT_S = 2.0  # how long a dead worker's exit status is waited for
IDLE_SECONDS = 300.0  # the status check probes every minute: one worker stays warm
READ_CHUNK_BYTES = 256 * 1024
CHUNK = 16  # paths per request; a worker holds one, and the next is queued
# Signals of a crash in the worker's own code: the file it read broke it.
CRASH_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGILL})
DEFAULT_COMMAND: tuple[str, ...] = (sys.executable, "-c", WORKER_ENTRY)


@dataclass(frozen=True, slots=True)
class Probed:
    """One probe: media info, or why there is none."""

    result: ProbeResult | None = None
    failure: ProbeFailure | None = None
    message: str = ""


class WorkerUnavailable(Exception):
    """A probe worker could not start (or died before it was ready)."""


class _Worker:
    """The server's end of one worker process."""

    def __init__(self, process: trio.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.versions: dict[str, str] = {}
        self.idle_since = trio.current_time()
        self._send_stream = process.stdin
        self._receive_stream = process.stdout
        self._decoder = FrameDecoder()
        self.garbled = False

    async def next_message(self) -> tuple[str, Any] | None:
        """The worker's next answer; None when it closed its output (it died)
        or sent what no worker sends."""
        while True:
            try:
                body = self._decoder.next_body()
                if body is not None:
                    return decode_answer(body)
            except ValueError:
                self.garbled = True  # what no worker sends: treated as a dead worker
                return None
            try:
                chunk = await self._receive_stream.receive_some(READ_CHUNK_BYTES)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return None
            if not chunk:
                return None
            self._decoder.feed(chunk)

    async def send(self, paths: Sequence[str]) -> bool:
        try:
            await self._send_stream.send_all(encode_request(paths))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False  # it is gone: reading its answer says how
        return True

    async def probe(self, paths: Sequence[str], timeout: float, on_answer: Callable[[Probed], None]) -> Probed | None:
        """Answers for ``paths`` in order, each given to ``on_answer``.

        Stops at the first path that lost the worker (it hung or died on
        it) and returns that path's failure; the worker is then unusable.
        None when every path was answered.
        """
        # Requests of CHUNK paths, the next one always queued before the
        # worker runs out: it never waits for this process between chunks.
        chunks = [paths[start : start + CHUNK] for start in range(0, len(paths), CHUNK)]
        for chunk in chunks[:2]:
            await self.send(chunk)
        for index in range(len(paths)):
            if index % CHUNK == 0 and 0 < index and index // CHUNK + 1 < len(chunks):
                await self.send(chunks[index // CHUNK + 1])
            message, timed_out = None, True
            with trio.move_on_after(timeout):
                message = await self.next_message()
                timed_out = False
            if timed_out:
                return Probed(failure=ProbeFailure.TIMEOUT, message=f"no answer within {timeout:g} s")
            if message is None:
                return await self._death()
            on_answer(_probed(message))
        self.idle_since = trio.current_time()
        return None

    async def _death(self) -> Probed:
        if self.garbled:
            return Probed(failure=ProbeFailure.UNKNOWN, message="the probe worker answered what no worker sends")
        with trio.move_on_after(EXIT_WAIT_S):
            await self.process.wait()
        code = self.process.returncode
        if code is not None and code < 0 and -code in CRASH_SIGNALS:
            name = signal.Signals(-code).name
            return Probed(failure=ProbeFailure.INVALID, message=f"the probe worker crashed reading this file ({name})")
        return Probed(failure=ProbeFailure.UNKNOWN, message=f"the probe worker died (exit status {code})")

    async def close(self, *, kill: bool = False) -> None:
        """End of input, so the worker returns (its task reaps it); ``kill``: at once.

        Never blocks, even when cancelled: our ends of the pipes are closed.
        """
        if kill and self.process.returncode is None:
            self.process.kill()
        with trio.CancelScope(shield=True):
            await self._send_stream.aclose()
            await self._receive_stream.aclose()


class ProbePool:
    """Up to ``slots`` probe workers, started on demand; see the module."""

    def __init__(
        self,
        nursery: trio.Nursery,
        slots: int,
        *,
        timeout: float,
        command: Sequence[str] = DEFAULT_COMMAND,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self._nursery = nursery
        self._limiter = trio.CapacityLimiter(max(1, slots))
        self._timeout = timeout
        self._command = list(command)
        self._idle_seconds = idle_seconds
        self._idle: list[_Worker] = []
        self._warming = 0  # workers being started ahead of need (warm)
        self._warmed = trio.Event()  # set (and replaced) whenever one of those is done
        self.started = 0  # workers started so far (for tests and the status check)
        self.versions: dict[str, str] = {}

    @property
    def pids(self) -> list[int]:
        """The idle workers' process ids (busy ones are their callers')."""
        return [w.process.pid for w in self._idle]

    async def probe(self, paths: Sequence[str], on_answer: Callable[[int, Probed], None] | None = None) -> list[Probed]:
        """One Probed per path, in order; never raises for a failed probe.

        ``on_answer(i, probed)`` is called as each answer comes. Cancellation
        kills the worker in use and raises.
        """
        results: list[Probed] = []
        async with self._limiter:
            while len(results) < len(paths):
                try:
                    worker = await self._checkout()
                except WorkerUnavailable as exc:
                    failed = Probed(failure=ProbeFailure.UNKNOWN, message=str(exc))
                    while len(results) < len(paths):
                        _record(results, failed, on_answer)
                    break
                try:
                    lost = await worker.probe(
                        paths[len(results) :], self._timeout, lambda a: _record(results, a, on_answer)
                    )
                except BaseException:
                    await worker.close(kill=True)
                    raise
                if lost is None:
                    self._idle.append(worker)
                else:
                    await worker.close(kill=True)
                    _record(results, lost, on_answer)
        return results

    def warm(self, count: int) -> None:
        """Start workers now, up to ``count`` (at most ``slots``), for probes to come.

        A scan calls it before it parses, so its probes find their workers
        ready; a probe that finds none idle waits for one being warmed.
        """
        ready = len(self._idle) + self._warming + int(self._limiter.borrowed_tokens)
        for _ in range(min(count, int(self._limiter.total_tokens)) - ready):
            self._warming += 1
            self._nursery.start_soon(self._warm_one)

    async def _warm_one(self) -> None:
        try:
            self._idle.append(await self._start_worker())
        except WorkerUnavailable:
            pass  # a probe that needs it tries again and reports why
        finally:
            self._warming -= 1
            self._warmed.set()
            self._warmed = trio.Event()

    async def _checkout(self) -> _Worker:
        while not self._idle and self._warming:
            await self._warmed.wait()
        if self._idle:
            return self._idle.pop()
        return await self._start_worker()

    async def _start_worker(self) -> _Worker:
        run = functools.partial(
            trio.run_process,
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            check=False,
            deliver_cancel=_kill_at_once,
            env={**_child_env(), "LC_ALL": "C"},
        )
        try:
            process: trio.Process = await self._nursery.start(run)
        except OSError as exc:
            raise WorkerUnavailable(f"the probe worker could not start: {exc}") from exc
        worker = _Worker(process)
        message = None
        try:
            with trio.move_on_after(START_TIMEOUT_S):
                message = await worker.next_message()
        except BaseException:
            await worker.close(kill=True)
            raise
        if message is not None and message[0] == "ready":
            worker.versions = self.versions = message[1]
            self.started += 1
            return worker
        await worker.close(kill=True)
        raise WorkerUnavailable("the probe worker did not start (it exited or did not answer)")

    async def retire_idle(self) -> None:
        """Let workers idle for ``idle_seconds`` go, until cancelled."""
        while True:
            await trio.sleep(self._idle_seconds / 4)
            now = trio.current_time()
            keep = [w for w in self._idle if now - w.idle_since < self._idle_seconds]
            retired = [w for w in self._idle if w not in keep]
            self._idle = keep
            for worker in retired:
                await worker.close()


async def _kill_at_once(process: trio.Process) -> None:
    process.kill()


@asynccontextmanager
async def open_probe_pool(
    slots: int, *, timeout: float, command: Sequence[str] = DEFAULT_COMMAND, idle_seconds: float = IDLE_SECONDS
) -> AsyncIterator[ProbePool]:
    """A pool for the scope: leaving it kills every worker and waits for them."""
    async with trio.open_nursery() as nursery:
        pool = ProbePool(nursery, slots, timeout=timeout, command=command, idle_seconds=idle_seconds)
        nursery.start_soon(pool.retire_idle)
        try:
            yield pool
        finally:
            nursery.cancel_scope.cancel()


async def run_probe_pool(
    slots: int,
    *,
    timeout: float,
    command: Sequence[str] = DEFAULT_COMMAND,
    task_status: trio.TaskStatus[ProbePool] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The server's pool as a task: ``pool = await nursery.start(run_probe_pool, ...)``.

    Runs until cancelled; then every worker is killed and waited for.
    """
    async with open_probe_pool(slots, timeout=timeout, command=command) as pool:
        task_status.started(pool)
        await trio.sleep_forever()


def _record(results: list[Probed], probed: Probed, on_answer: Callable[[int, Probed], None] | None) -> None:
    results.append(probed)
    if on_answer is not None:
        on_answer(len(results) - 1, probed)


def _probed(message: tuple[str, Any]) -> Probed:
    kind, value = message
    if kind == "ok":
        return Probed(result=value)
    if kind == "failed":
        return Probed(failure=value[0], message=value[1])
    return Probed(failure=ProbeFailure.UNKNOWN, message="the probe worker answered out of turn")
