"""The monitor's status: each root's state, and the one status a library reports.

ScanStatus reports ``watch``, ``watchReasonCode``, ``watchMessage``:
``limit`` (reason ``watch_limit``; the message names the sysctl to raise)
when any root hit an inotify limit; else ``pending`` while starting or while
every watchable root is missing; else ``watching`` when a root is watched;
else ``unsupported`` with the first root's reason (``network_fs``,
``unknown``). Roots not watched are named in the message. While monitoring
is off there is no monitor: the library itself reports ``disabled``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

REASON_WATCH_LIMIT = "watch_limit"

WatchState = Literal["watching", "disabled", "unsupported", "limit", "pending"]


@dataclass(frozen=True, slots=True)
class WatchStatus:
    """What ScanStatus reports as ``watch``, ``watchReasonCode``, ``watchMessage``."""

    state: WatchState
    reason_code: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class RootState:
    """One root's state; ``unavailable`` is a watchable root that failed and is retried."""

    kind: Literal["pending", "watching", "unsupported", "limit", "unavailable"]
    reason_code: str | None = None
    message: str | None = None


ROOT_PENDING = RootState(kind="pending")
ROOT_WATCHING = RootState(kind="watching")


def combine(states: Sequence[tuple[Path, RootState]]) -> WatchStatus:
    """One status for a library from the states of its roots (see module doc)."""
    kinds = [state.kind for _, state in states]
    notes = [f"{root}: {state.message}" for root, state in states if state.message]
    message = "; ".join(notes) or None
    if "limit" in kinds:
        return WatchStatus("limit", REASON_WATCH_LIMIT, message)
    if "pending" in kinds:
        return WatchStatus("pending", None, message)
    if "watching" in kinds:
        return WatchStatus("watching", None, message)
    unsupported = [state for _, state in states if state.kind == "unsupported"]
    if unsupported:
        return WatchStatus("unsupported", unsupported[0].reason_code, message)
    return WatchStatus("pending", None, message)
