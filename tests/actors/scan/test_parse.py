"""The parse step reads NFOs, images and .strm files only inside the library's roots."""

from __future__ import annotations

import io
import os
from pathlib import Path

from PIL import Image

from reelhouse.actors.scan.parse import Parser
from reelhouse.actors.scan.walk import Walker, WalkStart
from reelhouse.media.assembly import ScanRules
from reelhouse.media.library_options import LibraryOptions
from reelhouse.storage.catalog import ScanIndex
from reelhouse.storage.confined_files import confinement_for

from .conftest import LIBRARY_ID, Tree


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "red").save(buffer, "PNG")
    return buffer.getvalue()


def test_files_swapped_for_links_out_after_the_walk_are_not_read(tree: Tree, tmp_path: Path) -> None:
    """Between the walk and the parse a file becomes a link out: the read itself refuses it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "movie.nfo").write_text("<movie><title>Stolen title</title></movie>")
    (outside / "poster.png").write_bytes(png(3, 2))
    (outside / "x.strm").write_text("http://example.com/stolen\n")
    tree.add("A (2001)/A (2001).mkv")
    tree.add("A (2001)/movie.nfo", "<movie><title>Own title</title></movie>")
    tree.add("A (2001)/poster.png", png(5, 4))
    tree.add("B (2002)/B (2002).strm", "http://example.com/own\n")
    within = confinement_for([tree.path()], None)
    walker = Walker([WalkStart(tree.path())], quick=False, stored_mtimes={}, stored_children={}, within=within)
    visits = walker.step(max_dirs=100, max_seconds=10).visits
    for name, rel in (("movie.nfo", "A (2001)/movie.nfo"), ("poster.png", "A (2001)/poster.png"), ("x.strm", "B (2002)/B (2002).strm")):
        os.unlink(tree.path(rel))
        os.symlink(outside / name, tree.path(rel))
    rules = ScanRules.from_options(LIBRARY_ID, "movies", LibraryOptions(media_info_timing="playback"))
    parser = Parser(rules, ScanIndex(), rewrite=False, probe_changed=False, within=within)
    batch = parser.parse(visits)
    [record] = batch.records  # the .strm pointing nowhere usable is not indexed
    assert record.meta is None and record.images == ()
    assert sorted(Path(e.path).name for e in batch.errors) == ["B (2002).strm", "movie.nfo", "poster.png"]
    assert all("outside the library's folders" in e.error for e in batch.errors)
