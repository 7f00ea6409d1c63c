"""Where a scan's Parser runs: a worker thread, or a child process for big scans.

Parsing is Python work (naming rules, NFO XML, image headers). In the
server's process every scan's parsing shares one GIL with the event loop
and the Store's writer. A scan that lists at least :data:`PROCESS_MIN_FILES`
files, when a process slot is free (``ScanDeps.parse_processes``, one per
core by default), runs its :class:`~.parse.Parser` in a child process
instead: the same calls, arguments and answers pickled over a pipe, while
the server's process writes what the child parsed, and big scans running
at once parse on different cores. Smaller scans (a child costs a Python
start-up), and scans finding every slot taken, parse in a worker thread.

:func:`open_parser` is the scope of either. The child is a
``trio.run_process`` task in that scope's nursery. Leaving it stops the
child: politely after a finished scan (end of input, then a bounded wait),
at once (SIGKILL, run_process's cancellation) when the scan is cancelled or
failed. A child that dies or cannot start fails the scan
with :class:`ParserProcessError`; what was written stays, like any failed
scan. An exception raised by the parser in the child is raised again here.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import signal
import struct
import subprocess
import sys
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import trio

from reelhouse.media.assembly import ScanRules
from reelhouse.media.containment import Confinement
from reelhouse.runtime import sole_exception
from reelhouse.shutdown import bounded_wait
from reelhouse.storage import Statement, now_ms, prepared_for_sqlite
from reelhouse.storage.catalog import ScanIndex, batch_statements

from .parse import ParsedBatch, Parser
from .walk import DirVisit

PROCESS_MIN_FILES = 2_000  # listed files from which a scan parses in a child process
# Added to the server's nice value in the child: parsing takes the CPU the
# server's process leaves, so requests stay quick while big scans parse. At
# +5 the server's process weighs 3x a child (CFS weights 1024 / 335): on 2
# cores it gets what its one event loop asks. At +10, two scans on 2 cores
# under load (A/B, 2026-11-29) took 1.5-2x as long, with no better p99 of
# the requests beside them. Nice weighs only threads of one scheduling
# group (a session's autogroup): other sessions' processes get their share
# whatever the value.
CHILD_NICENESS = 5
STOP_TIMEOUT_S = 5.0  # a finished child's time to exit before it is killed
READ_CHUNK_BYTES = 1 << 20
_HEADER = struct.Struct(">Q")  # each pickle is preceded by its length
CHILD_ENTRY = "from reelhouse.actors.scan.parser_process import main; main()"


class ParserProcessError(RuntimeError):
    """The parser's child process could not start, or died during the scan."""


@dataclass(frozen=True, slots=True)
class ParserSetup:
    """Everything a Parser is built from (pickled to a child as it is)."""

    rules: ScanRules
    index: ScanIndex
    rewrite: bool
    probe_changed: bool
    within: Confinement  # where the files it reads may resolve
    sqlite: bool = False  # the Store is SQLite: many-row statements leave in its JSON form (prepared_for_sqlite)

    def build(self) -> Parser:
        return Parser(
            self.rules, self.index, rewrite=self.rewrite, probe_changed=self.probe_changed, within=self.within
        )


@dataclass(frozen=True, slots=True)
class ParsedRows:
    """One parse call's result, ready for the Store: its statements (one
    transaction) and what the scan's progress counts of it.

    Built where the parsing ran, so a child sends plain rows (cheap to
    unpickle) and the server's process only writes them.
    """

    statements: list[Statement]
    added: int
    changed: int
    errors: int
    processed: int
    current_dir: str | None
    current_path: str | None


def parsed_rows(batch: ParsedBatch, library_id: str, *, sqlite: bool = False) -> ParsedRows:
    statements = batch_statements(library_id, batch.records, batch.errors, cleared=batch.cleared, now_ms=now_ms())
    if sqlite:
        statements = prepared_for_sqlite(statements)
    added = sum(1 for record in batch.records if record.is_new)
    return ParsedRows(
        statements=statements,
        added=added,
        changed=len(batch.records) - added,
        errors=len(batch.errors),
        processed=batch.processed,
        current_dir=batch.current_dir,
        current_path=batch.current_path,
    )


