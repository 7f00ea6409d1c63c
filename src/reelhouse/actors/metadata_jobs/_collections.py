"""collectionNameFill: the libraries' collections made whole.

For each library whose ``importCollections`` is on (all of them, or the
one asked): the collections its NFO files name (``<set>``) become BoxSet
items with those items in them (provider collections are joined when a
scrape applies the movie: :mod:`..scrape.apply`); BoxSets left without a
member go.  Then every provider BoxSet whose provider record was not read
yet is asked of its provider (``metadata.collection``): its name in the
library's metadata language (unless the name is locked), its overview and
its poster.  The end: ``collectionsFilled`` (filled, skipped: the
provider is not usable or had nothing).
"""

from __future__ import annotations

import logging

import httpx
import trio

from reelhouse import errors
from reelhouse.media.provider_metadata import ProviderAnswerError, ProviderItem
from reelhouse.media.provider_people import COLLECTION_METHOD, parse_collection
from reelhouse.storage import now_ms
from reelhouse.storage.collections import (
    BoxSetRow,
    boxsets_to_fill,
    drop_empty_collections,
    join_collection,
    nfo_collections,
    save_collection_name,
)
from reelhouse.storage.libraries import LibraryRecord, list_libraries

from ..plugins.connection import PluginCallError, PluginNotRunning
from ..plugins.host import call_plugin
from ..scrape.provider_images import ImageRefused, UrlRule, fetch_image, image_path, store_image
from ..scrape.providers import plugin_views, usable_providers
from ._context import JobRun

log = logging.getLogger(__name__)
MAX_IMAGE_BYTES = 20 * 1024 * 1024


async def fill_collections(run: JobRun, library_id: str | None) -> None:
    store = run.services.store
    libraries = [lib for lib in await list_libraries(store)
                 if lib.options.import_collections and (library_id is None or lib.id == library_id)]
    for library in libraries:
        for member, ref in await nfo_collections(store, library.id):
            await join_collection(store, library.id, member, ref, now_ms())
        await drop_empty_collections(store, library.id)
    boxes = await boxsets_to_fill(store, [lib.id for lib in libraries])
    by_id = {lib.id: lib for lib in libraries}
    views = await plugin_views(run.services.plugins)
    filled = skipped = 0
    for index, box in enumerate(boxes):
        if await _fill_one(run, views, by_id[box.library_id], box):
            filled += 1
        else:
            skipped += 1
        run.progress(processed=index + 1, total=len(boxes), changed=filled,
                     message_code="collectionsFilled", message_params={"filled": filled, "skipped": skipped})
    await run.report(state="succeeded", finished_at_ms=now_ms(), processed=len(boxes), total=len(boxes),
                     changed=filled, message_code="collectionsFilled",
                     message_params={"filled": filled, "skipped": skipped})


async def _fill_one(run: JobRun, views: dict, library: LibraryRecord, box: BoxSetRow) -> bool:
    providers = {p.plugin_id: p for p in usable_providers(views, [box.provider])}
    provider = providers.get(box.provider)
    if provider is None or run.services.plugins is None:
        return False
    params = {"providerItemId": box.provider_item_id, "language": library.options.metadata_language}
    try:
        answer = parse_collection(await call_plugin(run.services.plugins, box.provider, COLLECTION_METHOD, params))
    except (PluginCallError, PluginNotRunning, ProviderAnswerError, errors.NotFound) as exc:
        log.info("collection %s: %s gave nothing: %s", box.id, box.provider, exc)
        return False
    image = await _poster(run, provider.origins, box, answer)
    await save_collection_name(run.services.store, box, answer.name, answer.overview, now_ms(), image)
    return True


async def _poster(run: JobRun, origins: frozenset, box: BoxSetRow, answer: ProviderItem
                  ) -> tuple[str, str, int | None, int | None, int, int] | None:
    url = next((image.url for image in answer.images if image.kind == "primary"), None)
    if url is None:
        return None
    services = run.services
    try:
        async with services.downloads.slot(url):
            fetched = await fetch_image(services.http, url, UrlRule(origins), max_bytes=MAX_IMAGE_BYTES,
                                        threads=trio.CapacityLimiter(1), deadline_seconds=services.download_seconds)
        path = image_path(services.data_dir, box.id, "primary", 0, fetched)
        mtime = await trio.to_thread.run_sync(store_image, path, fetched)
    except (ImageRefused, httpx.HTTPError, OSError) as exc:
        log.info("poster of collection %s not fetched: %s", box.id, exc)
        return None
    return str(path), fetched.tag, fetched.width, fetched.height, len(fetched.data), mtime
