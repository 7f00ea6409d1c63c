"""The scrape queue with an image host that drips (both backends, real server, plugin and sockets).

The slow host sends one byte of each promised image and then nothing
(tests/actors/scrape/drip_server.py). Good items are applied while the
slow ones hang, and the job says which items are in progress; with the
item's deadline lowered the slow items end scraped without their image.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from tests.actors.scrape.drip_server import DripServer, serve_drip
from tests.actors.scrape.image_server import FileServer, image_bytes, serve_files
from tests.actors.scrape.providers import candidate, movie
from tests.media_factory import MediaFactory

from .scanning import create_library, wait_for_state
from .scrape_support import items_by_name, scrape_job, server_with_provider, wait_for_job, wait_for_states, wait_until

CAP_S = 120
LOWERED_S = 0.5
SLOW = ("Slow One", "Slow Two", "Slow Three")
GOOD = ("Good One", "Good Two")


def _catalogue(drip: DripServer, files: FileServer) -> dict[str, Any]:
    search, details = {}, {}
    for number, name in enumerate((*SLOW, *GOOD)):
        url = drip.url(f"/{number}.jpg") if name in SLOW else files.url("/poster.jpg")
        search[f"movie|{name}"] = [candidate(str(number), name, 0.97, 2001)]
        details[f"movie|{number}"] = movie(str(number), name, 2001, images=[{"kind": "primary", "url": url}])
    return {"search": search, "details": details}


async def _hosts(nursery: trio.Nursery) -> tuple[DripServer, FileServer, list[str]]:
    drip = await nursery.start(serve_drip)
    files = await nursery.start(serve_files, {"/poster.jpg": (200, "image/jpeg", image_bytes())})
    return drip, files, [drip.base.removeprefix("http://"), files.base.removeprefix("http://")]


async def test_good_items_are_applied_while_slow_images_hang_and_the_job_counts_them_in_progress(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    drip, files, hosts = await _hosts(nursery)
    # One plugin slot: two workers, fewer than the slow items taken first.
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, _catalogue(drip, files),
                                                 concurrency=1)
    root = tmp_path / "films"
    for name in SLOW:
        media.video(root / f"{name} (2001)" / f"{name} (2001).mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root], realtimeMonitor=False, options={
                "remoteAllowedHosts": hosts, "autoScrape": False, "metadataProviders": ["test"]})
            library_id = library["id"]
            await wait_for_state(client, library_id)
            # The good films are indexed later, so the queue takes the slow ones first.
            for name in GOOD:
                media.video(root / f"{name} (2001)" / f"{name} (2001).mkv")
            assert (await client.post(f"/libraries/{library_id}/scan", json={"mode": "quick"})).status_code == 200
            await wait_until(lambda: _named(client, library_id, len(SLOW) + len(GOOD)), "the good films indexed")
            await wait_for_state(client, library_id)
            patched = await client.patch(f"/libraries/{library_id}/options",
                                         json={"remoteAllowedHosts": hosts, "autoScrape": True})
            assert patched.status_code == 200, patched.text
            assert (await client.post(f"/libraries/{library_id}/scrape-requeue")).status_code == 200
            items = await wait_for_states(client, library_id, {name: "scraped" for name in GOOD})
            hanging = await items_by_name(client, library_id)
            assert [hanging[name]["scrapeState"] for name in SLOW] == ["pending"] * 3  # still dripping meanwhile
            await drip.dripping(len(SLOW))
            job = await wait_until(lambda: _job_with(client, library_id, "Scraping: 2 done, 3 in progress, 0 waiting."),
                                   "the job counting the slow items in progress")
            drip.release.set()
            ended = await wait_for_states(client, library_id, {name: "scraped" for name in SLOW})
            done = await wait_for_job(client, library_id, state="succeeded")
    assert [items[name]["hasPoster"] for name in GOOD] == [True, True]
    assert job["state"] == "running" and job["messageCode"] == "scrapeRunning"
    assert (job["messageParams"]["processed"], job["messageParams"]["pending"]) == (2, 3)
    assert [ended[name]["hasPoster"] for name in SLOW] == [False] * 3  # applied without the broken image
    assert done["messageParams"] == {"processed": 5, "applied": 5, "failed": 0, "needsIdentify": 0}
    server.shutdown.set()


async def test_with_the_items_deadline_lowered_slow_items_end_scraped_without_their_image_while_it_still_drips(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    drip, files, hosts = await _hosts(nursery)
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, _catalogue(drip, files),
                                                 settings={"scrape": {"item_images_seconds": LOWERED_S}})
    root = tmp_path / "films"
    for name in (*SLOW, *GOOD):
        media.video(root / f"{name} (2001)" / f"{name} (2001).mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root], options={"remoteAllowedHosts": hosts})
            items = await wait_for_states(client, library["id"], {name: "scraped" for name in (*SLOW, *GOOD)})
            done = await wait_for_job(client, library["id"], state="succeeded")
    assert [items[name]["hasPoster"] for name in SLOW] == [False] * 3
    assert drip.started == 3 and not drip.release.is_set()
    assert done["messageParams"] == {"processed": 5, "applied": 5, "failed": 0, "needsIdentify": 0}
    server.shutdown.set()


async def _named(client: Any, library_id: str, count: int) -> bool:
    return len(await items_by_name(client, library_id)) >= count


async def _job_with(client: Any, library_id: str, message: str) -> dict[str, Any] | None:
    job = await scrape_job(client, library_id)
    return job if job is not None and job.get("message") == message else None
