"""Collections and NFO sync requests (issue 33, items 3 and 4).

Shapes the reference leaves open, decided here (docs/metadata-jobs.md):

- ``POST /collections/fill`` (query ``libraryId`` optional: one library,
  404 when unknown; default every library) -> 202 JobStarted: the job
  ``collectionNameFill`` makes the collections NFO files name into
  BoxSets, drops BoxSets left empty, and reads each provider collection's
  name, overview and poster (``collectionsFilled`` filled, skipped).
  Recorded as ``library.collections_fill`` (target the library, or none).
- ``POST /libraries/{id}/nfo-sync`` (no body) -> 202 JobStarted: the job
  ``nfoSync`` writes NFO files and images for the library's items that
  have none, never over an existing file (``nfoWriteFailed`` failures when
  some folders refused).  409 ``nfo_write_disabled`` while the library's
  ``writeBack`` is off; 404.  Recorded as ``library.nfo_sync``.

BoxSets are listed with ``GET /items?type=BoxSet`` (other listings leave
them out unless ``type`` names BoxSet or ``ids`` names them); a BoxSet's
members are ``GET /items?parentId={boxSetId}``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from quart import Blueprint, request
from quart_schema import document_querystring, document_response

from reelhouse import errors
from reelhouse.actors.metadata_jobs import StartMetadataJob
from reelhouse.storage.libraries import LibraryRecord, get_library

from .activity_recording import log_activity
from .asks import ask
from .context import app_context
from .openapi import may_answer
from .rendered_models import JobStarted
from .schema import ApiModel

blueprint = Blueprint("metadata_jobs", __name__)


class CollectionsFillQuery(ApiModel):
    library_id: str | None = Field(None, description="Only this library (404 when unknown); default every library.")


async def _library(library_id: str) -> LibraryRecord:
    library = await get_library(app_context().store, library_id)
    if library is None:
        raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
    return library


async def _start(kind: str, library: LibraryRecord | None) -> dict[str, Any]:
    metadata = app_context().actors.metadata
    if metadata is None:
        raise errors.Unavailable("Metadata jobs are not running.", params={"retryAfterSeconds": 5})
    job = await ask(metadata, StartMetadataJob(kind, library))
    return {"jobId": job.id, "kind": job.kind}


@blueprint.post("/collections/fill")
@document_querystring(CollectionsFillQuery)
@document_response(JobStarted, 202)
@may_answer((404, "No library with that libraryId."))
async def collections_fill() -> tuple[dict[str, Any], int]:
    """Start collectionNameFill: NFO collections as BoxSets, provider collections' names and posters."""
    library_id = request.args.get("libraryId")
    library = await _library(library_id) if library_id is not None else None
    started = await _start("collectionNameFill", library)
    await log_activity("library.collections_fill", "content", "library" if library else "",
                       library.id if library else None, library.name if library else None,
                       {"jobId": started["jobId"]})
    return started, 202


@blueprint.post("/libraries/<library_id>/nfo-sync")
@document_response(JobStarted, 202)
@may_answer((409, "The library's writeBack is off (nfo_write_disabled)."))
async def nfo_sync(library_id: str) -> tuple[dict[str, Any], int]:
    """Start nfoSync: NFO files and images for the library's items that have none, never replacing a file."""
    library = await _library(library_id)
    if not library.options.write_back:
        raise errors.Conflict("The library does not write NFO files (writeBack is off).",
                              code="nfo_write_disabled", params={"libraryId": library_id})
    started = await _start("nfoSync", library)
    await log_activity("library.nfo_sync", "content", "library", library.id, library.name,
                       {"jobId": started["jobId"]})
    return started, 202
