"""run_scan over time, on both backends: quick and full rescans, missing and purged items, offline roots."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
import trio
import trio.lowlevel

import reelhouse.actors.scan.pipeline as pipeline
from reelhouse.actors.scan import ScanProgress, run_scan

from .conftest import LIBRARY_ID, Library, Tree
from .pipeline_samples import MOVIE_NFO, PLAYBACK, png


async def test_quick_rescan_of_an_unchanged_library_rewrites_nothing(tree: Tree, library: Library) -> None:
    tree.add("A (2001)/A (2001).mkv")
    tree.add("A (2001)/movie.nfo", MOVIE_NFO)
    tree.add("A (2001)/poster.png", png(2, 3))
    tree.add("Show/Season 1/Show S01E01.mkv")
    tree.age()
    first = await library.scan()
    before = await library.items()
    quick = await library.scan("quick")
    assert (quick.added, quick.changed, quick.missing) == (0, 0, 0)
    assert library.progress.processed == first.processed
    after = await library.items()
    assert {k: (v["id"], v["date_modified"]) for k, v in after.items()} == {k: (v["id"], v["date_modified"]) for k, v in before.items()}
    full = await library.scan("full")
    assert (full.added, full.changed, full.missing) == (0, 0, 0)


async def test_quick_scan_skips_unchanged_directories_and_full_scan_checks_every_file(tree: Tree, library: Library) -> None:
    video = tree.add("A (2001)/A (2001).mkv")
    tree.age()
    await library.scan()
    before = (await library.items())["A (2001)/A (2001).mkv"]
    stamp = os.stat(tree.path("A (2001)")).st_mtime_ns
    video.write_bytes(b"\x01" * 500)  # in place: the directory's mtime stays
    assert os.stat(tree.path("A (2001)")).st_mtime_ns == stamp
    assert (await library.scan("quick")).changed == 0
    outcome = await library.scan("full")
    after = (await library.items())["A (2001)/A (2001).mkv"]
    assert outcome.changed == 1
    assert (after["id"], after["file_size"]) == (before["id"], 500)
    assert after["date_modified"] >= before["date_modified"] and after["date_created"] == before["date_created"]
    size = await library.store.fetch_value("SELECT size FROM media_sources WHERE item_id = ?", (after["id"],))
    assert size == 500


async def test_removed_files_turn_missing_and_come_back(tree: Tree, library: Library) -> None:
    for n in range(6):
        tree.add(f"M{n} (200{n})/M{n} (200{n}).mkv")
    await library.scan()
    tree.remove("M0 (2000)/M0 (2000).mkv")
    outcome = await library.scan("quick")
    items = await library.items()
    gone = items["M0 (2000)/M0 (2000).mkv"]
    assert outcome.missing == 1 and gone["missing"] == 1 and gone["missing_since"] is not None
    assert await library.store.fetch_value("SELECT missing FROM media_sources WHERE item_id = ?", (gone["id"],)) == 1
    assert sum(i["missing"] for i in items.values()) == 1
    tree.add("M0 (2000)/M0 (2000).mkv")
    outcome = await library.scan("quick")
    back = (await library.items())["M0 (2000)/M0 (2000).mkv"]
    assert (back["id"], back["missing"], back["missing_since"]) == (gone["id"], 0, None)
    assert outcome.changed == 1 and outcome.missing == 0


async def test_missing_items_are_purged_after_the_grace_period(tree: Tree, library: Library) -> None:
    for n in range(6):
        tree.add(f"M{n} (200{n}).mkv")
    await library.scan()
    tree.remove("M0 (2000).mkv")
    await library.scan()
    gone = (await library.items())["M0 (2000).mkv"]
    await library.scan()  # within the grace period: kept
    assert "M0 (2000).mkv" in await library.items()
    await library.store.execute("UPDATE items SET missing_since = ? WHERE id = ?", (gone["missing_since"] - 169 * 3_600_000, gone["id"]))
    await library.scan()
    assert "M0 (2000).mkv" not in await library.items()


async def test_files_purged_with_their_owner_come_back_on_the_next_quick_scan(tree: Tree, library: Library) -> None:
    for n in range(6):
        tree.add(f"M{n} (200{n})/M{n} (200{n}).mkv")
    tree.add("M0 (2000)/extras/Making of.mkv")
    tree.age()
    await library.scan()
    tree.remove("M0 (2000)/M0 (2000).mkv")
    await library.scan("quick")
    movie = (await library.items())["M0 (2000)/M0 (2000).mkv"]
    await library.store.execute("UPDATE items SET missing_since = 1 WHERE id = ?", (movie["id"],))
    await library.scan("quick")  # purges the movie, and its extra with it
    assert "M0 (2000)/extras/Making of.mkv" not in await library.items()
    await library.scan("quick")
    extra = (await library.items())["M0 (2000)/extras/Making of.mkv"]
    assert (extra["type"], extra["owner_id"], extra["missing"]) == ("Video", None, 0)


async def test_mass_missing_pauses_marking(tree: Tree, library: Library) -> None:
    for n in range(10):
        tree.add(f"M{n} (200{n}).mkv")
    await library.scan()
    for n in range(3):
        tree.remove(f"M{n} (200{n}).mkv")
    outcome = await library.scan()
    assert outcome.mass_missing_paused and library.progress.mass_missing_paused
    assert outcome.missing == 3 and library.progress.missing == 3
    assert not any(i["missing"] for i in (await library.items()).values())
    outcome = await library.scan(options=replace(PLAYBACK, mass_missing_threshold=1.0))
    assert not outcome.mass_missing_paused and outcome.missing == 3
    assert sum(i["missing"] for i in (await library.items()).values()) == 3


async def test_offline_roots_never_turn_their_items_missing(tree: Tree, library: Library, tmp_path) -> None:
    other = Tree(tmp_path / "other")
    mount = Tree(tmp_path / "mount")
    tree.add("A (2001).mkv")
    other.add("B (2002).mkv")
    mount.add("C (2003).mkv")
    roots = (tree.path(), other.path(), mount.path())
    await library.scan(roots=roots)
    os.remove(mount.path("C (2003).mkv"))  # an empty mount point: the disk is not mounted
    os.remove(other.path("B (2002).mkv"))
    os.rmdir(other.path())  # the root is gone
    tree.add("D (2004).mkv")
    outcome = await library.scan("quick", roots=roots, options=replace(PLAYBACK, mass_missing_threshold=1.0))
    states = {r.path: (r.online, r.reason_code) for r in outcome.roots}
    assert states == {tree.path(): (True, None), other.path(): (False, "not_found"), mount.path(): (False, "not_mounted")}
    assert all(r.checked_at_ms > 0 and (r.online or r.message) for r in outcome.roots)
    assert outcome.missing == 0 and outcome.added == 1
    assert not any(row["missing"] for row in await library.store.fetch_all("SELECT missing FROM items"))


async def test_an_empty_root_without_items_is_online(tree: Tree, library: Library) -> None:
    outcome = await library.scan()
    assert [(r.online, r.reason_code) for r in outcome.roots] == [(True, None)]


async def test_dangling_symlinks_are_scan_errors_and_do_not_stop_the_scan(tree: Tree, library: Library) -> None:
    tree.add("A (2001).mkv")
    os.symlink(tree.path("nowhere.mkv"), tree.path("Gone (2002).mkv"))
    outcome = await library.scan()
    assert list(await library.items()) == ["A (2001).mkv"]
    assert outcome.errors == 1
    assert await library.errors() == [(tree.path("Gone (2002).mkv"), "Dangling symbolic link: its target does not exist.")]


async def test_only_dirs_rescans_just_those_directories(tree: Tree, library: Library) -> None:
    for n in range(6):
        tree.add(f"M{n} (200{n})/M{n} (200{n}).mkv")
    await library.scan()
    tree.remove("M0 (2000)/M0 (2000).mkv")
    tree.remove("M1 (2001)/M1 (2001).mkv")
    tree.add("M2 (2002)/M2 (2002) - 4K.mkv")
    outcome = await library.scan("quick", only_dirs=(tree.path("M0 (2000)"), tree.path("M2 (2002)")))
    items = await library.items()
    assert (outcome.missing, outcome.added) == (1, 1)
    assert items["M0 (2000)/M0 (2000).mkv"]["missing"] == 1
    assert items["M1 (2001)/M1 (2001).mkv"]["missing"] == 0  # outside the rescanned directories
    assert items["M2 (2002)/M2 (2002) - 4K.mkv"]["version_of"] == items["M2 (2002)/M2 (2002).mkv"]["id"]


async def test_rewrite_writes_every_item_again(tree: Tree, library: Library) -> None:
    tree.add("A (2001).mkv")
    tree.add("B (2002).mkv")
    await library.scan()
    outcome = await library.scan("quick", rewrite=True)
    assert (outcome.added, outcome.changed) == (0, 2)


async def test_a_cancelled_scan_marks_nothing_missing_and_keeps_what_it_wrote(
    tree: Tree, library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "PARSE_MAX_FILES", 2)
    for n in range(12):
        tree.add(f"M{n:02} (20{n:02})/M{n:02} (20{n:02}).mkv")
    await library.scan()
    tree.remove("M11 (2011)/M11 (2011).mkv")
    tree.add("M00 (2000)/M00 (2000) - 4K.mkv")
    progress = ScanProgress()
    plan = pipeline.ScanPlan(LIBRARY_ID, "movies", library.roots, "full", replace(PLAYBACK, mass_missing_threshold=1.0))

    async def cancel_when_parsing(scope: trio.CancelScope) -> None:
        while progress.added == 0:
            await trio.lowlevel.checkpoint()
        scope.cancel()

    with trio.fail_after(20):
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(cancel_when_parsing, scope)
                await run_scan(plan, library.store, progress, library.deps)
    assert scope.cancelled_caught
    items = await library.items()
    assert "M00 (2000)/M00 (2000) - 4K.mkv" in items  # its batch was written whole
    assert not any(i["missing"] for i in items.values())
    assert (await library.scan()).missing == 1


async def test_scanned_items_carry_the_key_of_their_sort_name(tree: Tree, library: Library) -> None:
    tree.add("Émile (2001)/Émile (2001).mkv")
    tree.add("Arrival (2016)/Arrival (2016).mkv")
    tree.add("Arrival (2016)/movie.nfo", MOVIE_NFO)
    await library.scan()
    items = await library.items()
    assert items["Émile (2001)/Émile (2001).mkv"]["name_key"] == "emile"
    assert items["Arrival (2016)/Arrival (2016).mkv"]["name_key"] == "arrival, the"  # the NFO's sorttitle
