"""Scheduler: one actor owns the rules of every task (core and plugin) and starts runs.

Triggers (reelhouse.media.schedule does the time math): ``cron`` and
``interval`` due times computed after ``due_from`` (the last start or rule
change, stored), so a time missed while the server was down runs once at
start-up; ``idle`` once per quiet period (no playback, no scan for
``idle_minutes``); ``continuous`` again and again while no one plays;
``afterScan`` once after a scan completes; ``manual`` only when asked;
``database_maintenance`` also once after a library is deleted (the bus's
``library.deleted``, published by the LibraryRegistry). A
rule's ``window`` bounds when a run may start, and a run it started is
cancelled when the window closes. Each run is a job in the JobRegistry
(cancellable through it) and its end is stored as the task's last result.

Wall time comes from ``wall`` (default: anchored to ``trio.current_time``),
so tests and the benchmark drive months of schedules on an autojump clock.
"""

from __future__ import annotations

import heapq
import itertools
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import trio

from reelhouse import errors
from reelhouse.config import Settings
from reelhouse.media.schedule import Rule, allowed_at, next_due, next_window_open, window_close
from reelhouse.runtime import Actor, ActorRef, SubscriberDropped
from reelhouse.storage import Store, StoreError
from reelhouse.storage import schedules as stored
from reelhouse.storage.schedules import RunEnd, ScheduleRow

from ..jobs import JobSnapshot
from ..library_registry import LIBRARY_DELETED
from ._messages import CancelRun, GetDrift, ListSchedules, PlaybackActivity, RunNow, ScanActivity
from ._plugins import SyncPluginTasks, follow_plugin_tasks, run_plugin_task
from ._tasks import (
    RunPluginTask,
    TaskContext,
    TaskDefinition,
    TaskRunner,
    WallClock,
    seconds_until,
    trio_wall_clock,
)
from ._tasks import cancel_reason as _cancel_reason
from ._tasks import from_ms as _from_ms
from ._tasks import ms as _ms
from ._tasks import with_end as _with_end
from ._view import render_schedule

__all__ = ["CancelRun", "GetDrift", "ListSchedules", "PlaybackActivity", "RunNow", "ScanActivity", "Scheduler",
           "SchedulerServices"]

log = logging.getLogger(__name__)

CONTINUOUS_PAUSE_SECONDS = 5.0  # between continuous runs that did work
CONTINUOUS_IDLE_PAUSE_SECONDS = 900.0  # after a continuous run that found nothing to do
PLUGIN_RUN_TIMEOUT_SECONDS = 24 * 3600.0
RECORD_TIMEOUT_SECONDS = 5.0
# The check heap holds at most this many entries per task (plus the slack): stale ones are dropped beyond.
STALE_CHECKS_FACTOR, STALE_CHECKS_SLACK = 2, 16
_JOB_STATES = {"succeeded": "succeeded", "skipped": "succeeded", "failed": "failed", "cancelled": "cancelled"}
AFTER_LIBRARY_DELETE = "database_maintenance"  # the task a deleted library runs once (api reference)


@dataclass
class _Run:
    scope: trio.CancelScope
    started: datetime
    trigger: str


@dataclass
class _Task:
    definition: TaskDefinition
    row: ScheduleRow
    due_from: datetime
    next_at: datetime | None = None  # cached next cron/interval time (None: none)
    run: _Run | None = None
    after_scan_pending: bool = False
    once_pending: bool = False  # run once as soon as allowed (database_maintenance after a library delete)
    continuous_resume: datetime | None = None
    last_start: datetime | None = None
    check_at: datetime | None = None  # when the loop looks at this task again (its live heap entry)

    @property
    def rules(self) -> tuple[Rule, ...]:
        return self.row.rules if self.row.rules is not None else self.definition.default_rules

    @property
    def follows_signals(self) -> bool:
        """Whether scans or playback can make it due (idle, continuous, afterScan)."""
        return any(rule.trigger in ("idle", "continuous") or rule.after_scan for rule in self.rules)