class ScanParser(Protocol):
    """The Parser's calls, awaited wherever it runs; batches come as rows."""

    async def parse(self, visits: list[DirVisit]) -> ParsedRows: ...

    async def finish(self) -> ParsedRows: ...

    async def parse_all(self, chunks: Iterable[list[DirVisit]], results: trio.MemorySendChannel[ParsedRows]) -> None:
        """Parse each chunk, then finish, sending each answer to ``results`` in order.

        Waits while ``results`` is full; does not close it.
        """

    async def seen_ids(self) -> set[str]: ...


def _take_slot(slots: trio.CapacityLimiter, slot: object) -> bool:
    try:
        slots.acquire_on_behalf_of_nowait(slot)
    except trio.WouldBlock:
        return False
    return True


class _RowParser:
    """A Parser whose batches come out as :class:`ParsedRows`: what runs in a
    worker thread or in the child."""

    def __init__(self, setup: ParserSetup) -> None:
        self._parser = setup.build()
        self._library_id = setup.rules.library_id
        self._sqlite = setup.sqlite

    def parse(self, visits: list[DirVisit]) -> ParsedRows:
        return parsed_rows(self._parser.parse(visits), self._library_id, sqlite=self._sqlite)

    def finish(self) -> ParsedRows:
        return parsed_rows(self._parser.finish(), self._library_id, sqlite=self._sqlite)

    def seen_ids(self) -> set[str]:
        return self._parser.seen_ids()


@asynccontextmanager
async def open_parser(
    setup: ParserSetup,
    *,
    listed_files: int,
    thread_limiter: trio.CapacityLimiter,
    process_slots: trio.CapacityLimiter | None,
) -> AsyncIterator[ScanParser]:
    """A parser for one scan: in a child process when the scan is big and a
    slot is free (held until the scope ends), else in worker threads."""
    if process_slots is None or listed_files < PROCESS_MIN_FILES:
        yield await _ThreadParser.start(setup, thread_limiter)
        return
    slot = object()  # the scan holds the slot, whichever task asks
    if not _take_slot(process_slots, slot):
        yield await _ThreadParser.start(setup, thread_limiter)
        return
    try:
        async with _ProcessParser.running(setup) as parser:
            yield parser
    finally:
        process_slots.release_on_behalf_of(slot)


class _ThreadParser:
    def __init__(self, parser: _RowParser, limiter: trio.CapacityLimiter) -> None:
        self._parser = parser
        self._limiter = limiter

    @classmethod
    async def start(cls, setup: ParserSetup, limiter: trio.CapacityLimiter) -> _ThreadParser:
        return cls(await trio.to_thread.run_sync(_RowParser, setup, limiter=limiter), limiter)

    async def parse(self, visits: list[DirVisit]) -> ParsedRows:
        return await trio.to_thread.run_sync(self._parser.parse, visits, limiter=self._limiter)

    async def finish(self) -> ParsedRows:
        return await trio.to_thread.run_sync(self._parser.finish, limiter=self._limiter)

    async def parse_all(self, chunks: Iterable[list[DirVisit]], results: trio.MemorySendChannel[ParsedRows]) -> None:
        for chunk in chunks:
            await results.send(await self.parse(chunk))
        await results.send(await self.finish())

    async def seen_ids(self) -> set[str]:
        return self._parser.seen_ids()


