"""nfoSync: NFO files and images written for a library's items that have none.

Asked separately after ``writeBack`` turned on (the settings update answers
``nfoSyncSuggested``).  For every present Movie, Series, Season and
Episode of the library without an NFO, what the catalogue holds (fields,
ids, people, ratings) is written as an NFO under the name the scanner reads
first, and its stored images of index 0 (primary, backdrop, logo) beside
it, by :mod:`..scrape.write_back`'s rules: only where no file of that name
exists, never over anything, the NFO not at all when any NFO the scanner
would read is there.  Items without a folder of their own on disk are
left alone.  Progress: processed / total, changed = items that got a file;
items whose folder refused a file are counted and the run ends with
``nfoWriteFailed`` (failures).
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

import trio

from reelhouse.media.containment import Confinement
from reelhouse.media.nfo_write import nfo_from_provider, render_nfo
from reelhouse.media.provider_metadata import ProviderItem, ProviderPerson, ProviderRating
from reelhouse.storage import now_ms
from reelhouse.storage.confined_files import confinement_for, read_confined
from reelhouse.storage.item_detail import item_detail
from reelhouse.storage.libraries import LibraryRecord
from reelhouse.storage.provider_apply import ApplyTarget, load_targets
from reelhouse.storage.stored_images import PROVIDER_SOURCE, provider_confinement

from ..scrape.write_back import (
    IMAGE_NAMES,
    WriteBackFile,
    WriteBackOutcome,
    image_file_name,
    nfo_file_name,
    placement,
    write_files,
)
from ._context import JobRun

log = logging.getLogger(__name__)
MAX_IMAGE_BYTES = 20 * 1024 * 1024
PAGE = 200
_WITHOUT_NFO = (
    "SELECT id FROM items WHERE library_id = ? AND has_nfo = 0 AND missing = 0 AND lock_data = 0"
    " AND type IN ('Movie', 'Series', 'Season', 'Episode') AND id > ? ORDER BY id LIMIT ?"
)


async def sync_nfo(run: JobRun, library: LibraryRecord) -> None:
    store = run.services.store
    total = int(await store.fetch_value(
        "SELECT COUNT(*) FROM items WHERE library_id = ? AND has_nfo = 0 AND missing = 0 AND lock_data = 0"
        " AND type IN ('Movie', 'Series', 'Season', 'Episode')", (library.id,)) or 0)
    within = confinement_for(library.paths, run.services.data_dir)
    processed = written = failures = 0
    after = ""
    while rows := await store.fetch_all(_WITHOUT_NFO, (library.id, after, PAGE)):
        for row in rows:
            outcome = await _sync_item(run, row["id"], within)
            processed += 1
            written += outcome.state == "written"
            failures += outcome.state == "failed"
            run.progress(processed=processed, total=total, changed=written, errors=failures)
        after = rows[-1]["id"]
    end: dict[str, Any] = {"state": "succeeded", "finished_at_ms": now_ms(), "processed": processed,
                           "total": total, "changed": written, "errors": failures}
    if failures:
        end.update(message_code="nfoWriteFailed", message_params={"failures": failures},
                   message=f"{failures} item(s) could not be written; see the server log.")
    await run.report(**end)


async def _sync_item(run: JobRun, item_id: str, within: Confinement) -> WriteBackOutcome:
    targets = await load_targets(run.services.store, item_id)
    if not targets:
        return WriteBackOutcome("unavailable")
    try:
        detail = await item_detail(run.services.store, item_id)
    except Exception as exc:  # gone meanwhile
        log.info("nfoSync: item %s not read: %s", item_id, exc)
        return WriteBackOutcome("unavailable")
    outcome: WriteBackOutcome = await trio.to_thread.run_sync(
        _write_blocking, run.services.data_dir, targets[0], detail, within)
    if outcome.state == "failed":
        log.warning("nfoSync: files of item %s not written: %s", item_id, outcome.error)
    return outcome


def _write_blocking(data_dir: Any, target: ApplyTarget, detail: dict[str, Any], within: Confinement
                    ) -> WriteBackOutcome:
    where = placement(target)
    if where is None:
        return WriteBackOutcome("unavailable")
    stored = target.stored
    nfo = nfo_from_provider(
        where.nfo_kind, catalogue_answer(detail), title=stored.columns.get("name"),
        season=target.index_number if stored.type == "Season" else target.parent_index_number,
        episode=target.index_number,
    )  # fmt: skip
    files = [WriteBackFile(nfo_file_name(where), render_nfo(nfo), "nfo")]
    for kind in IMAGE_NAMES:
        image = target.images.get((kind, 0))
        if image is None or image.source != PROVIDER_SOURCE:
            continue  # none, or already a file of the folder
        try:
            data = read_confined(image.path, provider_confinement(data_dir), MAX_IMAGE_BYTES)
        except OSError:
            continue
        files.append(WriteBackFile(image_file_name(where, kind, image.path.rpartition(".")[2]), data, kind))
    return write_files(where, files, within)


def catalogue_answer(detail: dict[str, Any]) -> ProviderItem:
    """The catalogue's ItemDetail as the fields an NFO takes (pure)."""
    runtime = detail.get("runtimeTicks")
    people = tuple(
        ProviderPerson(p["name"], p["kind"], p.get("role") or "", p.get("order"))
        for p in detail.get("people") or [] if p.get("name") and p.get("kind"))
    ratings = tuple(ProviderRating(r["source"], float(r["value"]), r.get("votes"))
                    for r in detail.get("ratings") or [] if "source" in r and "value" in r)
    return ProviderItem(
        provider_item_id=detail["id"], name=detail.get("name"), original_title=detail.get("originalTitle"),
        overview=detail.get("overview"), tagline=detail.get("tagline"),
        production_year=detail.get("productionYear"),
        premiere_date=_day(detail.get("premiereDate")), end_date=_day(detail.get("endDate")),
        community_rating=detail.get("communityRating"), official_rating=detail.get("officialRating"),
        runtime_minutes=round(runtime / 600_000_000) if isinstance(runtime, int) and runtime > 0 else None,
        genres=tuple(detail.get("genres") or ()), studios=tuple(detail.get("studios") or ()),
        provider_ids=dict(detail.get("providerIds") or {}), people=people, ratings=ratings,
    )


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if isinstance(value, str) else None
    except ValueError:
        return None
