"""Job routes: list and cancel background jobs."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, Response
from quart_schema import document_response

from reelhouse import errors
from reelhouse.actors.jobs import CancelRoute, ListJobs, RouteCancel
from reelhouse.actors.library_messages import StopScan
from reelhouse.actors.schedule import CancelRun

from .activity_recording import log_activity
from .asks import ask, library_ref
from .context import app_context
from .openapi import may_answer, raw_response
from .rendered_models import Job

blueprint = Blueprint("jobs", __name__)


@blueprint.get("/jobs")
@document_response(list[Job])
async def list_jobs() -> list[dict[str, Any]]:
    return await ask(app_context().actors.jobs, ListJobs())


@blueprint.post("/jobs/<job_id>/cancel")
@raw_response(204, None, "Cancellation requested.")
@may_answer((409, "The job cannot be cancelled now."))
async def cancel_job(job_id: str) -> Response:
    # Down the tree: the registry names the job's owner, the owner cancels
    # (the registry itself never asks an owner, which tells it).
    try:
        route: CancelRoute = await ask(app_context().actors.jobs, RouteCancel(job_id))
    except (errors.NotFound, errors.Conflict):
        route = await _elsewhere(job_id)  # another node's job (a cluster), or the same answer again
    await ask(route.owner, route.cancel)
    await log_activity("job.cancel", "content", "", job_id)
    return Response(b"", status=204)  # a bytes body: an empty list would be a sync iterable


async def _elsewhere(job_id: str) -> CancelRoute:
    """In a cluster, a scan or task job runs on the node leading it: the route through
    the library's or the scheduler's ref, which reaches that node (actors/cluster)."""
    ctx = app_context()
    kind, _, subject = job_id.partition(":")
    if ctx.actors.cluster is not None and kind == "scan" and subject:
        return CancelRoute(await library_ref(subject), StopScan())
    if ctx.actors.cluster is not None and kind == "task" and subject and ctx.actors.scheduler is not None:
        return CancelRoute(ctx.actors.scheduler, CancelRun(subject))
    return await ask(ctx.actors.jobs, RouteCancel(job_id))  # one server: its answer stands
