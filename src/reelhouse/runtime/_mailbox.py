"""The bounded mailbox an actor reads from, and the one-shot reply slot of an ask.

A mailbox belongs to an actor's *place* in the tree, not to one instance of
it: a supervisor keeps the same mailbox across restarts, so queued messages
reach the new instance.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import trio

_log = logging.getLogger("reelhouse.actors")


class _Reply:
    """The answer to one ask: a value or an exception, set once.

    ``abandoned`` is set by an asker that stopped waiting (timeout or
    cancellation); the actor then skips the message if it has not started
    handling it, so a timed-out command does not run behind the caller's back.
    """

    __slots__ = ("_done", "_error", "_value", "abandoned")

    def __init__(self) -> None:
        self._done = trio.Event()
        self._value: object = None
        self._error: BaseException | None = None
        self.abandoned = False

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def set(self, value: object) -> None:
        if not self.done:
            self._value = value
            self._done.set()

    def fail(self, error: BaseException) -> None:
        if not self.done:
            self._error = error
            self._done.set()

    async def wait(self) -> None:
        await self._done.wait()

    def unwrap(self) -> object:
        """The value, or raise the error (keeping its ``__cause__``)."""
        if self._error is not None:
            raise self._error
        return self._value


@dataclass(frozen=True, slots=True)
class _Envelope:
    """One message; ``deadline`` (``trio.current_time``) is the asker's, inf for a tell."""

    msg: object
    reply: _Reply | None
    deadline: float = math.inf


class _MailboxClosed(Exception):
    """Raised by the mailbox to its sender; the ActorRef turns it into ActorStopped."""


class _Mailbox:
    """A FIFO of envelopes with a fixed capacity; senders wait while it is full.

    Two ways to close it:
    - :meth:`close` (graceful): no new messages; the reader drains what is
      queued, then its iteration ends. Blocked senders fail at once.
    - :meth:`close_for_good`: additionally fails every queued ask with the
      error ``make_error()`` returns; queued tells are dropped (logged).
    """

    def __init__(self, name: str, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"mailbox capacity must be >= 1, got {capacity}")
        self.name = name
        self._send, self._receive = trio.open_memory_channel[_Envelope](capacity)
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    async def put(self, envelope: _Envelope) -> None:
        """Queue ``envelope``, waiting while the mailbox is full.

        Raises _MailboxClosed if the mailbox is or becomes closed.
        Cancellation while waiting leaves nothing queued.
        """
        try:
            await self._send.send(envelope)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            raise _MailboxClosed(self.name) from None

    def try_put(self, envelope: _Envelope) -> bool:
        """Queue ``envelope`` if there is room; never blocks. Raises _MailboxClosed."""
        try:
            self._send.send_nowait(envelope)
        except trio.WouldBlock:
            return False
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            raise _MailboxClosed(self.name) from None
        return True

    async def get(self) -> _Envelope | None:
        """The next envelope, waiting for one; None once closed and drained."""
        try:
            return await self._receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None

    def close(self) -> None:
        self._closed = True
        self._send.close()

    def close_for_good(self, make_error: Callable[[], BaseException]) -> None:
        self.close()
        dropped_tells = 0
        while True:
            try:
                envelope = self._receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                break
            if envelope.reply is None:
                dropped_tells += 1
            else:
                envelope.reply.fail(make_error())
        self._receive.close()
        if dropped_tells:
            _log.warning("actor %s stopped with %d queued tells dropped", self.name, dropped_tells)
