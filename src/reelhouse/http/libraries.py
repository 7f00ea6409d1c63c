"""Library routes: list, create, get, delete, refresh, rescrape, scrape requeue,
settings update, mass-missing confirmation."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from quart import Blueprint, Response, request
from quart_schema import document_request, document_response, validate_request, validate_response

from reelhouse import errors
from reelhouse.actors.library import (
    ConfirmMissing,
    GetLibraryRuntime,
    LibraryRuntime,
    OptionsUpdated,
    StartScan,
    UpdateOptions,
)
from reelhouse.actors.library_registry import CreateLibrary, DeleteLibrary
from reelhouse.actors.scrape.queue import Queued, Requeue
from reelhouse.jsonfields import put_time
from reelhouse.media.library_options import CAMEL_NAMES, effective
from reelhouse.storage import StoreError
from reelhouse.storage.covers import StoredCover
from reelhouse.storage.libraries import (
    LibraryRecord,
    count_scrape_requeue,
    get_library,
    library_counts,
    list_libraries,
)
from reelhouse.storage.scrape_queue import REFRESH_STATES
from reelhouse.timefmt import rfc3339_ms

from .activity_recording import log_activity
from .asks import ask, library_ref, scrape_queue_ref
from .context import app_context
from .device_auth import verified_devices
from .library_options import LibraryOptionsUpdate, LibraryWithHints
from .openapi import may_answer, raw_response
from .rendered_models import CreateLibraryBody, Library
from .schema import ApiModel, SimpleSuccess

blueprint = Blueprint("libraries", __name__)

_SETTINGS_NAMES = frozenset({*CAMEL_NAMES.values(), "followStorage"})


class CreateLibraryRequest(ApiModel):
    name: str
    paths: list[str]
    collection_type: str | None = None
    options: dict[str, Any] | None = None
    realtime_monitor: bool | None = None
    access_user_ids: list[str] = Field(default_factory=list)


class RefreshMetadataRequest(ApiModel):
    mode: Literal["missing", "replaceAll"]
    recursive: bool = False
    replace_images: bool = False


class RescrapeResult(ApiModel):
    queued: int
    skipped: int


@blueprint.get("/libraries")
@document_response(list[Library])
async def list_all() -> list[dict[str, Any]]:
    records = await list_libraries(app_context().store)
    return [await _library_json(record, with_scrape_pending=True) for record in records]


@blueprint.post("/libraries")
@document_request(CreateLibraryBody)  # the contract; CreateLibraryRequest leaves the checks to the registry
@validate_request(CreateLibraryRequest)
@document_response(Library, 201)
async def create(data: CreateLibraryRequest) -> tuple[dict[str, Any], int]:
    registry = app_context().actors.libraries
    record: LibraryRecord = await ask(
        registry,
        CreateLibrary(
            name=data.name,
            paths=data.paths,
            collection_type=data.collection_type,
            options=data.options,
            realtime_monitor=data.realtime_monitor,
            access_user_ids=tuple(data.access_user_ids),
        ),
    )
    if data.access_user_ids:
        verified_devices().forget_all()  # the members given access see the library on their next request
    await log_activity("library.create", "settings", "library", record.id, record.name, {"paths": list(record.paths)})
    return await _library_json(record, with_scrape_pending=False), 201


@blueprint.get("/libraries/<library_id>")
@document_response(Library)
async def get_one(library_id: str) -> dict[str, Any]:
    return await _library_json(await _require(library_id), with_scrape_pending=True)


@blueprint.delete("/libraries/<library_id>")
@raw_response(204, None, "The library and everything of it are deleted; its files are left as they are.")
async def delete(library_id: str) -> Response:
    """Delete a library (204): its scan is cancelled, its items and settings go, and
    ``database_maintenance`` runs once soon after. The files on disk are never touched.
    404 not_found for an unknown id."""
    record: LibraryRecord = await ask(app_context().actors.libraries, DeleteLibrary(library_id))
    if record.access_user_ids:
        verified_devices().forget_all()  # the members' access lists changed with it
    await log_activity("library.delete", "deletion", "library", record.id, record.name, {"paths": list(record.paths)})
    return Response(b"", status=204)


@blueprint.post("/libraries/<library_id>/refresh")
@validate_request(RefreshMetadataRequest)
@document_response(SimpleSuccess, 202)
@may_answer((409, "The library has no metadata provider and a scan of it is running."))
async def refresh(library_id: str, data: RefreshMetadataRequest) -> tuple[dict[str, Any], int]:
    """Queue a metadata refresh of every work of the library.

    With a metadata provider selected, ``missing`` queues the works never
    scraped, failed or awaiting identification, ``replaceAll`` every work
    that is not locked (provider fields replaced; ``replaceImages`` also
    replaces provider images); the scrape queue (job ``scrape:{id}``) does
    the work. Without one, a refresh re-reads every NFO file and local
    image: a full scan that treats every directory as changed (409 while a
    scan runs).
    """
    library = await _require(library_id)
    if library.options.metadata_providers:
        queued: Queued = await ask(await scrape_queue_ref(library_id), Requeue(
            REFRESH_STATES[data.mode], mode=data.mode, replace_images=data.replace_images))
        details: dict[str, Any] = {"mode": data.mode, "queued": queued.queued}
    else:
        await ask(await library_ref(library_id), StartScan(mode="full", rewrite=True, trigger="refresh"))
        details = {"mode": data.mode}
    await log_activity("library.refresh", "content", "library", library_id, library.name, details)
    return SimpleSuccess(success=True, message="Refresh started.").to_json(), 202


@blueprint.post("/libraries/<library_id>/rescrape")
@validate_response(RescrapeResult)
async def rescrape(library_id: str) -> RescrapeResult:
    """Queue the works never matched (``needsIdentify``) or failed; ``skipped``
    counts those left alone because they are locked."""
    library = await _require(library_id)
    queued: Queued = await ask(await scrape_queue_ref(library_id), Requeue(("failed", "needsIdentify")))
    await log_activity("library.rescrape", "content", "library", library_id, library.name,
                       {"queued": queued.queued, "skipped": queued.skipped})
    return RescrapeResult(queued=queued.queued, skipped=queued.skipped)


@blueprint.post("/libraries/<library_id>/scrape-requeue")
@validate_response(RescrapeResult)
async def scrape_requeue(library_id: str) -> RescrapeResult:
    """Queue the works indexed before the library scraped (``scrapeState``
    ``none``; with an NFO only when ``fillMissingFromProvider`` is on), as
    ``scrapeRequeueCount`` counted them; locked ones are ``skipped``."""
    library = await _require(library_id)
    queued: Queued = await ask(await scrape_queue_ref(library_id), Requeue(
        ("none",), with_nfo=library.options.fill_missing_from_provider))
    await log_activity("library.scrape_requeue", "content", "library", library_id, library.name,
                       {"queued": queued.queued, "skipped": queued.skipped})
    return RescrapeResult(queued=queued.queued, skipped=queued.skipped)


@blueprint.patch("/libraries/<library_id>/options")
@document_request(LibraryOptionsUpdate)
@document_response(LibraryWithHints, 200)
@may_answer((403, "A setting needs a licence this server does not have."))
async def update_options(library_id: str) -> dict[str, Any]:
    """Change a library's settings (the reference's LibraryOptionsUpdate rules).

    Answers the Library with its new effective options and the update hints
    (rescanSuggested, rescanRewrite, nfoSyncSuggested, remoteReadsSuggested,
    scrapeRequeueSuggested, scrapeRequeueCount). Saving never starts a scan
    or queues work.
    """
    body = await request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        raise errors.Invalid("The body must be a JSON object (a LibraryOptionsUpdate).", code="bad_request")
    library = await library_ref(library_id)
    updated: OptionsUpdated = await ask(library, UpdateOptions(body))
    record, hints = updated.record, updated.hints
    data = await _library_json(record, with_scrape_pending=True)
    data.update(hints.to_json())
    if hints.scrape_requeue_suggested:
        try:
            data["scrapeRequeueCount"] = await count_scrape_requeue(
                app_context().store, library_id, with_nfo=record.options.fill_missing_from_provider
            )
        except StoreError:
            pass  # omitted when uncountable
    given = sorted(key for key in body if key in _SETTINGS_NAMES)  # names only, never values
    await log_activity("library.update", "settings", "library", library_id, record.name, {"fields": given})
    return data


@blueprint.post("/libraries/<library_id>/confirm-missing")
@document_response(SimpleSuccess, 200)
@may_answer((409, "No scan of this library waits for confirmation."))
async def confirm_missing(library_id: str) -> dict[str, Any]:
    """Confirm a scan paused by the mass-missing safeguard: the items it
    would have marked missing are marked now. 409 when nothing waits."""
    marked: int = await ask(await library_ref(library_id), ConfirmMissing())
    return SimpleSuccess(success=True, message=f"{marked} items marked missing.").to_json()


async def _require(library_id: str) -> LibraryRecord:
    record = await get_library(app_context().store, library_id)
    if record is None:
        raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
    return record


def _covers_json(covers: dict[str, StoredCover]) -> dict[str, Any]:
    """LibraryCovers: no upload exists, so never custom; a kind without a cover is omitted."""
    data: dict[str, Any] = {"customPrimary": False, "customThumb": False}
    for kind, cover in covers.items():
        data[kind] = cover.tag
        data[f"{kind}Source"] = cover.source
        if cover.source == "auto":
            data[f"{kind}Final"] = cover.final
            put_time(data, f"{kind}GeneratedAt", cover.generated_at_ms)
    return data


async def _library_json(record: LibraryRecord, *, with_scrape_pending: bool) -> dict[str, Any]:
    ctx = app_context()
    data: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "paths": list(record.paths),
        "collectionType": record.collection_type,
        "options": effective(record.options, global_probe_limit=ctx.settings.scan.probe_concurrency),
        "covers": _covers_json(record.covers),
        "strmPluginEnabled": False,
    }
    try:
        works, has_strm, scrape_pending = await library_counts(ctx.store, record.id)
    except StoreError:
        pass  # counts are omitted while they cannot be determined
    else:
        data["itemCount"] = works
        data["hasStrmSources"] = has_strm
        if with_scrape_pending:
            data["scrapePending"] = scrape_pending
    runtime: LibraryRuntime = await ask(await library_ref(record.id), GetLibraryRuntime())
    if runtime.last_scanned_at_ms is not None and not runtime.scanning:
        data["lastScannedAt"] = rfc3339_ms(runtime.last_scanned_at_ms)
    return data

