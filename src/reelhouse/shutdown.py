"""The one shutdown deadline: when a stopping server must be done, and shields bounded by it.

A SIGTERM gives the whole process ``shutdown_grace_seconds``: requests,
actors, the store's last writes and its close all share that one budget.
The server arms a :class:`ShutdownDeadline` when the signal arrives (an
absolute ``trio.current_time()``); every shield that protects work a
stopping server still wants done (a scan's final record, a store's queued
writes) ends at its own bound or at that deadline, whichever comes first.

The deadline travels as a context variable set once around the server
(:func:`use_shutdown_deadline`), so every task the server starts (the
store's writer, each actor, each request) reads the same object; code run
outside a server (tests, the command line) sees one that is never armed.
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Iterator
from contextlib import contextmanager

import trio


class ShutdownDeadline:
    """An absolute time (``trio.current_time``) by which shutdown must end; inf until armed."""

    def __init__(self) -> None:
        self._at = math.inf

    @property
    def at(self) -> float:
        return self._at

    @property
    def armed(self) -> bool:
        return self._at != math.inf

    def arm(self, at: float) -> None:
        """Set the deadline; it only ever moves earlier."""
        self._at = min(self._at, at)

    def remaining(self) -> float:
        """Seconds left (inf while not armed, 0 once past)."""
        return max(self._at - trio.current_time(), 0.0)

    def bound(self, seconds: float) -> float:
        """The earlier of ``seconds`` from now and the deadline, as an absolute time."""
        return min(trio.current_time() + seconds, self._at)


_NEVER = ShutdownDeadline()  # never armed: what code outside a server sees
_current: contextvars.ContextVar[ShutdownDeadline] = contextvars.ContextVar("reelhouse_shutdown", default=_NEVER)


def shutdown_deadline() -> ShutdownDeadline:
    """The deadline of the server this task runs in (one never armed outside a server)."""
    return _current.get()


@contextmanager
def use_shutdown_deadline(deadline: ShutdownDeadline) -> Iterator[ShutdownDeadline]:
    """Make ``deadline`` the one that tasks started inside this block read."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def bounded_shield(seconds: float) -> trio.CancelScope:
    """A shielded scope that ends after ``seconds`` or at the shutdown deadline, whichever is first.

    Check ``cancelled_caught`` afterwards to learn that the work was cut short.
    """
    return trio.CancelScope(shield=True, deadline=shutdown_deadline().bound(seconds))


def bounded_wait(seconds: float) -> trio.CancelScope:
    """Like ``trio.move_on_after(seconds)``, but never past the shutdown deadline."""
    return trio.CancelScope(deadline=shutdown_deadline().bound(seconds))
