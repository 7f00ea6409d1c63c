"""Facts every DLNA request reads, remembered for :data:`REMEMBER_SECONDS` per server.

A television browsing pages asks, for every page, who the DLNA member is
(four queries) and the SystemUpdateID (an aggregate over every item).
Both are remembered a moment: a member's changed access, or a catalogue
change, shows within :data:`REMEMBER_SECONDS` (docs/dlna.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio
from quart import current_app

REMEMBER_SECONDS = 1.0
_EXTENSION_KEY = "reelhouse.dlna.remembered"

T = TypeVar("T")


async def remembered(key: str, read: Callable[[], Awaitable[T]]) -> T:
    """``read()``'s value, read again when the one remembered under ``key`` is older than REMEMBER_SECONDS."""
    kept: dict[str, tuple[float, Any]] = current_app.extensions.setdefault(_EXTENSION_KEY, {})
    now = trio.current_time()
    found = kept.get(key)
    if found is not None and now - found[0] < REMEMBER_SECONDS:
        value: T = found[1]
        return value
    value = await read()
    kept[key] = (now, value)
    return value
