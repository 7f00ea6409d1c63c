"""Which reader threads a read takes: the ones answering requests, or background work's own.

A scan reads big (its library's whole index, its local images, what is
left to probe), and eight scans starting at once held every reader thread
while a request's one-row read (an API key, the status endpoint's ping)
waited behind them. Work run under :func:`background_reads` (the scan
pipeline) reads on threads of its own (SQLite), so the readers that answer
requests are never all taken by it; its reads then wait for each other
instead.

A context variable carries the mark: a task started inside the block (the
scan's writer, its parser) inherits it, a request's task never has it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("reelhouse_background_reads", default=False)


@contextmanager
def background_reads() -> Iterator[None]:
    """Reads made in this block (and by tasks started in it) use the background readers."""
    token = _BACKGROUND.set(True)
    try:
        yield
    finally:
        _BACKGROUND.reset(token)


def reads_in_background() -> bool:
    return _BACKGROUND.get()
