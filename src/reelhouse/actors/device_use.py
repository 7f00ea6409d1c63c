"""DeviceUse: when each player device was last used, written behind the requests' backs.

A device token is checked on every player request; the check
(``storage/verified_devices.py``) remembers recent answers and notes each
use in memory only. This actor owns writing those notes: every
``flush_seconds``, when asked before a device list is read
(:class:`FlushDeviceUse`), and once more when it stops (after the HTTP edge
stopped taking requests), bounded by the shutdown deadline. A flush the
database refuses keeps its notes for the next one, logged once per outage.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import trio

from reelhouse import errors
from reelhouse.runtime import Actor, Ask
from reelhouse.shutdown import bounded_shield
from reelhouse.storage import StoreError, StoreFull, StoreUnavailable
from reelhouse.storage.verified_devices import VerifiedDevices

FLUSH_SECONDS = 60.0
STORE_RETRY_SECONDS = 5  # Retry-After of a flush the database refused
STOP_FLUSH_SECONDS = 3.0  # the last write at stop (never past the shutdown deadline)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FlushDeviceUse(Ask[None]):
    """Ask: write the noted last-use times now (a device list is about to be read).

    503 Unavailable while the database is down or full (the notes are kept)."""


class DeviceUse(Actor):
    def __init__(self, devices: VerifiedDevices, *, flush_seconds: float = FLUSH_SECONDS) -> None:
        self._devices = devices
        self._flush_seconds = flush_seconds
        self._failing = False

    async def on_start(self) -> None:
        self.nursery.start_soon(self._flush_every)

    async def on_stop(self) -> None:
        with bounded_shield(STOP_FLUSH_SECONDS):
            await self._flush_logged()

    async def handle(self, msg: object) -> object:
        match msg:
            case FlushDeviceUse():
                try:
                    await self._devices.flush()
                except (StoreUnavailable, StoreFull) as exc:
                    raise errors.Unavailable(f"The request failed: {exc.summary}.",
                                             params={"retryAfterSeconds": STORE_RETRY_SECONDS}) from exc
                return None
            case _:
                raise TypeError(f"unexpected message {msg!r}")

    async def _flush_every(self) -> None:
        while True:
            await trio.sleep(self._flush_seconds)
            await self._flush_logged()

    async def _flush_logged(self) -> None:
        try:
            await self._devices.flush()
        except StoreError as exc:
            if not self._failing:
                log.warning("could not record device last-seen times (kept for the next try): %s", exc)
            self._failing = True
        else:
            self._failing = False
