"""Scan routes: start, cancel, status of every library, errors."""

from __future__ import annotations

from typing import Any

import trio
from quart import Blueprint, request
from quart_schema import document_querystring, document_request, document_response

from reelhouse import errors
from reelhouse.actors.library import GetScanStatus, StartScan, StopScan
from reelhouse.actors.library_registry import ListLibraryRefs
from reelhouse.actors.scan.status import ScanStatusView
from reelhouse.runtime import ActorRef
from reelhouse.storage.libraries import get_library, list_scan_errors
from reelhouse.timefmt import rfc3339_ms

from .activity_recording import log_activity
from .asks import ask, library_ref
from .context import app_context, ask_timeout
from .openapi import may_answer
from .rendered_models import ScanError, ScanErrorsQuery, ScanRequest, ScanStatus
from .schema import SimpleSuccess

blueprint = Blueprint("scans", __name__)

SCAN_MODES = ("quick", "full")
DEFAULT_SCAN_MODE = "quick"
MAX_SCAN_ERRORS = 1000


@blueprint.post("/libraries/<library_id>/scan")
@document_request(ScanRequest)
@document_response(SimpleSuccess)
@may_answer((409, "A scan already runs for this library."))
async def start_scan(library_id: str) -> dict[str, Any]:
    body = await _optional_json_object()
    mode = body.get("mode", DEFAULT_SCAN_MODE)
    if mode not in SCAN_MODES:
        raise errors.Invalid(f"mode must be one of {', '.join(SCAN_MODES)}.", field="mode")
    rewrite = body.get("rewrite", False)
    if not isinstance(rewrite, bool):
        raise errors.Invalid("rewrite must be true or false.", field="rewrite")
    library = await library_ref(library_id)
    await ask(library, StartScan(mode=mode, rewrite=rewrite, trigger="manual"))
    await log_activity("library.scan", "content", "library", library_id, details={"mode": mode})
    return SimpleSuccess(success=True, message="Scan started.").to_json()


@blueprint.post("/libraries/<library_id>/cancel-scan")
@document_response(SimpleSuccess)
@may_answer((409, "No scan runs for this library."))
async def cancel_scan(library_id: str) -> dict[str, Any]:
    await ask(await library_ref(library_id), StopScan())
    return SimpleSuccess(success=True, message="Scan cancellation requested.").to_json()


@blueprint.get("/scans/status")
@document_response(list[ScanStatus])
async def scan_status() -> list[dict[str, Any]]:
    return [status.to_json() for status in await all_scan_statuses(app_context().actors.libraries, ask_timeout())]


@blueprint.get("/scans/errors")
@document_querystring(ScanErrorsQuery)
@document_response(list[ScanError])
@may_answer((404, "No library libraryId."))
async def scan_errors() -> list[dict[str, Any]]:
    store = app_context().store
    library_id = request.args.get("libraryId") or None
    if library_id is not None and await get_library(store, library_id) is None:
        raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
    return [
        {
            "id": str(e.id),
            "libraryId": e.library_id,
            "path": e.path,
            "error": e.error,
            "occurredAt": rfc3339_ms(e.occurred_at_ms),
        }
        for e in await list_scan_errors(store, library_id, MAX_SCAN_ERRORS)
    ]


async def all_scan_statuses(libraries: ActorRef, timeout: float) -> list[ScanStatusView]:
    """Every library's ScanStatus, asked concurrently, each ask within ``timeout``.

    Needs no request context (an event stream's body runs after its
    request): the caller passes the timeout.
    """
    refs: dict[str, ActorRef] = await ask(libraries, ListLibraryRefs(), timeout=timeout)
    statuses: dict[str, ScanStatusView] = {}

    async def one(library_id: str, ref: ActorRef) -> None:
        try:
            statuses[library_id] = await ask(ref, GetScanStatus(), timeout=timeout)
        except errors.Unavailable:
            pass  # a library being restarted is left out of this answer

    async with trio.open_nursery() as nursery:
        for library_id, ref in refs.items():
            nursery.start_soon(one, library_id, ref)
    return [statuses[i] for i in sorted(statuses)]


async def _optional_json_object() -> dict[str, Any]:
    raw = await request.get_data()
    if not raw.strip():
        return {}
    body = await request.get_json(force=True)
    if not isinstance(body, dict):
        raise errors.Invalid("The body must be a JSON object.", code="bad_request")
    return body
