"""personDetailsFill, personRecheck, personSourceRefetch: people's details and pictures from providers.

- **personDetailsFill** asks, for every credited person never asked
  (``pending``), the first provider with the ``metadata.person``
  capability whose id the person carries (the ids a scrape recorded) for
  ``metadata.person``; it records the biography, dates, birthplace and
  picture (``filled``), or ``skipped`` (no provider id, nothing known) or
  ``failed`` (the provider refused).  Progress: ``peopleDetailsRunning``
  (processed, filled, skipped, remaining); the end: ``peopleDetailsFilled``
  (filled, skipped).
- **personRecheck** puts the ``skipped`` and ``failed`` back to
  ``pending`` and fills them again (``personRecheckRunning`` with
  processed and total while it runs; ``peopleDetailsFilled`` at the end).
- **personSourceRefetch** fetches again the picture of every person whose
  provider picture URL is known and whose file is gone or was never
  fetched, without asking the provider (``personSourceRefetchRunning``
  processed, total; ``personSourceRefetchDone`` refetched, failed).

Pictures pass :mod:`..scrape.provider_images` (the same URL rule and
checks as item images) and are kept as ``<data_dir>/people/<personId>-<tag>.<ext>``.
A provider that stops answering (not running, rate limited) ends the run
``failed`` with what it did so far kept.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import httpx
import trio

from reelhouse import errors
from reelhouse.media.provider_metadata import ProviderAnswerError
from reelhouse.media.provider_people import PERSON_METHOD, ProviderPersonDetails, parse_person
from reelhouse.storage import now_ms
from reelhouse.storage.people import (
    PersonDetailsWrite,
    PersonImage,
    PersonRow,
    count_people_in_states,
    mark_people,
    people_in_states,
    person_image_root,
    save_person_details,
)

from ..plugins.connection import PluginCallError, PluginNotRunning
from ..plugins.host import call_plugin
from ..scrape.provider_images import ImageRefused, UrlRule, fetch_image, remove_images, store_image
from ..scrape.providers import Provider, plugin_views, setting_origins
from ..scrape.queue import ScrapeServices
from ._context import JobRun

log = logging.getLogger(__name__)

PERSON_CAPABILITY = "metadata.person"
PAGE = 100
MAX_IMAGE_BYTES = 10 * 1024 * 1024
_USABLE = frozenset({"idle", "starting", "running", "restarting"})


class ProviderGone(Exception):
    """The provider cannot answer now: the run stops."""


@dataclass
class _Counts:
    processed: int = 0
    filled: int = 0
    skipped: int = 0
    failed: int = 0


async def person_providers_usable(services: ScrapeServices) -> bool:
    return bool(await _person_providers(services))


async def person_providers(run: JobRun) -> list[Provider]:
    return await _person_providers(run.services)


async def _person_providers(services: ScrapeServices) -> list[Provider]:
    """Installed, usable plugins declaring ``metadata.person``, in id order."""
    views = await plugin_views(services.plugins)
    found = []
    for plugin_id, view in sorted(views.items()):
        manifest = view.entry.manifest
        if manifest is None or view.status not in _USABLE or PERSON_CAPABILITY not in manifest.capabilities:
            continue
        settings = manifest.effective_settings(view.entry.state.settings)
        found.append(Provider(plugin_id, frozenset({PERSON_CAPABILITY}), max(1, view.concurrency),
                              setting_origins(settings)))
    return found


async def fill_details(run: JobRun, *, recheck: bool = False) -> None:
    """personDetailsFill (``recheck``: personRecheck first requeues the skipped and failed)."""
    store = run.services.store
    if recheck:
        await mark_people(store, ("skipped", "failed"), "pending")
    providers = await person_providers(run)
    total = await count_people_in_states(store, ("pending",))
    counts = _Counts()
    after = ""
    while True:
        page = await people_in_states(store, ("pending",), after=after, limit=PAGE)
        if not page:
            break
        for person in page:
            await _fill_one(run, providers, person, counts)
            counts.processed += 1
            _report_fill(run, counts, total, recheck)
        after = page[-1].id
    await run.report(state="succeeded", finished_at_ms=now_ms(), processed=counts.processed,
                     changed=counts.filled, errors=counts.failed, message_code="peopleDetailsFilled",
                     message_params={"filled": counts.filled, "skipped": counts.skipped})


def _report_fill(run: JobRun, counts: _Counts, total: int, recheck: bool) -> None:
    if recheck:
        code, params = "personRecheckRunning", {"processed": counts.processed, "total": total}
    else:
        code, params = "peopleDetailsRunning", {
            "processed": counts.processed, "filled": counts.filled, "skipped": counts.skipped,
            "remaining": max(total - counts.processed, 0)}
    run.progress(processed=counts.processed, total=total, changed=counts.filled, errors=counts.failed,
                 current=None, message_code=code, message_params=params)


async def _fill_one(run: JobRun, providers: list[Provider], person: PersonRow, counts: _Counts) -> None:
    provider = next((p for p in providers if person.provider_ids.get(p.plugin_id)), None)
    now = now_ms()
    if provider is None:
        counts.skipped += 1
        await save_person_details(run.services.store, PersonDetailsWrite(person.id, "skipped", now))
        return
    try:
        details = await _ask_person(run, provider, person)
    except (PluginCallError, ProviderAnswerError) as exc:
        log.info("person %s: %s gave no details: %s", person.id, provider.plugin_id, exc)
        counts.failed += 1
        await save_person_details(run.services.store, PersonDetailsWrite(person.id, "failed", now))
        return
    url = details.image_url or person.image_url
    image = await fetch_person_image(run, provider.origins, person, url) if url else None
    if details.empty and image is None:
        counts.skipped += 1
        await save_person_details(run.services.store, PersonDetailsWrite(person.id, "skipped", now))
        return
    counts.filled += 1
    ids = {**person.provider_ids, **{k.lower(): v for k, v in details.provider_ids.items()}}
    await save_person_details(run.services.store, PersonDetailsWrite(
        person.id, "filled", now, overview=details.overview, details=details.details_json(), image_url=url,
        image=image, provider_ids=ids))


async def _ask_person(run: JobRun, provider: Provider, person: PersonRow) -> ProviderPersonDetails:
    assert run.services.plugins is not None  # there is a provider
    params = {"providerItemId": person.provider_ids[provider.plugin_id], "language": ""}
    try:
        return parse_person(await call_plugin(run.services.plugins, provider.plugin_id, PERSON_METHOD, params))
    except (PluginNotRunning, errors.NotFound) as exc:
        raise ProviderGone(f"{provider.plugin_id} cannot answer: {exc}") from exc
    except PluginCallError as exc:
        if exc.reason in ("rate_limited", "unreachable", "timeout", "auth_failed", "needs_configuration"):
            raise ProviderGone(f"{provider.plugin_id} cannot answer now ({exc.reason})") from exc
        raise


async def fetch_person_image(run: JobRun, origins: frozenset, person: PersonRow, url: str) -> PersonImage | None:
    """The picture at ``url`` kept for ``person`` (the previous file removed), or None when it failed."""
    services = run.services
    rule = UrlRule(origins)
    try:
        async with services.downloads.slot(url):
            fetched = await fetch_image(services.http, url, rule, max_bytes=MAX_IMAGE_BYTES,
                                        threads=trio.CapacityLimiter(1), deadline_seconds=services.download_seconds)
    except (ImageRefused, httpx.HTTPError) as exc:
        log.info("picture of person %s not fetched: %s", person.id, exc)
        return None
    path = person_image_root(services.data_dir) / f"{person.id}-{fetched.tag}.{fetched.extension}"
    await trio.to_thread.run_sync(store_image, path, fetched)
    if person.image_path and person.image_path != str(path):
        await trio.to_thread.run_sync(remove_images, [Path(person.image_path)])
    return PersonImage(str(path), fetched.tag)


async def refetch_sources(run: JobRun) -> None:
    """personSourceRefetch: pictures whose file is gone (or never came) fetched again."""
    store = run.services.store
    providers = {p.plugin_id: p for p in await person_providers(run)}
    origins = frozenset().union(*(p.origins for p in providers.values())) if providers else frozenset()
    states = ("pending", "filled", "skipped", "failed")
    total = await count_people_in_states(store, states, missing_image=True)
    processed = refetched = failed = 0
    after = ""
    while page := await people_in_states(store, states, after=after, limit=PAGE, missing_image=True):
        for person in page:
            processed += 1
            if person.image_url and not await trio.to_thread.run_sync(_file_present, person.image_path):
                image = await fetch_person_image(run, origins, person, person.image_url)
                if image is None:
                    failed += 1
                else:
                    refetched += 1
                    await _save_image(run, person, image)
            run.progress(processed=processed, total=total, changed=refetched, errors=failed,
                         message_code="personSourceRefetchRunning",
                         message_params={"processed": processed, "total": total})
        after = page[-1].id
    await run.report(state="succeeded", finished_at_ms=now_ms(), processed=processed, changed=refetched,
                     errors=failed, message_code="personSourceRefetchDone",
                     message_params={"refetched": refetched, "failed": failed})


async def _save_image(run: JobRun, person: PersonRow, image: PersonImage) -> None:
    await run.services.store.execute(
        "UPDATE people SET image_path = ?, image_tag = ?, updated_at = ? WHERE id = ?",
        (image.path, image.tag, now_ms(), person.id))


def _file_present(path: str | None) -> bool:
    return bool(path) and os.path.isfile(path)  # type: ignore[arg-type]
