"""Upkeep endpoints the reference names without showing: attention actions, cover
regeneration, caches clear (shapes decided here; docs/upkeep.md, api-decisions.md).

Commands ask the UpkeepActor (``actors/upkeep``); clearing the image cache
goes to the edge's own ImageCache, which owns that directory's index.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from quart import Blueprint
from quart_schema import document_response, validate_request

from reelhouse import errors
from reelhouse.actors.system_monitor import CacheMeasured, cache_usage
from reelhouse.actors.upkeep import ActionStarted, RegenerateCovers, StartAttentionAction
from reelhouse.storage.image_cache import IMAGE_CACHE_DIR

from .activity_recording import log_activity
from .asks import ask
from .context import app_context
from .image_service import image_service
from .libraries import get_one
from .openapi import may_answer
from .rendered_models import Library
from .schema import ApiModel
from .system import CLEARABLE_CACHES, CacheUsage, cache_model

blueprint = Blueprint("upkeep", __name__)
MAX_ITEM_IDS = 1000
COVERS_TIMEOUT_SECONDS = 60.0  # a collage reads up to a few dozen posters


class AttentionActionRequest(ApiModel):
    """``action`` on the library's items in its attention states; ``itemIds`` narrows it."""

    action: Literal["reidentify", "rescrape", "reprobe", "dropMissing"]
    item_ids: list[str] | None = Field(default=None, max_length=MAX_ITEM_IDS)


class AttentionActionStarted(ApiModel):
    job_id: str
    action: str
    count: int


def _upkeep() -> Any:
    ref = app_context().actors.upkeep
    if ref is None:
        raise errors.Unavailable("Upkeep is not running.", code="not_enabled")
    return ref


@blueprint.post("/libraries/<library_id>/attention-actions")
@validate_request(AttentionActionRequest)
@document_response(AttentionActionStarted, 202)
@may_answer((409, "An attention action of this library runs (conflict), or a scrape action on a library"
                  " without a metadata provider (library_no_providers)."))
async def attention_action(library_id: str, data: AttentionActionRequest) -> tuple[dict[str, Any], int]:
    """Start a bulk action on the library's items by attention state: the job ``attentionAction:{libraryId}``.

    ``reidentify``: items in ``needsIdentify`` searched again (a confident
    match replaces provider fields); ``rescrape``: ``scrapeFailed`` and
    ``scrapeNotQueued`` items scraped; ``reprobe``: the local files of
    ``unprobed`` items probed again (job ``localReprobe:{libraryId}``;
    remote sources skipped); ``dropMissing``: ``missing`` items removed from
    the catalogue now (files are never touched). ``count`` is how many items
    the action takes. The first three hand their items to a queue: the job
    ends ``attentionActionQueued`` with ``relatedJobId``; ``dropMissing``
    reports ``attentionActionRunning`` then ``attentionActionDone`` and can
    be cancelled.
    """
    ids = tuple(data.item_ids) if data.item_ids is not None else None
    started: ActionStarted = await ask(_upkeep(), StartAttentionAction(library_id, data.action, ids))
    await log_activity("library.attention_action", "content", "library", library_id, None,
                       {"action": data.action, "count": started.count, "jobId": started.job_id})
    return AttentionActionStarted(job_id=started.job_id, action=data.action, count=started.count).to_json(), 202


@blueprint.post("/libraries/<library_id>/covers/regenerate")
@document_response(Library)
async def regenerate_covers(library_id: str) -> dict[str, Any]:
    """Make the library's automatic covers (collages) again now, even when their posters did
    not change; a cover found in the library's folder still wins. Answers the Library."""
    await ask(_upkeep(), RegenerateCovers(library_id), timeout=COVERS_TIMEOUT_SECONDS)
    await log_activity("library.covers_regenerate", "content", "library", library_id)
    return await get_one(library_id)


@blueprint.post("/system/caches/<name>/clear")
@document_response(CacheUsage)
@may_answer((409, "The cache cannot be cleared (clearable is false)."))
async def clear_cache(name: str) -> dict[str, Any]:
    """Empty a cache whose CacheUsage is ``clearable`` (the ``images`` renditions, rendered
    again on request); answers its CacheUsage measured after clearing. 404 for an unknown name."""
    ctx = app_context()
    if name not in ("images",):
        raise errors.NotFound(f"No cache {name}.", params={"name": name})
    if name not in CLEARABLE_CACHES:
        raise errors.Conflict(f"The cache {name} cannot be cleared.", params={"name": name})
    removed = await image_service().cache.clear()
    stat = await cache_usage(name, ctx.settings.data_dir / IMAGE_CACHE_DIR)
    ctx.actors.system.try_tell(CacheMeasured(stat))
    await log_activity("system.cache_clear", "settings", "cache", name, name, {"files": removed})
    return cache_model(stat).to_json()
