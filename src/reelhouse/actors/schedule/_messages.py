"""The Scheduler's messages (asks from the HTTP edge and the JobRegistry, tells from signals)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reelhouse.runtime import Ask


@dataclass(frozen=True, slots=True)
class ListSchedules(Ask[dict[str, Any]]):
    """Ask: the ScheduleList JSON."""


@dataclass(frozen=True, slots=True)
class RunNow(Ask[dict[str, Any]]):
    """Ask: start ``task`` at once; replies its Schedule JSON; NotFound / Conflict."""

    task: str


@dataclass(frozen=True, slots=True)
class CancelRun:
    """Ask (JobRegistry -> scheduler): cancel the task's running run."""

    task: str


@dataclass(frozen=True, slots=True)
class ScanActivity:
    """Tell: a library's scan started (``active``) or ended (``completed`` if it completed)."""

    library_id: str
    active: bool
    completed: bool = False


@dataclass(frozen=True, slots=True)
class PlaybackActivity:
    """Tell (playback -> scheduler): whether anyone is playing now."""

    active: bool


@dataclass(frozen=True, slots=True)
class GetDrift:
    """Ask: the largest lateness (seconds) of a scheduled start seen so far (benchmark)."""
