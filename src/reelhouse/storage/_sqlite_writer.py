"""The SQLite store's one writer: queued transactions, committed in batches.

:class:`StoreWriter` is the one task that owns the write connection. It takes
the transactions callers queued and commits several together in one database
transaction (one commit for many callers), each caller's statements inside
its own SAVEPOINT so that a failing caller is rolled back alone and gets its
error while the others commit. Small transactions go before bulk ones
(:class:`_FairQueue`): a scan writing big batches does not hold up the run
records, events and settings written beside it.
"""

from __future__ import annotations

import collections
import errno
import functools
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import outcome
import trio

from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.loop.thread_priority import WRITER_NICENESS

from ._sqlite_bulk import BULK_MIN_ROWS, bulk_form, encode_rows
from ._store import IntegrityError, Params, Statement, StoreError, StoreFull, WriteResult, store_error

WRITE_QUEUE_SIZE = 256  # queued transactions before callers wait (backpressure)
WRITE_BATCH_MAX = 64  # transactions committed together in one batch
BULK_ROWS = 256  # parameter rows from which a transaction is bulk: it commits alone
JSON_CHARS_PER_ROW = 500  # JSON text counted as one row (a scan's item row is about this long)
BULK_PASSES_MAX = 4  # small batches that may go before a waiting bulk transaction


def translate_error(exc: BaseException) -> StoreError:
    """The Store error for a failure of sqlite3 (or of binding parameters)."""
    if isinstance(exc, sqlite3.IntegrityError):
        return store_error(exc, IntegrityError)
    full = getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    if full or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
        return store_error(exc, StoreFull)
    return store_error(exc)


@dataclass(eq=False, slots=True)
class _WriteRequest:
    statements: tuple[Statement, ...]
    done: trio.Event = field(default_factory=trio.Event)
    result: outcome.Outcome | None = None  # set by the writer's worker thread


