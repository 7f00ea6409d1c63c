"""Arbitrary byte names through walk -> parse (thread or child) -> store -> JSON -> back to the file, on both backends."""

from __future__ import annotations

import os
import uuid
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
import trio
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import reelhouse.actors.scan.parser_process as parser_process
from reelhouse.actors.scan import ScanDeps, ScanPlan, ScanProgress, run_scan
from reelhouse.media.file_names import from_fs_bytes, to_bytes, to_fs
from reelhouse.media.library_options import LibraryOptions
from reelhouse.media.naming import classify
from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage.item_detail import item_detail

from .conftest import AGE_S, SCAN_LIMIT_S, Library, Tree, create_library

# A name is any bytes but "/" and NUL, never "." or "..".
NAME = (
    st.binary(min_size=1, max_size=16) | st.sampled_from([b"Caf\xe9 (2001)", b"a\\xe9", b"\\x5c\xff", b"\xed\xb3\xa9"])
).filter(lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b".."))
OPTIONS = LibraryOptions(media_info_timing="playback")


def _is_movie(rel: bytes) -> bool:
    """What the naming rules make of the file: only plain movies are expected as items."""
    return getattr(classify(from_fs_bytes(rel), "movies"), "kind", None) == "movie"


async def _scan(store: Store, library_id: str, root: str, deps: ScanDeps, mode: str):
    with trio.fail_after(SCAN_LIMIT_S):
        plan = ScanPlan(library_id, "movies", (root,), mode, OPTIONS)  # type: ignore[arg-type]
        return await run_scan(plan, store, ScanProgress(), deps)


@pytest.mark.parametrize("in_child", [False, True], ids=["thread", "child"])
@settings(max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(folder=NAME, stem=NAME, loose=NAME)
async def test_any_byte_names_are_indexed_stored_rendered_and_found_again(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_child: bool, folder: bytes, stem: bytes, loose: bytes
) -> None:
    files = [folder + b"/" + stem + b".mkv", loose + b".mkv"]
    assume(all(_is_movie(f) for f in files))
    deps = ScanDeps(trio.CapacityLimiter(2))
    if in_child:  # the child's pipe protocol carries the names too
        monkeypatch.setattr(parser_process, "PROCESS_MIN_FILES", 1)
        deps = replace(deps, parse_processes=trio.CapacityLimiter(1))
    library_id = uuid.uuid4().hex[:12]
    tree = Tree(tmp_path / library_id)
    base = os.fsencode(tree.path())
    for rel in files:
        os.makedirs(os.path.dirname(os.path.join(base, rel)), exist_ok=True)
        with open(os.path.join(base, rel), "wb") as handle:
            handle.write(b"\x00" * 64)
    tree.age(AGE_S)  # so the quick scan finds every directory unchanged
    async with open_store(database_url) as store:  # each example runs in its own trio.run
        await migrate(store)
        await create_library(store, library_id)
        await _check(store, library_id, tree, deps, [os.path.join(base, f) for f in files])


async def _check(store: Store, library_id: str, tree: Tree, deps: ScanDeps, files: list[bytes]) -> None:
    first = await _scan(store, library_id, tree.path(), deps, "full")
    assert (first.errors, first.added) == (0, 2)
    rows = await store.fetch_all(
        "SELECT i.id, i.name, s.path FROM items i JOIN media_sources s ON s.item_id = i.id WHERE i.library_id = ?",
        (library_id,),
    )
    assert sorted(to_bytes(r["path"]) for r in rows) == sorted(files)
    for row in rows:
        assert os.path.isfile(to_fs(row["path"]))
        rendered = orjson.loads(orjson.dumps(await item_detail(store, row["id"])))  # what the API sends
        assert rendered["mediaSources"][0]["path"] == row["path"]
        rendered["name"].encode("utf-8")

    again = await _scan(store, library_id, tree.path(), deps, "quick")
    assert (again.added, again.changed, again.missing, again.errors) == (0, 0, 0, 0)


async def test_a_rescan_of_a_directory_named_in_path_text_finds_its_items_unchanged(tree: Tree, library: Library) -> None:
    base = os.fsencode(tree.path())
    os.makedirs(os.path.join(base, b"Caf\xe9 (2001)"))
    for rel in (b"Caf\xe9 (2001)/Caf\xe9 (2001).mkv", b"Caf\xe9 (2001)/movie.nfo"):
        with open(os.path.join(base, rel), "wb") as handle:
            handle.write(b"<movie><title>Caf\xc3\xa9</title></movie>" if rel.endswith(b".nfo") else b"\x00" * 64)
    first = await library.scan()
    assert (first.added, first.errors) == (1, 0)
    items = await library.items()
    assert [(path, row["name"]) for path, row in items.items()] == [("Caf\\xe9 (2001)/Caf\\xe9 (2001).mkv", "Café")]
    folder = f"{tree.path()}/Caf\\xe9 (2001)"  # what an item rescan asks for: the item's directory as stored
    again = await library.scan(only_dirs=(folder,))
    assert (again.added, again.changed, again.missing, again.errors) == (0, 0, 0, 0)
    assert await library.items() == items
