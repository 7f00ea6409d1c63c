"""A store whose calls take no simulated time, for tests on an autojump clock.

An autojump clock jumps to the next deadline once every task has waited a
threshold of real time. A real database's answer (a thread, PostgreSQL over
a socket) is such a wait: on a loaded machine a write taking more than the
threshold let simulated time leap past what the test meant to observe (a
run started at the next day's 03:00 instead of at start-up), and a slow
connect ran out its 15 s timeout in no real time at all. Wrapped here, the
clock stands still while the store opens, migrates, closes, or answers any
call, so the database is instantaneous in simulated time, whatever the
machine's load.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, cast

from trio.testing import MockClock

from reelhouse.storage import Store, migrate, open_store

from .conftest import migrated_copy


class ClockHold:
    """Holds ``clock``'s autojump while acquired (counted: holds nest)."""

    def __init__(self, clock: MockClock) -> None:
        self._clock = clock
        self._count = 0
        self._threshold = clock.autojump_threshold

    def acquire(self) -> None:
        if self._count == 0:
            self._threshold = self._clock.autojump_threshold
            self._clock.autojump_threshold = math.inf
        self._count += 1

    def release(self) -> None:
        self._count -= 1
        if self._count == 0:
            self._clock.autojump_threshold = self._threshold


class ClockHeldStore:
    """``store``, with the clock held while any of its coroutines runs."""

    def __init__(self, store: Store, hold: ClockHold) -> None:
        self._store = store
        self._hold = hold

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
            self._hold.acquire()
            try:
                return await method(*args, **kwargs)
            finally:
                self._hold.release()

        return held


@asynccontextmanager
async def clock_held_store(database_url: str, clock: MockClock) -> AsyncIterator[Store]:
    """The ``store`` fixture's database (open, migrated), held on ``clock``: a module's ``store`` on an autojump clock."""
    hold = ClockHold(clock)
    async with AsyncExitStack() as stack:
        hold.acquire()
        stack.callback(hold.release)  # last on the way out, once the store closed
        await migrated_copy(database_url)
        opened = await stack.enter_async_context(open_store(database_url))
        await migrate(opened)
        stack.callback(hold.acquire)  # first on the way out: the close is held too
        hold.release()  # the test itself runs on the autojump clock
        yield cast(Store, ClockHeldStore(opened, hold))
