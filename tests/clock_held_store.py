"""A store whose calls take no simulated time, for tests on an autojump clock.

An autojump clock jumps to the next deadline once every task has waited a
threshold of real time. A real database's answer (a thread, PostgreSQL over
a socket) is such a wait: on a loaded machine a write taking more than the
threshold let simulated time leap past what the test meant to observe (a
run started at the next day's 03:00 instead of at start-up). Wrapped here,
the clock stands still while any call to the store is in flight, so the
database is instantaneous in simulated time, whatever the machine's load.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, cast

from trio.testing import MockClock

from reelhouse.storage import Store, migrate, open_store

from .conftest import migrated_copy


class ClockHeldStore:
    """``store``, with ``clock``'s autojump held while any of its coroutines runs."""

    def __init__(self, store: Store, clock: MockClock) -> None:
        self._store = store
        self._clock = clock
        self._in_flight = 0
        self._threshold = clock.autojump_threshold

    @property
    def backend(self) -> str:
        return self._store.backend

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if not inspect.iscoroutinefunction(attr):
            return attr
        return self._held_call(attr)

    def _held_call(self, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        async def held(*args: Any, **kwargs: Any) -> Any:
            with self._holding():
                return await method(*args, **kwargs)

        return held

    @contextmanager
    def _holding(self) -> Iterator[None]:
        if self._in_flight == 0:
            self._threshold = self._clock.autojump_threshold
            self._clock.autojump_threshold = math.inf
        self._in_flight += 1
        try:
            yield
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._clock.autojump_threshold = self._threshold


@asynccontextmanager
async def clock_held_store(database_url: str, clock: MockClock) -> AsyncIterator[Store]:
    """The ``store`` fixture's database (open, migrated), held on ``clock``: a module's ``store`` on an autojump clock."""
    await migrated_copy(database_url)
    async with open_store(database_url) as opened:
        await migrate(opened)
        yield cast(Store, ClockHeldStore(opened, clock))
