"""Which actor or request a log line comes from: a context variable every task inherits.

The runtime sets it around each actor's incarnation (``actor:<name>``), the
HTTP edge around each request (``request:<X-Request-Id>``); a Trio task
inherits the value of the task that started it, so the work an actor or a
request spawns is named after it too. Outside both it reads ``server``.
:mod:`reelhouse.logs` puts it on every line.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_ORIGIN = "server"
_origin: contextvars.ContextVar[str] = contextvars.ContextVar("reelhouse_log_origin", default=DEFAULT_ORIGIN)


def current_origin() -> str:
    return _origin.get()


def set_origin(origin: str) -> None:
    """Name this task (and the tasks it starts from now on) ``origin``, for the rest of the task."""
    _origin.set(origin)


@contextmanager
def log_origin(origin: str) -> Iterator[None]:
    """Name this task ``origin`` inside the block."""
    token = _origin.set(origin)
    try:
        yield
    finally:
        _origin.reset(token)
