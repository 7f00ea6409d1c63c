"""What a renderer fetches besides the file: its DLNA headers and the item's external subtitles.

``contentFeatures.dlna.org`` carries the file's DLNA profile where one
applies; ``CaptionInfo.sec`` (asked for with ``getCaptionInfo.sec: 1``, as
Samsung televisions do) names the first external subtitle's URL.  A
subtitle is the file the scan found beside the video, as it is, read only
from inside its library's folders (at most :data:`SUBTITLE_MAX_BYTES`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import trio

from reelhouse import errors
from reelhouse.media.dlna import didl
from reelhouse.media.file_names import to_fs
from reelhouse.storage.confined_files import OutsideRoots, confinement_for, read_confined
from reelhouse.storage.item_detail import item_detail
from reelhouse.storage.primary_sources import primary_facts
from reelhouse.storage.stream_sources import ItemWithoutSource, find_stream_source

from ..context import app_context
from ..library_access import require_item_visible
from .objects import primary_source, profile_of, subtitles_of

SUBTITLE_MAX_BYTES = 16 * 1024 * 1024
SUBTITLE_READ_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class ResourceFacts:
    size: int | None
    content_features: str
    caption_url: str | None


async def resource_facts(item_id: str, base_url: str) -> ResourceFacts:
    """The primary file's size, contentFeatures and first subtitle URL (the item is known to be visible)."""
    facts = await primary_facts(app_context().store, [item_id])
    found = facts.get(item_id)
    source = (found.source if found is not None else None) or {}
    subtitles = subtitles_of(item_id, source.get("streams", []), base_url)
    profile = profile_of(source, os.path.splitext(str(source.get("path") or ""))[1].lower()) if source else None
    return ResourceFacts(source.get("size"), didl.content_features(profile), subtitles[0].url if subtitles else None)


async def subtitle_file(item_id: str, index: int) -> bytes:
    """The external subtitle ``index`` of the item's primary file; 404 when there is none."""
    await require_item_visible(item_id)
    store = app_context().store
    source = primary_source(await item_detail(store, item_id)) or {}
    path = next((s.get("externalPath") for s in source.get("streams", [])
                 if s.get("index") == index and s.get("isExternal") and s.get("type") == "Subtitle"), None)  # fmt: skip
    found = await find_stream_source(store, item_id)
    if not path or isinstance(found, ItemWithoutSource):
        raise errors.NotFound("No such external subtitle.")
    within = confinement_for(found.roots, app_context().settings.data_dir)
    try:
        with trio.fail_after(SUBTITLE_READ_SECONDS):
            return await trio.to_thread.run_sync(
                read_confined, Path(to_fs(path)), within, SUBTITLE_MAX_BYTES, abandon_on_cancel=True
            )
    except (FileNotFoundError, NotADirectoryError, PermissionError, OutsideRoots):
        raise errors.NotFound("The subtitle file is missing or not inside the library's folders.") from None
    except trio.TooSlowError:
        raise errors.Unavailable("The subtitle file did not answer in time.", params={"retryAfterSeconds": 5}) from None
