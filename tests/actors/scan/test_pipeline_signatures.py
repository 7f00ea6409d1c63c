"""Full rescans skip directories whose listing is unchanged (their signature), on both backends."""

from __future__ import annotations

import os
from pathlib import Path

from reelhouse.media.library_options import LibraryOptions

from .conftest import Library, Tree
from .pipeline_samples import MOVIE_NFO, png

FOLDER = "Arrival (2016)"
NFO = f"{FOLDER}/movie.nfo"
VIDEO = f"{FOLDER}/Arrival (2016).mkv"


def _rewrite_keeping_size_and_times(tree: Tree, rel: str, old: str, new: str) -> None:
    """Edit a file in place to text of the same size, then put back its and its directory's mtimes."""
    assert len(old) == len(new)
    path = Path(tree.path(rel))
    file_stat, dir_stat = path.stat(), path.parent.stat()
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(file_stat.st_atime_ns, file_stat.st_mtime_ns))
    os.utime(path.parent, ns=(dir_stat.st_atime_ns, dir_stat.st_mtime_ns))


async def _name(library: Library) -> str:
    return str((await library.items())[VIDEO]["name"])


async def test_a_full_rescan_parses_no_directory_whose_listing_is_unchanged(tree: Tree, library: Library) -> None:
    tree.add(VIDEO)
    tree.add(NFO, MOVIE_NFO)
    tree.age()
    await library.scan()
    assert await _name(library) == "The Arrival"
    _rewrite_keeping_size_and_times(tree, NFO, "The Arrival", "The Landing")
    outcome = await library.scan("full")
    assert (outcome.added, outcome.changed, outcome.missing) == (0, 0, 0)
    assert await _name(library) == "The Arrival"  # not read again: same names, sizes and mtimes
    rewritten = await library.scan("full", rewrite=True)  # a rewrite parses every directory
    assert rewritten.changed >= 1 and await _name(library) == "The Landing"


async def test_a_full_rescan_parses_a_directory_again_when_a_file_in_it_changed_in_place(
    tree: Tree, library: Library
) -> None:
    tree.add(VIDEO)
    tree.add(NFO, MOVIE_NFO)
    tree.age()
    await library.scan()
    path = Path(tree.path(NFO))
    dir_stat = path.parent.stat()
    path.write_text(MOVIE_NFO.replace("The Arrival", "The Arrival, Extended"))  # another size, a new mtime
    os.utime(path.parent, ns=(dir_stat.st_atime_ns, dir_stat.st_mtime_ns))
    assert (await library.scan("quick")).changed == 0  # quick looks at directory mtimes only
    assert (await library.scan("full")).changed == 1
    assert await _name(library) == "The Arrival, Extended"


async def test_a_full_rescan_parses_an_unchanged_directory_holding_a_missing_item(
    tree: Tree, library: Library
) -> None:
    tree.add(VIDEO)
    tree.add(NFO, MOVIE_NFO)
    tree.age()
    await library.scan()
    # Marked missing while its file stayed (confirmed during a flaky mount, say).
    await library.store.execute("UPDATE items SET missing = 1, missing_since = 1 WHERE path = ?", (tree.path(VIDEO),))
    outcome = await library.scan("full")
    back = (await library.items())[VIDEO]
    assert outcome.changed == 1 and (back["missing"], back["missing_since"]) == (0, None)


async def test_a_full_rescan_parses_every_directory_again_when_the_rules_changed(tree: Tree, library: Library) -> None:
    for n in range(6):  # one in seven turns missing: below the mass-missing safeguard
        tree.add(f"M{n} (200{n})/M{n} (200{n}).mkv")
    tree.add("Sample Clip (2016)/Sample Clip (2016).mkv")
    tree.age()
    await library.scan()
    excluding = LibraryOptions(media_info_timing="playback", exclude_keywords=["sample"])
    outcome = await library.scan("full", options=excluding)
    assert outcome.missing == 1
    assert (await library.items())["Sample Clip (2016)/Sample Clip (2016).mkv"]["missing"] == 1


async def test_a_full_rescan_drafts_unchanged_seasons_again_when_their_series_folder_changed(
    tree: Tree, library: Library
) -> None:
    library.kind = "tvshows"
    tree.add("Dark/Season 1/Dark - S01E01.mkv")
    tree.add("Dark/Season 2/Dark - S02E01.mkv")
    tree.age()
    await library.scan()
    tree.add("Dark/season01-poster.png", png(4, 6))  # in the series folder; the season's folder is unchanged
    await library.scan("full")
    rows = await library.store.fetch_all(
        "SELECT m.path FROM images m JOIN items i ON i.id = m.item_id WHERE i.path = ?", (tree.path("Dark/Season 1"),)
    )
    assert [row["path"] for row in rows] == [tree.path("Dark/season01-poster.png")]
