"""Schedule routes: list every task's schedule, run one now."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import document_response

from reelhouse import errors
from reelhouse.actors.schedule import ListSchedules, RunNow

from .activity_recording import log_activity
from .asks import ask
from .context import app_context
from .openapi import may_answer
from .schema import ApiModel

blueprint = Blueprint("schedules", __name__)


class ScheduleWindow(ApiModel):
    start_minute: int
    end_minute: int


class ScheduleRule(ApiModel):
    trigger: str
    after_scan: bool
    cron: str | None = None
    every_seconds: int | None = None
    window: ScheduleWindow | None = None


class Schedule(ApiModel):
    task: str
    rules: list[ScheduleRule]
    paused: bool
    running: bool
    is_default: bool
    allows_after_scan: bool
    next_run_at: str | None = None
    last_started_at: str | None = None
    last_finished_at: str | None = None
    last_result: str | None = None
    last_error_code: str | None = None
    last_error_libraries: list[str] | None = None
    last_message: str | None = None
    names: dict[str, str] | None = None
    descriptions: dict[str, str] | None = None
    owner: str | None = None


class ScheduleList(ApiModel):
    time_zone: str
    schedules: list[Schedule]


def _scheduler() -> Any:
    scheduler = app_context().actors.scheduler
    if scheduler is None:
        raise errors.Unavailable("The scheduler is not running.", params={"retryAfterSeconds": 5})
    return scheduler


@blueprint.get("/admin/schedules")
@document_response(ScheduleList, 200)
async def list_schedules() -> dict[str, Any]:
    """Every task's rules, pause and running state, next and last run, in the server time zone."""
    return await ask(_scheduler(), ListSchedules())


@blueprint.post("/admin/schedules/<task>/run")
@document_response(Schedule, 202)
@may_answer((409, "The task is running."))
async def run_schedule(task: str) -> tuple[dict[str, Any], int]:
    """Start a task now, without changing its schedule: 404 for an unknown task, 409 while it runs."""
    schedule = await ask(_scheduler(), RunNow(task))
    await log_activity("schedule.run", "content", "schedule", task)
    return schedule, 202