class StoreWriter:
    """The one task that writes: batches queued transactions into one commit.

    Callers use :meth:`submit`; the task runs :meth:`run` in the store's
    nursery.  A transaction handed to the writer (``submit`` got past its
    queueing) is committed (or fails) even if its caller is cancelled
    meanwhile: cancellation only stops the caller waiting for the answer.
    """

    def __init__(self, conn: sqlite3.Connection, after_commit: Callable[[], None] = lambda: None) -> None:
        self._conn = conn
        self._after_commit = after_commit
        self._send, self._receive = trio.open_memory_channel[_WriteRequest](WRITE_QUEUE_SIZE)
        self._queue = _FairQueue()
        self._stopped = trio.Event()
        # A commit left running in its thread when the writer was cancelled
        # (a close cut short by the shutdown deadline): the connection is
        # still in use and must not be closed under it.
        self.commit_abandoned = False

    async def submit(self, statements: Sequence[Statement]) -> list[WriteResult]:
        """Queue one transaction and wait for its results.

        Raises IntegrityError or StoreError for this caller's statements;
        StoreError when the store is closed.
        """
        request = _WriteRequest(tuple(statements))
        try:
            await self._send.send(request)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            raise StoreError("the store is closed") from None
        await request.done.wait()
        assert request.result is not None
        return request.result.unwrap()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Commit batches until :meth:`close`; answers every request it took."""
        batch: list[_WriteRequest] = []
        # Its own thread (a cheaper hop than trio.to_thread), at WRITER_NICENESS from its start.
        thread = ThreadPool([self._conn], name="sqlite-writer", niceness=WRITER_NICENESS)
        task_status.started()
        try:
            while batch := await self._next_batch():
                # Abandonable: a commit waiting out another process's lock
                # (the busy timeout) must not hold a shutdown past its deadline.
                self.commit_abandoned = True
                await thread.run(functools.partial(_commit_batch, batch=batch), abandon_on_cancel=True)
                self.commit_abandoned = False
                _answer(batch)
                self._after_commit()
                batch = []
        finally:
            # Cancelled (close timed out) or crashed: fail what was not run,
            # so that no caller waits forever, then refuse new writes.
            _answer(batch + self._queue.take_all() + self._drain_channel())
            self._receive.close()
            self._stopped.set()
            with trio.CancelScope(shield=True):  # no wait: a commit still running keeps its thread
                await thread.aclose(timeout=0)

    async def close(self) -> None:
        """Stop taking writes and wait until every queued one is committed."""
        self._send.close()
        await self._stopped.wait()

    async def _next_batch(self) -> list[_WriteRequest]:
        """The next transaction's requests; empty once closed and every request is committed."""
        if self._queue.empty():
            try:
                self._queue.add(await self._receive.receive())
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return []
        while self._queue.room():
            try:
                self._queue.add(self._receive.receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                break
        return self._queue.next_batch()

    def _drain_channel(self) -> list[_WriteRequest]:
        drained: list[_WriteRequest] = []
        while True:
            try:
                drained.append(self._receive.receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return drained


class _FairQueue:
    """Requests taken from the channel, small ones first.

    A small transaction (a run record, an event, a setting) commits in the
    next batch, beside the other small ones; a bulk one (a scan's batch of
    rows, :data:`BULK_ROWS` or more) commits in a batch of its own, one at a
    time in arrival order. So the writer's wait for a small write is at most
    the bulk commit under way, not every bulk one queued before it (with
    eight scans writing, that was seconds). A bulk request passed over
    :data:`BULK_PASSES_MAX` times in a row goes next, with the small ones
    then queued: a stream of small writes cannot starve it.
    """

    def __init__(self) -> None:
        self._small: list[_WriteRequest] = []
        self._bulk: collections.deque[_WriteRequest] = collections.deque()
        self._passes = 0  # small batches committed while a bulk request waited

    def add(self, request: _WriteRequest) -> None:
        (self._bulk.append if _rows(request) >= BULK_ROWS else self._small.append)(request)

    def empty(self) -> bool:
        return not self._small and not self._bulk

    def room(self) -> bool:
        return len(self._small) < WRITE_BATCH_MAX and len(self._bulk) < WRITE_BATCH_MAX

    def next_batch(self) -> list[_WriteRequest]:
        if self._small and (not self._bulk or self._passes < BULK_PASSES_MAX):
            self._passes += 1 if self._bulk else 0
            batch, self._small = self._small, []
            return batch
        self._passes = 0
        batch, self._small = [self._bulk.popleft(), *self._small], []
        return batch

    def take_all(self) -> list[_WriteRequest]:
        taken = [*self._small, *self._bulk]
        self._small, self._bulk = [], collections.deque()
        return taken


def _rows(request: _WriteRequest) -> int:
    """Parameter rows a request binds: what its commit costs, roughly. Rows
    sent as one JSON text (``prepared_for_sqlite``) count by its length."""
    return sum(_statement_rows(s) for s in request.statements)


def _statement_rows(statement: Statement) -> int:
    if statement.many is not None:
        return len(statement.many)
    return 1 + sum(len(p) // JSON_CHARS_PER_ROW for p in statement.params if isinstance(p, str))


def _answer(batch: list[_WriteRequest]) -> None:
    """Wake every caller of the batch; a request left unanswered failed."""
    for request in batch:
        if request.result is None:
            request.result = outcome.Error(StoreError("the store stopped before this write ran"))
        request.done.set()


def _commit_batch(conn: sqlite3.Connection, batch: list[_WriteRequest]) -> None:
    """Worker thread: run the batch in one transaction, one savepoint per caller."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        _fail(batch, exc)
        return
    for position, request in enumerate(batch):
        request.result = _run_in_savepoint(conn, request.statements)
        if not conn.in_transaction:
            # An error (disk full, I/O) that SQLite answers by rolling back
            # the whole transaction: every caller of the batch lost its work,
            # and the callers after this one learn its cause.
            _fail(batch[: position + 1], None, keep_errors=True)
            _fail(batch[position + 1 :], _cause_of(request.result))
            return
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback_quietly(conn)
        _fail(batch, exc, keep_errors=True)


def _run_in_savepoint(conn: sqlite3.Connection, statements: tuple[Statement, ...]) -> outcome.Outcome:
    conn.execute("SAVEPOINT caller")
    try:
        results = [_run_statement(conn, statement) for statement in statements]
    except Exception as exc:  # any failure belongs to this caller alone
        _undo_savepoint(conn)
        return outcome.Error(translate_error(exc))
    conn.execute("RELEASE caller")
    return outcome.Value(results)


def _run_statement(conn: sqlite3.Connection, statement: Statement) -> WriteResult:
    if statement.many is not None:
        _run_many(conn, statement.sql, statement.many)
        return WriteResult(rowcount=len(statement.many), rows=[])
    cursor = conn.execute(statement.sql, statement.params)
    rows = cursor.fetchall()  # rowcount of a RETURNING statement is known only now
    rowcount = cursor.rowcount if cursor.rowcount >= 0 else len(rows)
    return WriteResult(rowcount=rowcount, rows=rows)


def _run_many(conn: sqlite3.Connection, sql: str, rows: Sequence[Params]) -> None:
    """Every row in one step where the statement has a JSON form (see _sqlite_bulk)."""
    bulk = bulk_form(sql) if len(rows) >= BULK_MIN_ROWS else None
    encoded = encode_rows(rows) if bulk is not None else None
    if bulk is not None and encoded is not None:
        conn.execute(bulk, (encoded,))
    else:
        conn.executemany(sql, rows)


def _undo_savepoint(conn: sqlite3.Connection) -> None:
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK TO caller")
        conn.execute("RELEASE caller")
    except sqlite3.Error:
        _rollback_quietly(conn)


def _rollback_quietly(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the transaction is gone either way


def _cause_of(result: outcome.Outcome | None) -> BaseException | None:
    """The driver's failure behind a caller's error, if it had one."""
    if isinstance(result, outcome.Error) and isinstance(result.error.__cause__, sqlite3.Error):
        return result.error.__cause__
    return None


def _fail(batch: list[_WriteRequest], cause: BaseException | None, *, keep_errors: bool = False) -> None:
    for request in batch:
        if keep_errors and isinstance(request.result, outcome.Error):
            continue
        error = translate_error(cause) if cause is not None else StoreError("the batch's transaction was rolled back")
        if isinstance(error, IntegrityError):  # a failed COMMIT is never the caller's constraint
            error = StoreError(str(error))
        request.result = outcome.Error(error)
