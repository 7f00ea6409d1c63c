"""Apply a provider's answer to the catalogue: fields, people, images, writeBack.

The scrape queue (and identify / refresh) calls :func:`apply_match` with the
provider's parsed answer for one catalogue item: a :class:`ProviderItem`
for a movie (or any single item), a :class:`SeriesMatch` for a series, which
also carries its seasons and their episodes.  The queue decides *what* to
apply and *when*; the rules of *how* live here and in
:mod:`reelhouse.media.provider_fields` (which fields an item takes: fill
only empty ones in ``missing`` mode, overwrite in ``replaceAll``, never an
NFO's values, never ``lockedFields``; ``lockData`` items are skipped).

For a series match the series item is applied first, then each of its live
seasons (matched by season number, ``index_number``) and episodes (matched
by season number ``parent_index_number`` and episode number
``index_number``; an episode numbered without a season, anime's absolute
number, by counting every season's episodes: ``naming.season_of_absolute``);
items without a counterpart in the answer, and
``lockData`` ones, are left alone.  Items keep their ids.

Each item is one transaction (:func:`reelhouse.storage.provider_apply.apply_statements`):
its fields, genres and studios, people and credits, provider ids, ratings,
MetadataState bookkeeping (``provider``, ``providerItemId``, ``scrapedAt``
in ``extra``; ``scrapeError`` cleared; ``date_modified`` = dateSaved), the
scrape state and its provider image rows; a movie the provider places in a
collection joins that BoxSet in the same transaction when the library's
``importCollections`` is on (:mod:`reelhouse.storage.collections`).  Images are fetched before it
(:mod:`.provider_images`, in ``deps.downloads`` slots shared across callers:
:mod:`.download_slots`) into ``<data_dir>/metadata/<itemId>/``, each
within ``deps.download_seconds`` and all of one item within
``deps.item_images_seconds``: an image not there by then is counted failed
and the item is applied without it (a slow image host delays an item, it
never holds it).  Files of images replaced are removed after the commit.
Then writeBack (:mod:`.write_back`) when the library has it on.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import httpx
import trio

from reelhouse.errors import NotFound
from reelhouse.media.assembly import ImageRecord
from reelhouse.media.library_options import LibraryOptions
from reelhouse.media.naming import season_of_absolute
from reelhouse.media.nfo_write import nfo_from_provider, render_nfo
from reelhouse.media.provider_fields import ApplyMode, FieldPlan, plan_fields
from reelhouse.media.provider_metadata import ProviderImage, ProviderItem
from reelhouse.media.remote_targets import Origin
from reelhouse.shutdown import bounded_shield
from reelhouse.storage import Store, now_ms
from reelhouse.storage.collections import join_statements, provider_collection
from reelhouse.storage.confined_files import confinement_for, read_confined
from reelhouse.storage.libraries import get_library
from reelhouse.storage.provider_apply import ApplyTarget, ScrapeMark, apply_statements, load_targets
from reelhouse.storage.stored_images import PROVIDER_SOURCE, provider_confinement

from .download_slots import DownloadSlots
from .provider_images import (
    DOWNLOAD_SECONDS,
    FetchedImage,
    ImageRefused,
    UrlRule,
    fetch_and_store,
    image_path,
    remove_images,
)
from .write_back import (
    IMAGE_NAMES,
    WriteBackFile,
    WriteBackOutcome,
    WriteBackState,
    image_file_name,
    nfo_file_name,
    placement,
    worst,
    write_files,
)

log = logging.getLogger(__name__)

MAX_IMAGE_BYTES = 20 * 1024 * 1024
ITEM_IMAGES_SECONDS = 120.0
"""All the images of one item, slot waits included (``scrape.item_images_seconds`` sets it)."""
CLEANUP_SECONDS = 5.0
"""Removing the files of images a failed transaction did not record."""
CHILD_CONCURRENCY = 4
"""Seasons and episodes of one series applied at once."""
MAX_PER_KIND: Mapping[str, int] = {"backdrop": 3}
"""Provider images kept per kind (1 for kinds not listed)."""
_WARNINGS: Mapping[WriteBackState, str] = {"failed": "failed", "skipped": "conflict", "unavailable": "unavailable"}


@dataclass(frozen=True)
class SeriesMatch:
    series: ProviderItem
    seasons: Mapping[int, tuple[ProviderItem, Sequence[ProviderItem]]]  # season number -> (season, episodes)


ScrapeOutcome = Literal["scraped", "identified"]  # "identified": the match is one a user chose


@dataclass(frozen=True)
class ApplyRequest:
    item_id: str
    provider_id: str
    match: ProviderItem | SeriesMatch
    mode: ApplyMode
    replace_images: bool
    scrape_state: ScrapeOutcome


@dataclass(frozen=True)
class ApplyDeps:
    """What :func:`apply_match` needs; one per scrape queue (shared by its workers).

    - ``store``, ``data_dir``: the server's (``settings.data_dir``);
    - ``http``: an ``httpx.AsyncClient`` for image downloads, owned (and
      closed) by the caller; redirects are followed by hand, so its own
      ``follow_redirects`` does not matter;
    - ``downloads``: image download slots, shared by every caller (server-wide);
    - ``threads``: worker threads at once for image checks and file writes;
    - ``options``: the library's options; None = read from the store with
      the item's library (the usual case);
    - ``provider_origins``: origins (scheme, host, port) image URLs may
      name although they resolve to a loopback or link-local address: the
      provider's configured ``baseUrl``;
    - ``max_image_bytes``: a larger image is refused;
    - ``download_seconds``, ``item_images_seconds``: the deadlines of one
      download and of all the images of one item (see the module doc).
    """

    store: Store
    data_dir: Path
    http: httpx.AsyncClient
    downloads: DownloadSlots
    threads: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(2))
    options: LibraryOptions | None = None
    provider_origins: frozenset[Origin] = frozenset()
    max_image_bytes: int = MAX_IMAGE_BYTES
    download_seconds: float = DOWNLOAD_SECONDS
    item_images_seconds: float = ITEM_IMAGES_SECONDS


@dataclass(frozen=True)
class ApplyResult:
    """What one :func:`apply_match` did (a series' seasons and episodes included)."""

    item_id: str
    applied: bool  # False: the item has lockData (or got it meanwhile): nothing was touched
    items_changed: tuple[str, ...] = ()  # ids of the items written (the series' children too)
    fields_changed: tuple[str, ...] = ()  # API field names changed on the requested item
    images_added: int = 0
    images_failed: int = 0  # refused or unreachable image URLs (the item is applied anyway)
    write_back: WriteBackState = "off"
    write_back_files: tuple[str, ...] = ()
    write_back_error: str | None = None

    @property
    def write_back_warning(self) -> str | None:
        """The reference's ``writeBackWarning`` (unavailable, conflict, failed), or None."""
        return _WARNINGS.get(self.write_back)


@dataclass
class _Tally:
    items: list[str] = field(default_factory=list)
    added: int = 0
    failed: int = 0
    write_back: WriteBackOutcome = WriteBackOutcome("off")


@dataclass(frozen=True)
class _Run:
    deps: ApplyDeps
    request: ApplyRequest
    options: LibraryOptions
    roots: tuple[str, ...]  # the library's, for writeBack (resolved in its worker thread: realpath is blocking)
    rule: UrlRule
    now: int


async def apply_match(deps: ApplyDeps, request: ApplyRequest) -> ApplyResult:
    """Write ``request.match`` into the catalogue for ``request.item_id``.

    Raises NotFound when the item (or its library) is gone, StoreError when
    the database fails; image and writeBack failures are counted in the
    result, never raised.
    """
    targets = await load_targets(deps.store, request.item_id)
    if not targets:
        raise NotFound(f"No item {request.item_id}.", params={"itemId": request.item_id})
    target = targets[0]
    if target.lock_data:
        return ApplyResult(request.item_id, applied=False)
    options, roots = await _library(deps, target.library_id)
    rule = UrlRule(deps.provider_origins, tuple(options.remote_allowed_hosts))
    run = _Run(deps, request, options, roots, rule, now_ms())
    tally = _Tally()
    match = request.match
    answer = match.series if isinstance(match, SeriesMatch) else match
    plan = await _apply_item(run, target, answer, tally)
    if plan is None:
        return ApplyResult(request.item_id, applied=False)
    if isinstance(match, SeriesMatch):
        await _apply_children(run, match, tally)
    outcome = tally.write_back
    return ApplyResult(
        request.item_id, True, tuple(tally.items), plan.changed, tally.added, tally.failed,
        outcome.state, outcome.files, outcome.error,
    )  # fmt: skip


async def _library(deps: ApplyDeps, library_id: str) -> tuple[LibraryOptions, tuple[str, ...]]:
    """The library's options and, when writeBack needs them, its roots (no read when both are known)."""
    if deps.options is not None and not deps.options.write_back:
        return deps.options, ()
    library = await get_library(deps.store, library_id)
    if library is None:
        raise NotFound(f"No library {library_id}.", params={"libraryId": library_id})
    return (deps.options if deps.options is not None else library.options), library.paths


async def _apply_children(run: _Run, match: SeriesMatch, tally: _Tally) -> None:
    children = await load_targets(run.deps.store, run.request.item_id, children=True)
    limiter = trio.CapacityLimiter(CHILD_CONCURRENCY)

    async def one(child: ApplyTarget, answer: ProviderItem) -> None:
        async with limiter:
            await _apply_item(run, child, answer, tally)

    async with trio.open_nursery() as nursery:
        for child in children:
            answer = _child_answer(match, child)
            if answer is not None and not child.lock_data:
                nursery.start_soon(one, child, answer)


def _child_answer(match: SeriesMatch, child: ApplyTarget) -> ProviderItem | None:
    if child.stored.type == "Season":
        season = match.seasons.get(child.index_number) if child.index_number is not None else None
        return season[0] if season else None
    if child.parent_index_number is None and child.index_number is not None:
        return _absolute_answer(match, child.index_number)
    season = match.seasons.get(child.parent_index_number) if child.parent_index_number is not None else None
    if season is None or child.index_number is None:
        return None
    return next((episode for episode in season[1] if episode.index_number == child.index_number), None)


def _absolute_answer(match: SeriesMatch, absolute: int) -> ProviderItem | None:
    """An episode numbered without a season (``Show - 027``): the provider's
    episode at that place counting every season's episodes in order."""
    sizes = {number: len(answer[1]) for number, answer in match.seasons.items()}
    placed = season_of_absolute(absolute, sizes)
    if placed is None:
        return None
    episodes = match.seasons[placed[0]][1]
    return next((e for e in episodes if e.index_number == placed[1]), None)


async def _apply_item(run: _Run, target: ApplyTarget, answer: ProviderItem, tally: _Tally) -> FieldPlan | None:
    """One item in one transaction; None when it turned out locked."""
    plan = plan_fields(target.stored, answer, run.request.mode)
    choices = [] if target.stored.locks("images") else _image_choices(target, answer, run.request.replace_images)
    fetched = await _fetch_all(run, target, choices)
    tally.failed += len(choices) - len(fetched)
    new_images = [image for image, _data in fetched.values()]
    dropped = _dropped_slots(target, answer, run.request.replace_images, fetched)
    mark = ScrapeMark(run.request.provider_id, answer.provider_item_id, run.request.scrape_state, run.now)
    statements = apply_statements(target, plan, mark, images=new_images, dropped_images=dropped)
    if answer.collection is not None and run.options.import_collections and target.stored.type == "Movie":
        ref = provider_collection(run.request.provider_id, answer.collection.provider_item_id, answer.collection.name)
        statements.extend(join_statements(target.library_id, target.stored.id, ref, run.now))
    try:
        results = await run.deps.store.transaction(statements)
    except BaseException:
        with bounded_shield(CLEANUP_SECONDS):
            await _remove(run, [Path(image.path) for image in new_images if _unused(target, image)])
        raise
    if results[0].rowcount == 0:
        # lockData set between the read and this write (the row's fields are
        # guarded; its lists were written: a window of one image download).
        return None
    replaced = [target.images[slot].path for slot in (*fetched, *dropped) if _is_provider(target, slot)]
    await _remove(run, [Path(path) for path in replaced if path not in {i.path for i in new_images}])
    tally.items.append(target.stored.id)
    tally.added += len(new_images)
    if run.options.write_back:
        images = {slot: data for slot, (_image, data) in fetched.items()}
        outcome = await _write_back(run, target, answer, images)
        tally.write_back = worst(tally.write_back, outcome)
    return plan


def _unused(target: ApplyTarget, image: ImageRecord) -> bool:
    """Whether no stored row names ``image``'s file (the same bytes fetched again share it)."""
    return all(slot.path != image.path for slot in target.images.values())


def _is_provider(target: ApplyTarget, slot: tuple[str, int]) -> bool:
    stored = target.images.get(slot)
    return stored is not None and stored.source == PROVIDER_SOURCE


def _kind_images(target: ApplyTarget, answer: ProviderItem) -> dict[str, list[ProviderImage]]:
    by_kind: dict[str, list[ProviderImage]] = {}
    for image in answer.images:
        by_kind.setdefault(image.kind, []).append(image)
    if target.stored.type == "Episode" and "primary" not in by_kind and "still" in by_kind:
        by_kind["primary"] = by_kind["still"][:1]  # an episode's picture is its still
    return {kind: images[: MAX_PER_KIND.get(kind, 1)] for kind, images in by_kind.items()}


def _image_choices(target: ApplyTarget, answer: ProviderItem, replace: bool) -> list[tuple[str, int, ProviderImage]]:
    """Which provider images go where: a free slot, or a provider image's slot with ``replace``."""
    choices = []
    for kind, images in _kind_images(target, answer).items():
        for index, image in enumerate(images):
            stored = target.images.get((kind, index))
            if stored is None or (replace and stored.source == PROVIDER_SOURCE):
                choices.append((kind, index, image))
    return choices


def _dropped_slots(
    target: ApplyTarget, answer: ProviderItem, replace: bool, fetched: Mapping[tuple[str, int], object]
) -> list[tuple[str, int]]:
    """With ``replace``: provider images past what the answer now gives of their kind."""
    if not replace or target.stored.locks("images"):
        return []
    counts = {kind: len(images) for kind, images in _kind_images(target, answer).items()}
    return [
        slot for slot, stored in target.images.items()
        if stored.source == PROVIDER_SOURCE and slot[0] in counts and slot[1] >= counts[slot[0]] and slot not in fetched
    ]  # fmt: skip


async def _fetch_all(
    run: _Run, target: ApplyTarget, choices: list[tuple[str, int, ProviderImage]]
) -> dict[tuple[str, int], tuple[ImageRecord, FetchedImage]]:
    """Each URL fetched once (an episode's still may also be its primary), kept for each of its slots."""
    fetched: dict[tuple[str, int], tuple[ImageRecord, FetchedImage]] = {}
    by_url: dict[str, list[tuple[str, int]]] = {}
    for kind, index, image in choices:
        by_url.setdefault(image.url, []).append((kind, index))
    deadline = trio.current_time() + run.deps.item_images_seconds

    async def one(url: str, slots: list[tuple[str, int]]) -> None:
        for slot, kept in zip(slots, await _fetch_one(run, target.stored.id, slots, url, deadline), strict=False):
            fetched[slot] = kept

    async with trio.open_nursery() as nursery:
        for url, slots in by_url.items():
            nursery.start_soon(one, url, slots)
    return fetched


async def _fetch_one(
    run: _Run, item_id: str, slots: list[tuple[str, int]], url: str, deadline: float
) -> list[tuple[ImageRecord, FetchedImage]]:
    data_dir = run.deps.data_dir

    def places(image: FetchedImage) -> list[Path]:
        return [image_path(data_dir, item_id, kind, index, image) for kind, index in slots]

    try:
        image, stored = await _download(run, url, places, deadline)
    except (ImageRefused, httpx.HTTPError, OSError) as exc:
        # The host only: a provider's URL may carry a key in its query.
        log.info("provider image for %s from %s not kept: %s", item_id, urlsplit(url).hostname, _reason(exc))
        return []
    return [(ImageRecord(str(path), kind, index, image.tag, image.width, image.height, len(image.data), mtime), image)
            for (kind, index), (path, mtime) in zip(slots, stored, strict=True)]


async def _download(
    run: _Run, url: str, places: Callable[[FetchedImage], list[Path]], deadline: float
) -> tuple[FetchedImage, list[tuple[Path, int]]]:
    """The image at ``url``, kept at ``places``, by the item's ``deadline`` (its wait for a slot included)."""
    deps = run.deps
    with trio.move_on_at(deadline):
        async with deps.downloads.slot(url):
            return await fetch_and_store(deps.http, url, run.rule, places, max_bytes=deps.max_image_bytes,
                                         threads=deps.threads, deadline_seconds=deps.download_seconds)
    raise ImageRefused(f"the item's images did not arrive within {deps.item_images_seconds:g} s")


def _reason(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, ImageRefused) else type(exc).__name__


async def _remove(run: _Run, paths: list[Path]) -> None:
    """Delete provider image files, only ever inside the provider image store."""
    if not paths:
        return  # the usual case (nothing replaced): no hop to a worker thread
    store_dir = provider_confinement(run.deps.data_dir)

    def remove_inside() -> None:
        remove_images([path for path in paths if store_dir.allows(os.path.realpath(path))])

    await trio.to_thread.run_sync(remove_inside, limiter=run.deps.threads)


# -- writeBack -----------------------------------------------------------------------


async def _write_back(
    run: _Run, target: ApplyTarget, answer: ProviderItem, fetched: Mapping[tuple[str, int], FetchedImage]
) -> WriteBackOutcome:
    return await trio.to_thread.run_sync(_write_back_blocking, run, target, answer, fetched, limiter=run.deps.threads)


def _write_back_blocking(
    run: _Run, target: ApplyTarget, answer: ProviderItem, fetched: Mapping[tuple[str, int], FetchedImage]
) -> WriteBackOutcome:
    where = placement(target)
    if where is None:
        return WriteBackOutcome("unavailable")
    stored = target.stored
    nfo = nfo_from_provider(
        where.nfo_kind, answer, title=stored.columns.get("name"),
        season=target.index_number if stored.type == "Season" else target.parent_index_number,
        episode=target.index_number, default_provider=None,
    )  # fmt: skip
    files = [WriteBackFile(nfo_file_name(where), render_nfo(nfo), "nfo")]
    for kind in IMAGE_NAMES:
        local = target.images.get((kind, 0))
        if local is not None and local.source != PROVIDER_SOURCE:
            continue  # the folder already has this picture, under whatever name
        image = fetched.get((kind, 0)) or _stored_provider_image(run, target, kind)
        if image is not None:
            files.append(WriteBackFile(image_file_name(where, kind, image.extension), image.data, kind))
    return write_files(where, files, confinement_for(run.roots, run.deps.data_dir))


def _stored_provider_image(run: _Run, target: ApplyTarget, kind: str) -> FetchedImage | None:
    """A provider image kept earlier (not fetched again now), read from the image store."""
    stored = target.images.get((kind, 0))
    if stored is None or stored.source != PROVIDER_SOURCE:
        return None
    try:
        data = read_confined(stored.path, provider_confinement(run.deps.data_dir), run.deps.max_image_bytes)
    except OSError:
        return None
    extension = stored.path.rpartition(".")[2]
    return FetchedImage(data, extension, 0, 0, "")
