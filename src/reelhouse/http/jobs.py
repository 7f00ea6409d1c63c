"""Job routes: list and cancel background jobs."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, Response
from quart_schema import document_response

from reelhouse.actors.jobs import CancelJob, ListJobs

from .activity import log_activity
from .asks import ask
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
    await ask(app_context().actors.jobs, CancelJob(job_id))
    await log_activity("job.cancel", "content", "", job_id)
    return Response(b"", status=204)  # a bytes body: an empty list would be a sync iterable
