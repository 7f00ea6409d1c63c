"""People: a person's page, their picture, and the jobs that fill them (issue 33, item 2).

Shapes the reference leaves open, decided here (docs/metadata-jobs.md):

- ``GET /people/{id}`` -> Person: ``id``, ``name``, ``sortName``,
  ``imageTag`` (when a picture is kept), ``overview``, ``birthDate``,
  ``deathDate``, ``birthPlace``, ``homepage``, ``providerIds``,
  ``detailsState`` (``pending``, ``filled``, ``skipped``, ``failed``) and
  ``credits`` (``itemId``, ``name``, ``type``, ``kind``, ``role``,
  ``productionYear``; newest first, at most 200: the whole list, pageable,
  is ``GET /items?personId={id}``).  404 for an unknown person; a member
  sees a person credited in an item they may see, credits of those only.
- ``GET /images/people/{id}``: the person's picture with the item image
  route's parameters and caching (tag, maxWidth, maxHeight, fillWidth,
  fillHeight; ETag, ranges, 304); 404 when there is none.
- ``POST /people/details-fill``, ``/people/recheck``,
  ``/people/source-refetch`` (no body) -> 202 JobStarted ``{jobId, kind}``:
  jobs ``personDetailsFill``, ``personRecheck``, ``personSourceRefetch``
  (progress in GET /jobs); asking while one runs answers the running one.
  409 ``no_person_provider`` when no enabled plugin declares
  ``metadata.person`` (details-fill and recheck).  Recorded as
  ``person.details_fill``, ``person.recheck``, ``person.source_refetch``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from quart import Blueprint, Response, request
from quart_schema import document_querystring, document_response
from werkzeug.http import http_date

from reelhouse import errors
from reelhouse.actors.metadata_jobs import PERSON_CAPABILITY, StartMetadataJob
from reelhouse.actors.scrape.providers import plugin_views
from reelhouse.storage.confined_files import OutsideRoots
from reelhouse.storage.parental_filter import allowed_item_ids
from reelhouse.storage.people import find_person_image, person_confinement, person_item_libraries, read_person

from .activity_recording import log_activity
from .asks import ask
from .context import app_context
from .device_auth import library_scope_of_request
from .file_body import stat_within
from .image_service import image_service
from .image_sources import SourceImage, source_file_call
from .images import IMAGE_TYPES, ImageQuery, ImageRequest, parse_image_request, serve_source_image
from .library_access import parental_rule_of_request
from .openapi import BINARY, may_answer, raw_response
from .rendered_models import JobStarted, Person

blueprint = Blueprint("people", __name__)
_USABLE = frozenset({"idle", "starting", "running", "restarting"})
VISIBILITY_LIMIT = 2000  # credited items looked at for a member's request


@blueprint.get("/people/<person_id>")
@document_response(Person)
async def get_person(person_id: str) -> dict[str, Any]:
    """A person: details from the provider, picture tag, and credits (newest first, at most 200)."""
    visible = await _visible_credits(person_id)
    return await read_person(app_context().store, person_id, items=visible)


@blueprint.get("/images/people/<person_id>")
@document_querystring(ImageQuery)
@raw_response(200, IMAGE_TYPES, "The picture: the stored file, or a JPEG or WebP rendition.", BINARY)
@raw_response(206, IMAGE_TYPES, "The requested byte range of the picture.", BINARY)
@raw_response(304, None, "Not modified (If-None-Match, If-Modified-Since).")
@may_answer((412, "A precondition failed."), (416, "The range cannot be satisfied."))
async def person_image(person_id: str) -> Response:
    """A person's picture, with the item image route's sizes, tags and caching; 404 when none."""
    return await serve_person_image(person_id, parse_image_request(request.args))


async def serve_person_image(person_id: str, wanted: ImageRequest) -> Response:
    """The picture of a person the request may see (the native and the Jellyfin surface's answer)."""
    await _visible_credits(person_id)
    stored = await find_person_image(app_context().store, person_id)
    within = person_confinement(app_context().settings.data_dir)
    path = Path(stored.path)
    try:
        size, mtime = await source_file_call(image_service().files, stat_within, path, within)
    except (FileNotFoundError, NotADirectoryError, OutsideRoots):
        raise errors.NotFound("The person's picture is missing.") from None
    modified = datetime.fromtimestamp(mtime, UTC)
    source = SourceImage(path, stored.tag, size, modified, http_date(modified), (), within, provider=True)
    return await serve_source_image(source, wanted, f"person {person_id}")


async def _visible_credits(person_id: str) -> frozenset[str] | None:
    """The credited items the request may see (None: all); 404 when it may see none of them."""
    scope = library_scope_of_request()
    rule = await parental_rule_of_request()
    if (scope is None or scope.library_ids is None) and rule is None:
        return None
    store = app_context().store
    credited = await person_item_libraries(store, person_id, limit=VISIBILITY_LIMIT)
    if scope is not None and scope.library_ids is not None:
        credited = {item: library for item, library in credited.items() if scope.allows(library)}
    visible = set(credited)
    if rule is not None and visible:
        visible = set(await allowed_item_ids(store, sorted(visible), rule))
    if not visible:
        raise errors.NotFound(f"No person {person_id}.", params={"personId": person_id})
    return frozenset(visible)


async def _start(kind: str, action: str, *, needs_provider: bool) -> tuple[dict[str, Any], int]:
    ctx = app_context()
    if ctx.actors.metadata is None:
        raise errors.Unavailable("Metadata jobs are not running.", params={"retryAfterSeconds": 5})
    if needs_provider and not await _has_person_provider():
        raise errors.Conflict("No enabled plugin provides people's details.", code="no_person_provider")
    job = await ask(ctx.actors.metadata, StartMetadataJob(kind))
    await log_activity(action, "content", "", None, None, {"jobId": job.id})
    return {"jobId": job.id, "kind": job.kind}, 202


async def _has_person_provider() -> bool:
    views = await plugin_views(app_context().actors.plugins)
    return any(view.entry.manifest is not None and view.status in _USABLE
               and PERSON_CAPABILITY in view.entry.manifest.capabilities for view in views.values())


@blueprint.post("/people/details-fill")
@document_response(JobStarted, 202)
@may_answer((409, "No enabled plugin provides people's details (no_person_provider)."))
async def people_details_fill() -> tuple[dict[str, Any], int]:
    """Start personDetailsFill: details and pictures of people never asked."""
    return await _start("personDetailsFill", "person.details_fill", needs_provider=True)


@blueprint.post("/people/recheck")
@document_response(JobStarted, 202)
@may_answer((409, "No enabled plugin provides people's details (no_person_provider)."))
async def people_recheck() -> tuple[dict[str, Any], int]:
    """Start personRecheck: ask again for the people skipped or failed before."""
    return await _start("personRecheck", "person.recheck", needs_provider=True)


@blueprint.post("/people/source-refetch")
@document_response(JobStarted, 202)
async def people_source_refetch() -> tuple[dict[str, Any], int]:
    """Start personSourceRefetch: pictures whose file is gone fetched again from their source."""
    return await _start("personSourceRefetch", "person.source_refetch", needs_provider=False)
