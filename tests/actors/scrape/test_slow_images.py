"""Slow image hosts: a download and an item's images end at their deadlines, and one host cannot take every slot.

The slow host is a real socket that sends one byte of a promised image and
then nothing (drip_server.py); the deadlines are lowered, never waited on
by the clock of the test itself.
"""

from __future__ import annotations

from dataclasses import replace

import trio

from reelhouse.actors.scrape.apply import ApplyResult
from reelhouse.actors.scrape.download_slots import DownloadSlots
from reelhouse.media.provider_metadata import ProviderImage

from .conftest import World, movie_answer, origins
from .drip_server import DripServer, serve_drip

LOWERED_S = 0.5


async def _slow_world(world: World, nursery: trio.Nursery) -> tuple[World, DripServer]:
    drip = await nursery.start(serve_drip)
    deps = replace(world.deps, provider_origins=origins(world.files.base, drip.base))
    return replace(world, deps=deps), drip


async def _movie(world: World, name: str) -> str:
    movie = world.cat.movie(world.cat.library(f"Films {name}", "movies"), name)
    await world.cat.flush()
    return movie


async def test_a_slow_drip_image_ends_at_its_download_deadline_and_the_item_is_applied_without_it(
    world: World, nursery: trio.Nursery
) -> None:
    world, drip = await _slow_world(world, nursery)
    movie = await _movie(world, "arrival")
    answer = movie_answer(images=(ProviderImage("primary", drip.url("/poster.jpg")),))
    result = await world.apply(movie, answer, download_seconds=LOWERED_S)
    assert (result.applied, result.images_added, result.images_failed) == (True, 0, 1)
    assert await world.images(movie) == {} and (await world.row(movie))["name"] == "Arrival"
    assert drip.started == 1 and not drip.release.is_set()  # it was still dripping


async def test_an_items_images_end_at_the_items_deadline_whatever_one_download_may_take(
    world: World, nursery: trio.Nursery
) -> None:
    world, drip = await _slow_world(world, nursery)
    movie = await _movie(world, "arrival")
    answer = movie_answer(images=(ProviderImage("primary", drip.url("/poster.jpg")),
                                  ProviderImage("backdrop", drip.url("/backdrop.jpg"))))
    result = await world.apply(movie, answer, item_images_seconds=LOWERED_S)
    assert (result.applied, result.images_added, result.images_failed) == (True, 0, 2)
    assert await world.images(movie) == {} and (await world.row(movie))["name"] == "Arrival"
    assert drip.started == 2 and not drip.release.is_set()


async def test_a_slow_image_host_holds_its_share_of_the_download_slots_and_other_hosts_go_on(
    world: World, nursery: trio.Nursery
) -> None:
    world, drip = await _slow_world(world, nursery)
    world = replace(world, deps=replace(world.deps, downloads=DownloadSlots(total=2, per_origin=1)))
    slow = [await _movie(world, f"slow {n}") for n in range(3)]
    good = await _movie(world, "good")
    slow_results: list[ApplyResult] = []

    async def apply_slow(movie: str) -> None:
        slow_results.append(await world.apply(movie, movie_answer(images=(ProviderImage("primary", drip.url(f"/{movie}.jpg")),))))

    with trio.CancelScope() as hanging:
        async with trio.open_nursery() as slow_ones:
            for movie in slow:
                slow_ones.start_soon(apply_slow, movie)
            with trio.fail_after(20):
                await drip.dripping(1)
            images = (ProviderImage("primary", world.files.url("/poster.jpg")),
                      ProviderImage("backdrop", world.files.url("/backdrop.png")))
            result = await world.apply(good, movie_answer(images=images))
            assert (result.images_added, result.images_failed) == (2, 0)
            assert set(await world.images(good)) == {("primary", 0), ("backdrop", 0)}
            assert drip.started == 1 and slow_results == []  # the slow host still holds its one slot
            hanging.cancel()
