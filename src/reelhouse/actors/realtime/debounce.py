"""Debouncing: change batches merged into one per quiet period, with a cap."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio


async def debounce_changes(
    receive: trio.MemoryReceiveChannel[frozenset[Path]],
    *,
    debounce_seconds: float,
    max_wait_seconds: float,
    on_batch: Callable[[frozenset[Path]], Awaitable[None]],
) -> None:
    """Merge batches from ``receive`` into one per quiet period.

    After a batch arrives, more are merged until ``debounce_seconds`` pass
    without one, or ``max_wait_seconds`` after the first; then ``on_batch``
    gets the union and is awaited before the next window opens (batches
    queue in the channel meanwhile). Returns when the channel ends, after
    delivering what it had. ``on_batch``'s exceptions propagate.
    """
    async with receive:
        async for first in receive:
            pending = set(first)
            ended = await _merge_until_quiet(
                receive, pending, debounce_seconds, trio.current_time() + max_wait_seconds
            )
            await on_batch(frozenset(pending))
            if ended:
                return


async def _merge_until_quiet(
    receive: trio.MemoryReceiveChannel[frozenset[Path]],
    pending: set[Path],
    debounce_seconds: float,
    cap: float,
) -> bool:
    """Merge into ``pending`` until quiet or ``cap``; True when the channel ended."""
    while True:
        with trio.move_on_at(min(trio.current_time() + debounce_seconds, cap)):
            try:
                pending.update(await receive.receive())
            except trio.EndOfChannel:
                return True
            continue
        return False
