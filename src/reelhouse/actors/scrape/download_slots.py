"""DownloadSlots: provider image downloads at once, server-wide and per origin.

Every library's scrape queue (and identify) shares one (``tree.py``).  A
download takes a slot of its URL's origin (scheme, host, port) first, then
one of the server-wide slots; an origin has at most ``per_origin`` of them.
So a host that drips its bytes (or hangs until the download's deadline)
holds at most its share, and the other hosts' images still go through:
one slow provider cannot starve the others.  A share per origin rather
than a cap per item, because a slow host slows every item whose images it
serves (many items of one provider at once), and a per-item cap would let
those items together take every slot.

The per-origin limiters exist only while used (no growth with the hosts a
provider ever named).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio

from reelhouse.media.remote_targets import Origin, url_origin

DOWNLOADS: int = 8
"""Provider images fetched at once, server-wide."""
PER_ORIGIN: int = 4
"""Of those, at most this many from one origin."""


@dataclass
class _Share:
    limiter: trio.CapacityLimiter
    users: int = 0


class DownloadSlots:
    def __init__(self, total: int = DOWNLOADS, per_origin: int = PER_ORIGIN) -> None:
        self._total = trio.CapacityLimiter(total)
        self._per_origin = min(per_origin, total)
        self._shares: dict[Origin | None, _Share] = {}

    @asynccontextmanager
    async def slot(self, url: str) -> AsyncIterator[None]:
        """Hold a slot for downloading ``url`` (waiting for one; an invalid URL shares one origin)."""
        origin = url_origin(url)
        share = self._shares.get(origin)
        if share is None:
            share = self._shares[origin] = _Share(trio.CapacityLimiter(self._per_origin))
        share.users += 1
        try:
            async with share.limiter, self._total:
                yield
        finally:
            share.users -= 1
            if share.users == 0:
                del self._shares[origin]
