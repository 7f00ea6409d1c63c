"""Bytes a stream sent to a device, told to the PlaybackRegistry in batches.

A session's ``bandwidthKbps`` is real traffic (api-decisions.md), so the
stream route counts what it handed to the server and tells the registry
:class:`~reelhouse.actors.playback.messages.StreamedBytes` every
:data:`BATCH_BYTES` or :data:`BATCH_SECONDS`, and once at the end.  It
uses ``try_tell``: a stream never waits for the registry.  When the
registry's mailbox is full the batch is dropped (the session's bandwidth
reads low for that moment; the bytes are not carried over, so a registry
that falls behind is not flooded on recovery).  A stopped registry, or
none (API-key requests, the registry not started), counts nothing.
"""

from __future__ import annotations

import logging

import trio

from reelhouse.actors.playback.messages import StreamedBytes
from reelhouse.runtime import ActorRef, ActorStopped

log = logging.getLogger(__name__)

BATCH_BYTES = 1024 * 1024
BATCH_SECONDS = 1.0


class Meter:
    """What a stream body tells of its bytes: nothing, for a request that is not a device's (an API key)."""

    def add(self, nbytes: int) -> None:
        """Count ``nbytes`` taken by the server."""

    def flush(self) -> None:
        """The response ended."""


class StreamMeter(Meter):
    """Counts one response's bytes for ``device_id`` and ``item_id``.  Used from the Trio thread."""

    def __init__(self, registry: ActorRef | None, device_id: str, item_id: str) -> None:
        self._registry = registry
        self._device_id = device_id
        self._item_id = item_id
        self._pending = 0
        self._told_at = trio.current_time()
        self.dropped = 0  # batches lost to a full mailbox (for tests and logs)

    def add(self, nbytes: int) -> None:
        """Count ``nbytes`` sent; tells the registry when a batch is due."""
        self._pending += nbytes
        if self._pending >= BATCH_BYTES or trio.current_time() - self._told_at >= BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Tell what is pending, now (the end of the response); never waits."""
        pending, self._pending = self._pending, 0
        self._told_at = trio.current_time()
        if pending == 0 or self._registry is None:
            return
        try:
            if not self._registry.try_tell(StreamedBytes(self._device_id, self._item_id, pending)):
                self.dropped += 1
        except ActorStopped:
            self._registry = None  # shutting down: nothing more to tell
