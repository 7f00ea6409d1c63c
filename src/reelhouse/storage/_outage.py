"""Whether the database answers, as the store's last calls found it: logged once per outage.

While PostgreSQL restarts, every caller (the scan, the job registry, the
event bus, each request) fails at once; one line when the database stops
answering and one when it answers again say what happened, and the
callers need not each log a traceback for the same cause.
"""

from __future__ import annotations

import logging
import time

from ._store import StoreError, StoreUnavailable

log = logging.getLogger("reelhouse.storage")


class Outage:
    """Notes each call's outcome; logs the changes between reachable and not."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._since: float | None = None  # monotonic time of the first failure, while down

    @property
    def down(self) -> bool:
        return self._since is not None

    def note_failure(self, error: StoreError) -> None:
        if isinstance(error, StoreUnavailable) and self._since is None:
            self._since = time.monotonic()
            log.error("%s cannot be reached (%s); calls fail until it answers again", self._name, error)

    def note_success(self, started: float) -> None:
        """A call begun at ``started`` (``time.monotonic()``) succeeded.

        One begun before the outage was noticed says nothing of now: while
        PostgreSQL stops, a query on an open session can still finish after
        a new connection was refused, and would have ended the outage at
        once, logging it twice."""
        if self._since is not None and started >= self._since:
            log.warning("%s answers again (it was unreachable for %.1f s)", self._name, time.monotonic() - self._since)
            self._since = None
