"""When a crashed plugin restarts, and when it is disabled instead: pure.

A crash (the process died, answered garbage, flooded its output, or hung
past a call's timeout) is counted with the time it happened. Fewer than
``max_crashes`` within ``window`` seconds: the plugin restarts after a
backoff that doubles with each crash still in the window (``base`` seconds
for the first, at most ``cap``). The ``max_crashes``-th within the window
disables it (``crash_disabled``) until an administrator enables it again.
Times are ``trio.current_time()`` values, so tests drive this on a fake clock.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Final

DEFAULT_MAX_CRASHES: Final = 3
DEFAULT_WINDOW_SECONDS: Final = 600.0
DEFAULT_BACKOFF_SECONDS: Final = 1.0
DEFAULT_BACKOFF_CAP_SECONDS: Final = 60.0


@dataclass(frozen=True, slots=True)
class CrashPolicy:
    max_crashes: int = DEFAULT_MAX_CRASHES
    window: float = DEFAULT_WINDOW_SECONDS
    base: float = DEFAULT_BACKOFF_SECONDS
    cap: float = DEFAULT_BACKOFF_CAP_SECONDS


@dataclass(frozen=True, slots=True)
class CrashDecision:
    disable: bool
    restart_after: float  # seconds; meaningless when disable


@dataclass(slots=True)
class CrashWindow:
    policy: CrashPolicy = field(default_factory=CrashPolicy)
    _times: collections.deque[float] = field(default_factory=collections.deque)

    def record(self, now: float) -> CrashDecision:
        """Count a crash at ``now``: restart after the backoff, or disable."""
        while self._times and self._times[0] <= now - self.policy.window:
            self._times.popleft()
        self._times.append(now)
        count = len(self._times)
        if count >= self.policy.max_crashes:
            return CrashDecision(disable=True, restart_after=0.0)
        return CrashDecision(disable=False, restart_after=min(self.policy.base * 2 ** (count - 1), self.policy.cap))

    def clear(self) -> None:
        """Forget the crashes (an administrator enabled the plugin again)."""
        self._times.clear()

    @property
    def count(self) -> int:
        return len(self._times)
