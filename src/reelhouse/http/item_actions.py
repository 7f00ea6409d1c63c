"""Item commands: refresh metadata, identify, rescan the item's directory."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, RootModel
from quart import Blueprint
from quart_schema import document_response, validate_request

from reelhouse import errors
from reelhouse.actors.library import StartScan
from reelhouse.actors.rescans import RescanDirectories
from reelhouse.actors.scrape.identify import Identify, IdentifyApply
from reelhouse.actors.scrape.queue import Queued, Requeue
from reelhouse.storage.item_detail import item_detail
from reelhouse.storage.libraries import ItemLocation, get_library, item_location
from reelhouse.storage.scrape_queue import REFRESH_STATES, work_ids_under

from .activity_recording import log_activity
from .asks import ask, library_ref, scrape_queue_ref
from .context import app_context
from .items import ItemDetail
from .libraries import RefreshMetadataRequest
from .library_access import require_item_visible
from .openapi import may_answer
from .schema import ApiModel, SimpleSuccess

blueprint = Blueprint("item_actions", __name__)
IDENTIFY_TIMEOUT_SECONDS = 60.0  # a series' details and every season on disk, through the plugin


class IdentifyRequest(ApiModel):
    """``{query, year?}`` lists candidates; ``{providerId, providerItemId}`` applies one."""

    query: str | None = Field(default=None, max_length=500)
    year: int | None = Field(default=None, ge=1800, le=3000)
    provider_id: str | None = Field(default=None, max_length=200)
    provider_item_id: str | None = Field(default=None, max_length=200)


class IdentifyCandidate(ApiModel):
    provider_id: str
    provider_item_id: str
    name: str
    year: int | None = None
    overview: str | None = None
    image_url: str | None = None


class IdentifyCandidates(ApiModel):
    candidates: list[IdentifyCandidate]


class IdentifiedItem(ItemDetail):
    """The ItemDetail, with ``writeBackWarning`` when writeBack could not write."""

    write_back_warning: Literal["unavailable", "conflict", "failed"] | None = None


class IdentifyAnswer(RootModel[IdentifyCandidates | IdentifiedItem]):
    """The candidates (for a query) or the item as identified (for a choice)."""


@blueprint.post("/items/<item_id>/refresh")
@validate_request(RefreshMetadataRequest)
@document_response(SimpleSuccess, 202)
@may_answer(409)
async def refresh_item(item_id: str, data: RefreshMetadataRequest) -> tuple[dict[str, Any], int]:
    """Refresh the item's metadata.

    With a metadata provider selected, the work behind the item (the item,
    a season's or episode's series; for a folder with ``recursive``, the
    works under it) is queued for the scrape queue: ``missing`` only if it
    was never scraped, failed or awaits identification, ``replaceAll``
    always (provider fields replaced, provider images too with
    ``replaceImages``). Without one, the item's folder is re-read (NFO,
    local images); 409 while a scan of its library runs.
    """
    item = await _locate(item_id)
    library = await get_library(app_context().store, item.library_id)
    if library is not None and library.options.metadata_providers:
        works = await work_ids_under(app_context().store, item_id)
        if item.type not in ("Movie", "Series", "Season", "Episode") and not data.recursive:
            works = []
        queued: Queued = await ask(await scrape_queue_ref(item.library_id), Requeue(
            REFRESH_STATES[data.mode], mode=data.mode, replace_images=data.replace_images, item_ids=tuple(works)))
        details: dict[str, Any] = {"mode": data.mode, "queued": queued.queued}
    else:
        await _rescan(item, rewrite=True, trigger="refresh")
        details = {"mode": data.mode}
    await log_activity("item.refresh", "content", "item", item.item_id, item.name, details)
    return SimpleSuccess(success=True, message="Refresh started.").to_json(), 202


@blueprint.post("/items/<item_id>/identify")
@validate_request(IdentifyRequest)
@document_response(IdentifyAnswer)
@may_answer((409, "The library has no metadata provider (library_no_providers), or the item is locked."))
async def identify(item_id: str, data: IdentifyRequest) -> dict[str, Any]:
    """Identify a movie or series (a season or episode: its series) by hand.

    ``{query, year?}`` answers ``{candidates: [{providerId, providerItemId,
    name, year?, overview?, imageUrl?}]}`` from every provider of the
    library; ``{providerId, providerItemId}`` applies that match (provider
    fields and images replaced) and answers the ItemDetail with
    ``scrapeState: identified``. 400 ``provider_not_installed`` for a
    provider the library cannot use; 503 when the provider is unavailable.
    """
    await require_item_visible(item_id)
    item = await _locate(item_id)
    queue = await scrape_queue_ref(item.library_id)
    if data.provider_id and data.provider_item_id:
        warning = await ask(queue, IdentifyApply(item_id, data.provider_id, data.provider_item_id),
                            timeout=IDENTIFY_TIMEOUT_SECONDS)
        await log_activity("item.identify", "content", "item", item_id, item.name,
                           {"providerId": data.provider_id, "providerItemId": data.provider_item_id})
        answer = await item_detail(app_context().store, item_id)
        if warning is not None:
            answer["writeBackWarning"] = warning  # only in an identify's answer (the reference)
        return answer
    if not data.query or not data.query.strip():
        raise errors.Invalid("Give a query, or a providerId and a providerItemId.", field="query")
    candidates = await ask(queue, Identify(item_id, data.query.strip(), data.year), timeout=IDENTIFY_TIMEOUT_SECONDS)
    return {"candidates": candidates}


@blueprint.post("/items/<item_id>/rescan")
@document_response(SimpleSuccess)
@may_answer(409)
async def rescan_item(item_id: str) -> dict[str, Any]:
    """Rescan only the item's directory on disk, not the whole library.

    The reference: it "updates changes without a library scan", so the
    library's ScanStatus stays as it was; the rescan runs after any scan of
    the library that is running.
    """
    item = await _locate(item_id)
    directory = _directory(item)
    await ask(await library_ref(item.library_id), RescanDirectories((directory,)))
    await log_activity("item.rescan", "content", "item", item.item_id, item.name)
    return SimpleSuccess(success=True, message="Rescan started.").to_json()


async def _locate(item_id: str) -> ItemLocation:
    item = await item_location(app_context().store, item_id)
    if item is None:
        raise errors.NotFound(f"No item {item_id}.", params={"itemId": item_id})
    return item


def _directory(item: ItemLocation) -> str:
    if item.directory is None:
        raise errors.Conflict("This item has no folder on disk to rescan.", params={"itemId": item.item_id})
    return item.directory


async def _rescan(item: ItemLocation, *, rewrite: bool, trigger: str) -> None:
    library = await library_ref(item.library_id)
    await ask(library, StartScan(mode="full", rewrite=rewrite, only_dirs=(_directory(item),), trigger=trigger))