class _ProcessParser:
    """The parent's end of a child running :func:`main` (see :data:`CHILD_ENTRY`).

    Requests and answers are length-prefixed pickles on the child's stdin
    and stdout; pickling and unpickling run in worker threads, never on the
    event loop.  :meth:`parse_all` queues the next requests while the
    child works, so the child never waits for the parent between batches;
    the pipes bound how far it runs ahead (a child whose answers are not
    read blocks writing them).
    """

    def __init__(self, process: trio.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        self._send_stream = process.stdin
        self._receive_stream = process.stdout
        self._lock = trio.Lock()  # one call on the pipes at a time

    @classmethod
    @asynccontextmanager
    async def running(cls, setup: ParserSetup) -> AsyncIterator[_ProcessParser]:
        run = functools.partial(
            trio.run_process,
            [sys.executable, "-c", CHILD_ENTRY],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            check=False,
            deliver_cancel=_kill_at_once,
            env=_child_env(),
        )
        try:
            async with trio.open_nursery() as nursery:
                try:
                    process: trio.Process = await nursery.start(run)
                except OSError as exc:
                    raise ParserProcessError(f"the parser process could not start: {exc}") from exc
                parser = cls(process)
                finished = False
                try:
                    await parser._call("setup", setup)
                    yield parser
                    finished = True
                finally:
                    with trio.CancelScope(shield=True):
                        await parser._stop(politely=finished)
                    # A child still running is killed by run_process, which waits for it.
                    nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:  # the scan's own exception, as a plain call raises it
            error = sole_exception(group)
            if error is group:
                raise
            raise error from error.__cause__

    async def parse(self, visits: list[DirVisit]) -> ParsedRows:
        return await self._call("parse", visits)

    async def finish(self) -> ParsedRows:
        return await self._call("finish")

    async def seen_ids(self) -> set[str]:
        return await self._call("seen_ids")

    async def parse_all(self, chunks: Iterable[list[DirVisit]], results: trio.MemorySendChannel[ParsedRows]) -> None:
        requests: list[tuple[str, tuple[Any, ...]]] = [("parse", (chunk,)) for chunk in chunks]
        requests.append(("finish", ()))
        async with self._lock:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._send_requests, requests)
                failure = await self._forward_answers(len(requests), results)
                nursery.cancel_scope.cancel()  # stop sending after a failure
        if failure is not None:
            raise failure  # as itself, not wrapped in the nursery's group

    async def _forward_answers(self, count: int, results: trio.MemorySendChannel[ParsedRows]) -> Exception | None:
        try:
            for _ in range(count):
                await results.send(await self._answer())
        except Exception as exc:
            return exc
        return None

    async def _call(self, method: str, *args: Any) -> Any:
        async with self._lock:
            await self._send_requests([(method, args)])
            return await self._answer()

    async def _send_requests(self, requests: list[tuple[str, tuple[Any, ...]]]) -> None:
        for request in requests:
            frame = await trio.to_thread.run_sync(_frame, request)
            try:
                await self._send_stream.send_all(frame)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return  # the child is gone: reading its answer reports it

    async def _answer(self) -> Any:
        """The next answer's value; raises what the child raised, or ParserProcessError."""
        try:
            body = await _receive_frame(self._receive_stream)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            body = None
        if body is None:
            raise ParserProcessError(f"the parser process died (exit code {self._process.poll()})")
        status, value = await trio.to_thread.run_sync(pickle.loads, body)
        if status == "error":
            raise value
        return value

    async def _stop(self, *, politely: bool) -> None:
        if politely:
            await self._send_stream.aclose()  # end of input: the child returns
            with bounded_wait(STOP_TIMEOUT_S):  # then killed; never past the shutdown deadline
                await self._process.wait()
        await self._send_stream.aclose()
        await self._receive_stream.aclose()


async def _kill_at_once(process: trio.Process) -> None:
    """run_process's answer to cancellation: no grace (a polite stop had its chance)."""
    process.kill()


def _frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


async def _receive_frame(stream: trio.abc.ReceiveStream) -> bytes | None:
    """One frame's body; None at end of stream."""
    header = await _receive_exactly(stream, _HEADER.size)
    if header is None:
        return None
    return await _receive_exactly(stream, _HEADER.unpack(header)[0])


async def _receive_exactly(stream: trio.abc.ReceiveStream, size: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = await stream.receive_some(min(size - len(chunks), READ_CHUNK_BYTES))
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


def _child_env() -> dict[str, str]:
    """The server's environment, with this package importable however it was found."""
    env = dict(os.environ)
    source_root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source_root, env.get("PYTHONPATH")) if p)
    return env


# -- the child -------------------------------------------------------------------


def main() -> None:
    """Child process: answer requests until the parent closes our stdin."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    with contextlib.suppress(OSError):  # not allowed: the server's priority
        os.nice(CHILD_NICENESS)
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt a frame
    requests = sys.stdin.buffer
    parser: _RowParser | None = None
    while True:
        header = requests.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        method, args = pickle.loads(requests.read(_HEADER.unpack(header)[0]))
        try:
            if method == "setup":
                parser, answer = _RowParser(args[0]), None
            else:
                assert parser is not None, "setup comes first"
                answer = getattr(parser, method)(*args)
            frame = _frame(("ok", answer))
        except Exception as exc:  # the parent raises it again
            frame = _error_frame(exc)
        answers.write(frame)
        answers.flush()


def _error_frame(exc: Exception) -> bytes:
    try:
        return _frame(("error", exc))
    except Exception:  # an exception that does not pickle
        return _frame(("error", ParserProcessError(f"the parser failed: {exc!r}")))


def listed_files(visits: Iterable[DirVisit]) -> int:
    """Files the walk listed (unchanged directories list none)."""
    return sum(len(visit.listing.files) for visit in visits if visit.listing is not None)
