"""Core task bodies against a real store (both backends): cleanup, scrape, plugin tasks."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import trio

from reelhouse import errors
from reelhouse.actors.jobs import JobSnapshot
from reelhouse.actors.maintenance import posters
from reelhouse.actors.maintenance.provider_image_sweep import _remove_unused
from reelhouse.actors.maintenance.upkeep import run_cleanup, run_scrape
from reelhouse.actors.schedule import (
    ListSchedules,
    RunEnd,
    RunNow,
    RunPluginTask,
    Scheduler,
    SchedulerServices,
    SyncPluginTasks,
    TaskContext,
    TaskDefinition,
)
from reelhouse.config import load_settings
from reelhouse.loop.time_slice import TimeSlice
from reelhouse.media.schedule import Rule
from reelhouse.runtime import Actor, spawn
from reelhouse.storage import Store
from reelhouse.storage._store import now_ms
from reelhouse.storage.activity import ActivityRecord, list_activity, record_activity
from reelhouse.storage.jobs import get_stored_job, save_job
from reelhouse.storage.stored_images import provider_image_root

from ..catalog_factory import catalog

HOUR_MS = 3600 * 1000
LIMIT_S = 20


def context(store: Store, tmp_path: Path, **settings: object) -> TaskContext:
    config = load_settings(flags={"data_dir": str(tmp_path / "data"), **settings}, environ={})
    job = JobSnapshot("task:t", "scheduledTask", "T", "running", True)
    return TaskContext("t", job, store, config, None, None, None, None, lambda: False,  # type: ignore[arg-type]
                       trio.Event, wall=lambda: datetime.now(UTC))


async def test_cleanup_purges_items_missing_past_their_grace_and_old_jobs(store: Store, tmp_path: Path) -> None:
    now = now_ms()
    async with catalog(store) as cat:
        library = cat.library("Films")
        gone = cat.movie(library, "Gone", missing=True, missing_since=now - 200 * HOUR_MS)
        recent = cat.movie(library, "Recent", missing=True, missing_since=now - 2 * HOUR_MS)
        present = cat.movie(library, "Present")
    await save_job(store, {"id": "old", "kind": "backup", "title": "B", "state": "succeeded", "cancellable": False},
                   started_at_ms=now - 50 * HOUR_MS, finished_at_ms=now - 49 * HOUR_MS)
    ctx = context(store, tmp_path)
    end = await run_cleanup(ctx)
    left = {row[0] for row in await store.fetch_all("SELECT id FROM items")}
    assert gone not in left and {recent, present} <= left  # default grace: 168 hours
    assert await get_stored_job(store, "old") is None
    assert end.result == "succeeded" and ctx.job.processed == 7 and ctx.job.changed == 2


async def test_cleanup_deletes_activity_entries_past_the_activity_retention(store: Store, tmp_path: Path) -> None:
    with trio.fail_after(LIMIT_S):
        now = now_ms()
        for days in (40, 31, 29, 1):
            await record_activity(store, ActivityRecord(f"server.start{days}", "settings", "system",
                                                         at_ms=now - days * 24 * HOUR_MS))
        ctx = context(store, tmp_path, schedule={"activity_retention_days": 30})
        end = await run_cleanup(ctx)
        left = [entry.action for entry in await list_activity(store, 10)]
    assert left == ["server.start1", "server.start29"]
    assert end.result == "succeeded" and ctx.job.changed == 2


async def test_scrape_without_providers_is_skipped_and_says_no_provider(store: Store, tmp_path: Path) -> None:
    async with catalog(store) as cat:
        cat.movie(cat.library("Films"), "Queued", scrape_state="pending")
    ctx = context(store, tmp_path)
    end = await run_scrape(ctx)
    assert end.result == "skipped"
    assert ctx.job.message_code == "noProvider" and ctx.job.total == 1


async def test_scrape_with_nothing_queued_is_skipped_so_a_continuous_rule_pauses_long(
    store: Store, tmp_path: Path, nursery: trio.Nursery
) -> None:
    """Regression: with nothing pending it succeeded every 5 s, writing a job row each time."""
    async with catalog(store) as cat:
        cat.movie(cat.library("Films"), "Matched", scrape_state="scraped")
    libraries = await spawn(nursery, NoLibraries(), "libraries")
    ctx = replace(context(store, tmp_path), libraries=libraries)
    end = await run_scrape(ctx)
    assert end.result == "skipped" and ctx.job.total == 0


class NoLibraries(Actor):
    async def handle(self, msg: object) -> object:
        raise AssertionError(f"nothing to wake, yet asked {msg!r}")


class FakePluginHost(Actor):
    def __init__(self) -> None:
        self.runs: list[str] = []

    async def handle(self, msg: object) -> object:
        match msg:
            case RunPluginTask(task=task):
                self.runs.append(task)
                return RunEnd("succeeded", message="done")
        return None


async def test_a_registered_plugin_task_is_listed_and_runs_through_its_host(store: Store, nursery: trio.Nursery) -> None:
    host_actor = FakePluginHost()
    host = await spawn(nursery, host_actor, "plugins")
    scheduler = await spawn(nursery, Scheduler(SchedulerServices(store=store), {}), "scheduler")
    definition = TaskDefinition("tmdb.refresh", (Rule("interval", every_seconds=3600),), owner="tmdb",
                                names={"en": "Refresh TMDB"}, descriptions={"en": "Refreshes."}, runner=host)
    await scheduler.ask(SyncPluginTasks((definition,)), timeout=5)  # what its follower of the host sends
    await scheduler.ask(RunNow("tmdb.refresh"), timeout=5)
    with trio.fail_after(5):
        while True:
            [schedule] = (await scheduler.ask(ListSchedules(), timeout=5))["schedules"]
            if not schedule["running"] and schedule.get("lastResult"):
                break
            await trio.sleep(0.01)
    assert host_actor.runs == ["tmdb.refresh"]
    assert schedule["owner"] == "tmdb" and schedule["names"] == {"en": "Refresh TMDB"}
    assert schedule["lastResult"] == "succeeded" and schedule["lastMessage"] == "done" and "nextRunAt" in schedule
    with pytest.raises(errors.NotFound):
        await scheduler.ask(RunNow("tmdb.other"), timeout=5)


async def test_cleanup_removes_provider_images_no_row_names_once_they_are_an_hour_old(
    store: Store, tmp_path: Path
) -> None:
    """Regression: the provider image folders of purged items (and replaced files a crash left) were
    never swept, so the data directory only grew."""
    ctx = context(store, tmp_path)
    root = provider_image_root(ctx.settings.data_dir)
    async with catalog(store) as cat:
        library = cat.library("Films")
        kept = cat.movie(library, "Kept")
        cat.image(kept, path=str(root / kept / "primary-0-aa.jpg"), source="provider")
    hour_ago = time.time() - 2 * 3600
    files = {
        "in use": root / kept / "primary-0-aa.jpg",
        "replaced": root / kept / "primary-0-old.jpg",
        "being applied": root / kept / "backdrop-0-new.jpg",
        "purged item": root / "purgedItemId" / "primary-0-bb.jpg",
    }
    for name, path in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"image")
        if name != "being applied":
            os.utime(path, (hour_ago, hour_ago))
    outside = tmp_path / "outside.jpg"
    outside.write_bytes(b"not ours")
    os.utime(outside, (hour_ago, hour_ago))
    (root / kept / "link.jpg").symlink_to(outside)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "primary-0-cc.jpg").write_bytes(b"not ours either")
    os.utime(elsewhere / "primary-0-cc.jpg", (hour_ago, hour_ago))
    (root / "linkedItemId").symlink_to(elsewhere, target_is_directory=True)
    with trio.fail_after(LIMIT_S):
        end = await run_cleanup(ctx)
    left = {name for name, path in files.items() if path.exists()}
    assert left == {"in use", "being applied"}
    assert not (root / "purgedItemId").exists() and outside.exists()
    assert (elsewhere / "primary-0-cc.jpg").exists()  # a linked folder is not followed
    assert end.result == "succeeded" and ctx.job.changed == 2


def test_a_folder_swapped_for_a_link_after_the_listing_is_not_followed(tmp_path: Path) -> None:
    """The sweep lists real folders, then opens each without following a link: one swapped for a
    link to somewhere else in between loses nothing there."""
    root, elsewhere = tmp_path / "metadata", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    old_file = elsewhere / "primary-0-dd.jpg"
    old_file.write_bytes(b"not ours")
    hour_ago = time.time() - 2 * 3600
    os.utime(old_file, (hour_ago, hour_ago))
    (root / "swappedItemId").symlink_to(elsewhere, target_is_directory=True)
    removed = _remove_unused(root, ["swappedItemId"], set(), set(), now_ms())
    assert removed == 0 and old_file.exists() and (root / "swappedItemId").is_symlink()


async def test_poster_pregenerate_lets_other_tasks_run_while_it_walks_works_that_need_no_rendering(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with catalog(store) as cat:
        library = cat.library("Films")
        for n in range(60):
            cat.movie(library, f"Film {n}")  # no poster: nothing to render, no await that yields
    monkeypatch.setattr(posters, "TimeSlice", lambda: TimeSlice(seconds=0.0))  # every step is past its slice
    turns: list[int] = []
    walking = trio.Event()

    async def other_task() -> None:
        while not walking.is_set():
            await trio.lowlevel.checkpoint()
        while walking.is_set():
            turns.append(1)
            await trio.lowlevel.checkpoint()

    ctx = context(store, tmp_path)
    with trio.fail_after(LIMIT_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(other_task)
            walking.set()
            await trio.lowlevel.checkpoint()
            before = len(turns)
            end = await posters.run_poster_pregenerate(ctx)
            during = len(turns) - before
            nursery.cancel_scope.cancel()
    assert end.result == "skipped" and ctx.job.progress_no_poster == 60
    assert during >= 60  # a turn for the other task at every work
