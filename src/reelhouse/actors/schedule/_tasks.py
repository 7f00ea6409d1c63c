"""What the Scheduler runs: task definitions, the context a run gets, and how it ends.

A core task's work is an async function ``run(ctx) -> RunEnd`` (given to
the Scheduler at construction, so tests pass fakes). A plugin task comes
from the plugin host's task list (``_plugins.SyncPluginTasks``);
one with a ``runner`` runs by asking it :class:`RunPluginTask` (the reply
is a ``RunEnd``), else through the plugin host.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, overload

import trio

from reelhouse.config import Settings
from reelhouse.media.schedule import Rule
from reelhouse.runtime import ActorRef, Ask
from reelhouse.storage import Store
from reelhouse.storage.schedules import RunEnd, ScheduleRow

from ..jobs import JobSnapshot, JobUpdate

__all__ = ["RunEnd", "RunPluginTask", "TaskContext", "TaskDefinition", "TaskRunner", "WallClock"]

WallClock = Callable[[], datetime]


@dataclass(frozen=True, slots=True)
class TaskDefinition:
    """A task the Scheduler owns: its defaults and what the API shows of it."""

    name: str
    default_rules: tuple[Rule, ...]
    allows_after_scan: bool = False
    job_kind: str = "scheduledTask"
    title: str = ""
    owner: str | None = None  # plugin id; None for core tasks
    names: Mapping[str, str] | None = None  # plugin tasks: by language, "en" always present
    descriptions: Mapping[str, str] | None = None
    runner: ActorRef | None = None  # plugin tasks: asked RunPluginTask


@dataclass(frozen=True, slots=True)
class RunPluginTask(Ask["RunEnd"]):
    """Ask (scheduler -> a plugin task's runner): do one run; reply a RunEnd."""

    task: str
    job_id: str


@dataclass
class TaskContext:
    """What one run gets: services, its job, and the playback gate."""

    task: str
    job: JobSnapshot
    store: Store
    settings: Settings | None
    libraries: ActorRef | None
    jobs: ActorRef | None
    owner: ActorRef
    cancel_message: object
    playing: Callable[[], bool]
    playback_changed: Callable[[], trio.Event]
    wall: WallClock
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def data_dir(self) -> Path:
        return self.settings.data_dir if self.settings is not None else Path("data")

    def now_ms(self) -> int:
        return int(self.wall().timestamp() * 1000)

    def progress(self, **fields: Any) -> None:
        """Update the run's job (JobSnapshot field names); dropped when the registry is busy."""
        self.job = replace(self.job, **fields)
        if self.jobs is not None:
            try:
                self.jobs.try_tell(JobUpdate(self.job, owner=self.owner, cancel=self.cancel_message))
            except Exception:  # a stopped registry: the run goes on without progress
                pass

    async def report_final(self, **fields: Any) -> None:
        """The run's last update: waits for mailbox room (bounded by the caller), never dropped."""
        self.job = replace(self.job, **fields)
        if self.jobs is not None:
            try:
                await self.jobs.tell(JobUpdate(self.job, owner=self.owner, cancel=self.cancel_message))
            except Exception:  # a stopped registry (shutdown): nothing to tell
                pass

    async def yield_while_playing(self) -> None:
        """Wait while someone plays (background work gives way to playback)."""
        while self.playing():
            await self.playback_changed().wait()


TaskRunner = Callable[[TaskContext], Awaitable[RunEnd]]


def trio_wall_clock(start: datetime | None = None) -> WallClock:
    """Wall time that advances with ``trio.current_time()`` (so an autojump
    clock drives schedules), anchored at ``start`` (default: now)."""
    anchor_wall = start or datetime.now(UTC)
    anchor_trio = trio.current_time()

    def now() -> datetime:
        return anchor_wall + timedelta(seconds=trio.current_time() - anchor_trio)

    return now


def seconds_until(wall: WallClock, at: datetime | None) -> float:
    """Seconds from now to ``at`` (inf for None, never negative)."""
    if at is None:
        return math.inf
    return max((at - wall()).total_seconds(), 0.0)


def cancel_reason(run: Any) -> str:
    if run.scope.deadline != float("inf") and trio.current_time() >= run.scope.deadline:
        return "The task's window closed."
    return "Cancelled."


def with_end(row: ScheduleRow, end: RunEnd, finished_ms: int) -> ScheduleRow:
    return replace(row, last_finished_ms=finished_ms, last_result=end.result, last_error_code=end.error_code,
                   last_error_libraries=end.error_libraries, last_message=end.message, running_since_ms=None)


def ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


@overload
def from_ms(ms: int) -> datetime: ...
@overload
def from_ms(ms: int | None) -> datetime | None: ...


def from_ms(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)
