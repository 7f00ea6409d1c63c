"""Library routes: list, create, get, refresh, rescrape."""

from __future__ import annotations

from typing import Any, Literal

from quart import Blueprint
from quart_schema import document_request, document_response, validate_request, validate_response

from reelhouse import errors
from reelhouse.actors.library import GetLibraryRuntime, LibraryRuntime, StartScan
from reelhouse.actors.library_registry import CreateLibrary
from reelhouse.media.library_options import effective
from reelhouse.jsonfields import put_time
from reelhouse.storage import StoreError
from reelhouse.storage.covers import StoredCover
from reelhouse.storage.libraries import LibraryRecord, get_library, library_counts, list_libraries, queue_rescrape
from reelhouse.timefmt import rfc3339_ms

from .activity import log_activity
from .asks import ask, library_ref
from .context import app_context
from .openapi import may_answer
from .rendered_models import CreateLibraryBody, Library
from .schema import ApiModel, SimpleSuccess

blueprint = Blueprint("libraries", __name__)


class CreateLibraryRequest(ApiModel):
    name: str
    paths: list[str]
    collection_type: str | None = None
    options: dict[str, Any] | None = None
    realtime_monitor: bool | None = None
    access_user_ids: list[str] = []


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
    await log_activity("library.create", "settings", "library", record.id, record.name, {"paths": list(record.paths)})
    return await _library_json(record, with_scrape_pending=False), 201


@blueprint.get("/libraries/<library_id>")
@document_response(Library)
async def get_one(library_id: str) -> dict[str, Any]:
    return await _library_json(await _require(library_id), with_scrape_pending=True)


@blueprint.post("/libraries/<library_id>/refresh")
@validate_request(RefreshMetadataRequest)
@document_response(SimpleSuccess, 202)
@may_answer(409)
async def refresh(library_id: str, data: RefreshMetadataRequest) -> tuple[dict[str, Any], int]:
    library = await _require(library_id)
    # Until metadata providers exist, a refresh re-reads every NFO file and
    # local image: a full scan that treats every directory as changed.
    await ask(await library_ref(library_id), StartScan(mode="full", rewrite=True, trigger="refresh"))
    await log_activity("library.refresh", "content", "library", library_id, library.name, {"mode": data.mode})
    return SimpleSuccess(success=True, message="Refresh started.").to_json(), 202


@blueprint.post("/libraries/<library_id>/rescrape")
@validate_response(RescrapeResult)
async def rescrape(library_id: str) -> RescrapeResult:
    library = await _require(library_id)
    queued, skipped = await queue_rescrape(app_context().store, library_id)
    await log_activity("library.rescrape", "content", "library", library_id, library.name, {"queued": queued})
    return RescrapeResult(queued=queued, skipped=skipped)


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

