"""Facts every DLNA request reads, remembered for :data:`REMEMBER_SECONDS` per server.

A television browsing pages asks, for every page, who the DLNA member is
(four queries), which libraries there are and the SystemUpdateID (an
aggregate over every item).  Each is kept a moment in a ``cachetools``
:class:`~cachetools.TTLCache` on Trio's clock (so a test's mock clock
moves it too): a member's changed access, or a catalogue change, shows
within :data:`REMEMBER_SECONDS` (docs/dlna.md).  Requests that find a
fact expired at once each read it (at most a few, one per concurrent
request): cheaper than making them wait on one another.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio
from cachetools import TTLCache
from quart import current_app

REMEMBER_SECONDS = 1.0
MAX_FACTS = 64  # a handful of keys: the member, the libraries, the update id
_EXTENSION_KEY = "reelhouse.dlna.remembered"

T = TypeVar("T")


async def remembered(key: str, read: Callable[[], Awaitable[T]]) -> T:
    """``read()``'s value, read again when the one remembered under ``key`` is older than REMEMBER_SECONDS."""
    kept: TTLCache[str, Any] | None = current_app.extensions.get(_EXTENSION_KEY)
    if kept is None:
        kept = current_app.extensions[_EXTENSION_KEY] = TTLCache(MAX_FACTS, REMEMBER_SECONDS, timer=trio.current_time)
    try:
        value: T = kept[key]
        return value
    except KeyError:
        pass
    value = await read()
    kept[key] = value
    return value
