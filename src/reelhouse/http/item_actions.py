"""Item commands: refresh metadata, rescan the item's directory."""

from __future__ import annotations

from typing import Any

from quart import Blueprint
from quart_schema import document_response, validate_request

from reelhouse import errors
from reelhouse.actors.library import StartScan
from reelhouse.actors.rescans import RescanDirectories
from reelhouse.storage.libraries import ItemLocation, item_location

from .activity import log_activity
from .asks import ask, library_ref
from .context import app_context
from .libraries import RefreshMetadataRequest
from .openapi import may_answer
from .schema import SimpleSuccess

blueprint = Blueprint("item_actions", __name__)


@blueprint.post("/items/<item_id>/refresh")
@validate_request(RefreshMetadataRequest)
@document_response(SimpleSuccess, 202)
@may_answer(409)
async def refresh_item(item_id: str, data: RefreshMetadataRequest) -> tuple[dict[str, Any], int]:
    """Re-read the item's NFO files and local images now (its whole folder).

    Until metadata providers exist both modes re-read local metadata; 409
    while a scan or refresh of the item's library runs.
    """
    item = await _locate(item_id)
    await _rescan(item, rewrite=True, trigger="refresh")
    await log_activity("item.refresh", "content", "item", item.item_id, item.name, {"mode": data.mode})
    return SimpleSuccess(success=True, message="Refresh started.").to_json(), 202


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