@dataclass(frozen=True, slots=True)
class SchedulerServices:
    store: Store
    settings: Settings | None = None
    libraries: ActorRef | None = None
    jobs: ActorRef | None = None
    bus: Any = None  # EventBus: scan events for idle and afterScan, library.deleted
    time_zone: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    idle_seconds: float = 600.0
    reload_poll_seconds: float | None = None  # None: rules are read at start only
    plugins: ActorRef | None = None  # the plugin host: its tasks are followed at each poll


class Scheduler(Actor):
    def __init__(self, services: SchedulerServices, core: Mapping[str, tuple[TaskDefinition, TaskRunner]],
                 wall: WallClock | None = None) -> None:
        self._services = services
        self._core = dict(core)
        self._wall_given = wall
        self._tasks: dict[str, _Task] = {}
        self._changed = trio.Event()
        # Only tasks whose time came (a heap of check times) or that a change
        # concerns (dirty) are looked at: a wake costs little with 1,000 tasks.
        self._checks: list[tuple[datetime, int, str]] = []
        self._sequence = itertools.count()
        self._dirty: set[str] = set()
        self._busy_libraries: set[str] = set()
        self._playing = False
        self._playback_changed = trio.Event()
        self._quiet_since: datetime | None = None
        self._max_drift = 0.0

    async def on_start(self) -> None:
        self._wall = self._wall_given or trio_wall_clock()
        self._quiet_since = self._wall()
        store = self._services.store
        await stored.fail_interrupted_runs(store)
        await stored.ensure_tasks(store, [(d.name, None, d.allows_after_scan) for d, _ in self._core.values()],
                                  at_ms=_ms(self._quiet_since))
        rows = await stored.load_schedules(store)
        for definition, _runner in self._core.values():
            self._add(definition, rows.get(definition.name))
        self.nursery.start_soon(self._loop)
        if self._services.bus is not None:
            await self.nursery.start(self._follow_bus)
        if self._services.reload_poll_seconds is not None:
            self.nursery.start_soon(self._poll_revision, await stored.current_revision(store))
        if self._services.plugins is not None:
            self.nursery.start_soon(follow_plugin_tasks, self._services.plugins, self.ref,
                                    self._services.reload_poll_seconds)

    async def handle(self, msg: object) -> object:
        match msg:
            case ListSchedules():
                return self._list()
            case RunNow(task=task):
                return await self._run_now(task)
            case CancelRun(task=task):
                self._cancel(task)
            case ScanActivity():
                self._on_scan(msg)
            case PlaybackActivity(active=active):
                self._on_playback(active)
            case SyncPluginTasks(definitions=definitions):
                await self._sync_plugin_tasks(definitions)
            case GetDrift():
                return self._max_drift
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    # -- the loop -------------------------------------------------------------------

    async def _loop(self) -> None:
        while True:
            wake = self._start_due(self._wall())
            with trio.move_on_after(seconds_until(self._wall, wake)):
                await self._changed.wait()
            self._changed = trio.Event()

    def _start_due(self, now: datetime) -> datetime | None:
        """Start every task that is due; the earliest later time worth waking for."""
        names, self._dirty = self._dirty, set()
        while self._checks and self._checks[0][0] <= now:
            at, _seq, name = heapq.heappop(self._checks)
            task = self._tasks.get(name)
            if task is not None and task.check_at == at:
                names.add(name)
        for name in names:
            task = self._tasks.get(name)
            if task is None:
                continue
            task.check_at = None
            if task.row.paused:
                continue
            due, later = self._due(task, now)
            if due is not None:
                self._start_or_pass(task, due, now)
                _due, later = self._due(task, now)
            if later is not None:
                task.check_at = later
                heapq.heappush(self._checks, (later, next(self._sequence), name))
        if len(self._checks) > STALE_CHECKS_FACTOR * len(self._tasks) + STALE_CHECKS_SLACK:
            self._drop_stale_checks()
        return self._checks[0][0] if self._checks else None

    def _drop_stale_checks(self) -> None:
        """Keep only the live entry of each task: a task looked at again before its time
        leaves its old entry behind, one per scan for afterScan tasks, until that time."""
        self._checks = [(at, seq, name) for at, seq, name in self._checks
                        if (task := self._tasks.get(name)) is not None and task.check_at == at]  # fmt: skip
        heapq.heapify(self._checks)

    def _look_at(self, names: Iterable[str]) -> None:
        """Have the loop look at these tasks now."""
        self._dirty.update(names)
        self._changed.set()

    def _due(self, task: _Task, now: datetime) -> tuple[tuple[str, Rule] | None, datetime | None]:
        """(trigger and rule that make ``task`` due now, or None; the next time to look again)."""
        tz, later = self._services.time_zone, None
        if task.once_pending:
            return ("once", Rule("manual")), None
        for rule in task.rules:
            at = self._rule_due_at(task, rule, now)
            if at is None:
                continue
            if at > now:
                later = at if later is None or at < later else later
            elif not allowed_at(rule, now, tz):
                assert rule.window is not None
                opening = next_window_open(rule.window, now, tz)
                later = opening if later is None or opening < later else later
            else:
                return (self._trigger_of(task, rule, now), rule), later
        return None, later

    def _rule_due_at(self, task: _Task, rule: Rule, now: datetime) -> datetime | None:
        """When ``rule`` makes the task due (possibly in the past = now), or None."""
        if rule.after_scan and task.after_scan_pending:
            return now
        if rule.trigger in ("cron", "interval"):
            return task.next_at if task.next_at is not None else None
        if rule.trigger == "idle" and self._quiet_since is not None and not self._playing:
            idle_at = self._quiet_since + timedelta(seconds=self._services.idle_seconds)
            ran_this_period = task.last_start is not None and task.last_start >= idle_at
            return None if ran_this_period else idle_at
        if rule.trigger == "continuous" and not self._playing:
            return task.continuous_resume or now
        return None

    def _trigger_of(self, task: _Task, rule: Rule, now: datetime) -> str:
        return "scan" if rule.after_scan and task.after_scan_pending else rule.trigger

    def _start_or_pass(self, task: _Task, due: tuple[str, Rule], now: datetime) -> None:
        trigger, rule = due
        if task.run is not None:
            # Due while the last run still goes: this time is passed over (skipped).
            if trigger in ("cron", "interval"):
                self._set_due_from(task, now)
                self.nursery.start_soon(self._record, stored.record_due_passed, task.definition.name,
                                        _ms(now))
            return
        if trigger in ("cron", "interval") and task.next_at is not None:
            self._max_drift = max(self._max_drift, (now - task.next_at).total_seconds())
        deadline = window_close(rule.window, now, self._services.time_zone) if rule.window else None
        self._start(task, "scan" if trigger == "scan" else "auto", now, deadline, idle=trigger == "idle",
                    scheduled=trigger in ("cron", "interval"))

    # -- runs -------------------------------------------------------------------------

    def _start(self, task: _Task, trigger: str, now: datetime, deadline: datetime | None,
               *, idle: bool = False, scheduled: bool = False) -> None:
        """Start a run; a scheduled start also counts the next time from now
        (a manual one leaves the schedule as it is)."""
        scope = trio.CancelScope()
        if deadline is not None:
            scope.deadline = trio.current_time() + seconds_until(self._wall, deadline)
        task.run = _Run(scope, now, trigger)
        task.last_start = now
        task.after_scan_pending = task.once_pending = False
        task.row = replace(task.row, last_started_ms=_ms(now), running_since_ms=_ms(now))
        if scheduled:
            self._set_due_from(task, now)
        self.nursery.start_soon(self._execute, task, task.run, idle)

    async def _execute(self, task: _Task, run: _Run, idle: bool) -> None:
        name, definition = task.definition.name, task.definition
        started_ms = _ms(run.started)
        job = JobSnapshot(f"task:{name}", definition.job_kind, definition.title or name, "running", True,
                          subject=name, started_at_ms=started_ms, trigger=run.trigger)
        ctx = self._context(name, job)
        ctx.progress()
        # What is recorded when the run is cancelled from outside (shutdown).
        end = RunEnd("cancelled", message="The server stopped while this task was running.")
        # Recorded beside the run, not before it: a run starts when it is due,
        # whatever the database's latency.
        self.nursery.start_soon(self._record, stored.record_start, name, started_ms, run.trigger != "manual")
        try:
            with run.scope:
                end = await self._work(task, ctx)
            if run.scope.cancelled_caught:
                end = RunEnd("cancelled", message=_cancel_reason(run))
        except Exception as exc:  # a failing run is recorded; the scheduler lives on
            log.exception("task %s failed", name)
            end = RunEnd("failed", "unknown", message=f"{type(exc).__name__}: {exc}")
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(RECORD_TIMEOUT_SECONDS):
                await self._finish(task, run, ctx, end, idle)

    async def _work(self, task: _Task, ctx: TaskContext) -> RunEnd:
        definition = task.definition
        if definition.runner is not None:
            reply = await definition.runner.ask(RunPluginTask(definition.name, ctx.job.id),
                                                timeout=PLUGIN_RUN_TIMEOUT_SECONDS)
            return reply if isinstance(reply, RunEnd) else RunEnd("succeeded")
        if definition.owner is not None and self._services.plugins is not None:
            return await run_plugin_task(self._services.plugins, definition.name)
        _definition, runner = self._core[definition.name]
        return await runner(ctx)

    async def _finish(self, task: _Task, run: _Run, ctx: TaskContext, end: RunEnd, idle: bool) -> None:
        now = self._wall()
        task.run = None
        if any(rule.trigger == "continuous" for rule in task.rules):
            pause = CONTINUOUS_IDLE_PAUSE_SECONDS if end.result == "skipped" else CONTINUOUS_PAUSE_SECONDS
            task.continuous_resume = now + timedelta(seconds=pause)
        task.row = _with_end(task.row, end, _ms(now))
        self._look_at([task.definition.name])
        await ctx.report_final(state=_JOB_STATES.get(end.result, "failed"), cancellable=False,
                               finished_at_ms=_ms(now), message=ctx.job.message or end.message,
                               system=True if idle and not ctx.job.changed else ctx.job.system)
        await self._record(stored.record_end, task.definition.name, end, _ms(now))

    def _context(self, name: str, job: JobSnapshot) -> TaskContext:
        services = self._services
        return TaskContext(
            task=name, job=job, store=services.store, settings=services.settings,
            libraries=services.libraries, jobs=services.jobs, owner=self.ref, cancel_message=CancelRun(name),
            playing=lambda: self._playing, playback_changed=lambda: self._playback_changed, wall=self._wall,
        )  # fmt: skip

    async def _run_now(self, name: str) -> dict[str, Any]:
        task = self._tasks.get(name)
        if task is None:
            raise errors.NotFound(f"No task {name}.", params={"task": name})
        if task.run is not None:
            raise errors.Conflict(f"Task {name} is already running.", params={"task": name})
        self._start(task, "manual", self._wall(), None)
        self._look_at([name])
        return self._render(task)

    def _cancel(self, name: str) -> None:
        task = self._tasks.get(name)
        if task is None or task.run is None:
            raise errors.Conflict(f"Task {name} is not running.", params={"task": name})
        task.run.scope.cancel()

    # -- rules, registration, signals -----------------------------------------------

    def _add(self, definition: TaskDefinition, row: ScheduleRow | None) -> None:
        row = row or ScheduleRow(definition.name, definition.owner, definition.allows_after_scan)
        due_from = _from_ms(row.due_from_ms) if row.due_from_ms is not None else self._wall()
        task = _Task(definition, row, due_from, last_start=_from_ms(row.last_started_ms))
        self._tasks[definition.name] = task
        self._recompute(task)
        self._dirty.add(definition.name)

    def _set_due_from(self, task: _Task, at: datetime) -> None:
        task.due_from = at
        self._recompute(task)

    def _recompute(self, task: _Task) -> None:
        times = [next_due(rule, task.due_from, self._services.time_zone) for rule in task.rules]
        present = [t for t in times if t is not None]
        task.next_at = min(present) if present else None

    async def _reload(self) -> None:
        rows = await stored.load_schedules(self._services.store)
        for name, task in self._tasks.items():
            row = rows.get(name)
            if row is None:
                continue
            task.row = row
            if row.due_from_ms is not None:
                task.due_from = _from_ms(row.due_from_ms)
            self._recompute(task)
        self._look_at(self._tasks)

    async def _register(self, definition: TaskDefinition) -> None:
        await stored.ensure_tasks(self._services.store,
                                  [(definition.name, definition.owner, definition.allows_after_scan)],
                                  at_ms=_ms(self._wall()))
        row = await stored.get_schedule(self._services.store, definition.name)
        self._add(definition, row)
        self._look_at([definition.name])

    def _unregister(self, name: str) -> None:
        task = self._tasks.get(name)
        if task is None or task.definition.owner is None:
            raise errors.NotFound(f"No plugin task {name}.", params={"task": name})
        if task.run is not None:
            task.run.scope.cancel()
        del self._tasks[name]

    async def _sync_plugin_tasks(self, definitions: Iterable[TaskDefinition]) -> None:
        """Register plugin tasks that appeared (or changed while idle); forget those gone."""
        wanted = {definition.name: definition for definition in definitions}
        for name in [n for n, t in self._tasks.items() if t.definition.owner is not None and n not in wanted]:
            self._unregister(name)
        for name, definition in wanted.items():
            current = self._tasks.get(name)
            if current is None or (current.definition != definition and current.run is None):
                try:
                    await self._register(definition)
                except StoreError:  # tried again at the next poll
                    log.exception("could not register plugin task %s", name)

    def _on_scan(self, msg: ScanActivity) -> None:
        if msg.active and msg.library_id in self._busy_libraries:
            return  # progress of a scan already seen: nothing changes
        if msg.active:
            self._busy_libraries.add(msg.library_id)
        else:
            self._busy_libraries.discard(msg.library_id)
            if msg.completed:
                for task in self._tasks.values():
                    if any(rule.after_scan for rule in task.rules):
                        task.after_scan_pending = True
        self._quiet_since = None if self._busy_libraries or self._playing else self._wall()
        self._look_at(name for name, task in self._tasks.items() if task.follows_signals)

    def _on_playback(self, active: bool) -> None:
        self._playing = active
        self._playback_changed.set()
        self._playback_changed = trio.Event()
        self._quiet_since = None if self._busy_libraries or active else self._wall()
        self._look_at(name for name, task in self._tasks.items() if task.follows_signals)

    async def _follow_bus(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Scan events -> ScanActivity, library.deleted -> a maintenance run; subscribes
        again if the bus dropped it for lagging."""
        started = False
        while True:
            try:
                async with self._services.bus.subscribe() as subscription:
                    if not started:
                        task_status.started()
                        started = True
                    async for event in subscription:
                        self._on_bus_event(event)
                    return  # the bus stopped
            except SubscriberDropped:
                log.warning("scheduler: scan events dropped (too slow); subscribing again")

    def _on_bus_event(self, event: object) -> None:
        kind, data = getattr(event, "kind", ""), getattr(event, "data", {})
        library_id = data.get("libraryId") if isinstance(data, Mapping) else None
        if kind == LIBRARY_DELETED:
            self._run_once(AFTER_LIBRARY_DELETE)
        elif library_id and kind.startswith("scan."):
            final = kind in ("scan.completed", "scan.failed", "scan.cancelled")
            self._on_scan(ScanActivity(library_id, not final, kind == "scan.completed"))

    def _run_once(self, name: str) -> None:
        """Run ``name`` once as soon as it is neither running nor paused (however often asked meanwhile)."""
        if (task := self._tasks.get(name)) is not None:
            task.once_pending = True
            self._look_at([name])

    async def _poll_revision(self, revision: int) -> None:
        assert self._services.reload_poll_seconds is not None
        while True:
            await trio.sleep(self._services.reload_poll_seconds)
            try:
                latest = await stored.current_revision(self._services.store)
            except StoreError:
                continue
            if latest != revision:
                revision = latest
                await self._reload()

    async def _record(self, write: Any, *args: Any) -> None:
        try:
            await write(self._services.store, *args)
        except StoreError:
            log.exception("could not record a schedule change (%s)", getattr(write, "__name__", write))

    # -- views ----------------------------------------------------------------------

    def _render(self, task: _Task) -> dict[str, Any]:
        return render_schedule(task.definition, task.row, task.rules, running=task.run is not None,
                               next_at=None if task.row.paused else task.next_at)

    def _list(self) -> dict[str, Any]:
        core = [t for t in self._tasks.values() if t.definition.owner is None]
        plugins = sorted((t for t in self._tasks.values() if t.definition.owner is not None),
                         key=lambda t: t.definition.name)
        return {"timeZone": self._services.time_zone.key, "schedules": [self._render(t) for t in core + plugins]}

