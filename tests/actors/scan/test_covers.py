"""Library covers chosen after a scan: found images, automatic collages, on both backends."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import trio
from PIL import Image

from reelhouse.actors.scan.covers import refresh_covers
from reelhouse.media.library_options import LibraryOptions
from reelhouse.media.local_images import image_tag
from reelhouse.storage import Store
from reelhouse.storage.covers import load_covers
from reelhouse.storage.libraries import LibraryRecord

from .conftest import LIBRARY_ID, Library, Tree, create_library

LIMIT_S = 30


def poster(color: str, size: tuple[int, int] = (200, 300)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "JPEG")
    return out.getvalue()


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path / "lib")


@pytest.fixture
async def library(store: Store, tree: Tree) -> Library:
    await create_library(store)
    return Library(store, (tree.path(),))


def record(tree: Tree) -> LibraryRecord:
    return LibraryRecord(LIBRARY_ID, "Films", "movies", (tree.path(),), LibraryOptions(), (), 0, 0)


def add_movies(tree: Tree, colors: list[str]) -> None:
    for n, color in enumerate(colors):
        tree.add(f"Movie {n} (200{n})/Movie {n} (200{n}).mkv")
        tree.add(f"Movie {n} (200{n})/poster.jpg", poster(color))


async def test_a_library_with_posters_gets_temporary_collages_until_four_posters(
    tree: Tree, library: Library, tmp_path: Path
) -> None:
    add_movies(tree, ["red", "blue"])
    covers_dir = tmp_path / "covers"
    with trio.fail_after(LIMIT_S):
        await library.scan()
        covers = await refresh_covers(library.store, record(tree), covers_dir, trio.CapacityLimiter(1))
        primary, thumb = covers["primary"], covers["thumb"]
        assert (primary.source, primary.final, len(primary.posters)) == ("auto", False, 2)
        written = (covers_dir / f"{LIBRARY_ID}-primary.jpg").read_bytes()
        assert primary.tag == image_tag(written) and primary.generated_at_ms is not None
        with Image.open(io.BytesIO(written)) as image:
            assert image.size == (600, 900)
        assert thumb.source == "auto" and (covers_dir / f"{LIBRARY_ID}-thumb.jpg").is_file()
        assert await load_covers(library.store, LIBRARY_ID) == covers

        again = await refresh_covers(library.store, record(tree), covers_dir, trio.CapacityLimiter(1))
        assert again == covers  # same posters: not made again

        add_movies(tree, ["red", "blue", "lime", "yellow"])
        await library.scan()
        grown = await refresh_covers(library.store, record(tree), covers_dir, trio.CapacityLimiter(1))
    assert grown["primary"].final is True and grown["primary"].tag != primary.tag


async def test_an_image_at_the_root_is_the_cover_found_in_the_library(
    tree: Tree, library: Library, tmp_path: Path
) -> None:
    add_movies(tree, ["red"])
    found = tree.add("folder.jpg", poster("navy"))
    with trio.fail_after(LIMIT_S):
        await library.scan()
        covers = await refresh_covers(library.store, record(tree), tmp_path / "covers", trio.CapacityLimiter(1))
        assert covers["primary"].source == "scanned" and covers["primary"].tag == image_tag(found.read_bytes())
        assert covers["primary"].generated_at_ms is None
        assert covers["thumb"].source == "auto"  # no landscape image at the root: the collage
        found.write_bytes(poster("white"))
        changed = await refresh_covers(library.store, record(tree), tmp_path / "covers", trio.CapacityLimiter(1))
    assert changed["primary"].tag == image_tag(found.read_bytes()) != covers["primary"].tag


async def test_no_posters_and_no_image_means_no_cover(tree: Tree, library: Library, tmp_path: Path) -> None:
    tree.add("Heat (1995).mkv")
    with trio.fail_after(LIMIT_S):
        await library.scan()
        covers = await refresh_covers(library.store, record(tree), tmp_path / "covers", trio.CapacityLimiter(1))
    assert covers == {} and await load_covers(library.store, LIBRARY_ID) == {}


async def test_unreadable_posters_are_left_out_of_the_collage(tree: Tree, library: Library, tmp_path: Path) -> None:
    add_movies(tree, ["red"])
    tree.add("Broken (2001)/Broken (2001).mkv")
    tree.add("Broken (2001)/poster.jpg", b"\xff\xd8\xff not a jpeg at all")  # indexed (a JPEG by its magic), does not decode
    with trio.fail_after(LIMIT_S):
        await library.scan()
        covers = await refresh_covers(library.store, record(tree), tmp_path / "covers", trio.CapacityLimiter(1))
    assert covers["primary"].source == "auto" and len(covers["primary"].posters) == 2
