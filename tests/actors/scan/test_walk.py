"""Walker: quick and full walks over real directories; errors do not stop it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import reelhouse.actors.scan.walk as walk
from reelhouse.actors.scan.walk import RACY_MTIME, DirVisit, Walker, WalkError, WalkStart
from reelhouse.storage.confined_files import confinement_for

from .conftest import Tree


def run(walker: Walker, *, max_dirs: int = 2) -> tuple[list[DirVisit], list[WalkError], list[str]]:
    visits: list[DirVisit] = []
    errors: list[WalkError] = []
    unreadable: list[str] = []
    while True:
        step = walker.step(max_dirs=max_dirs, max_seconds=10)
        visits += step.visits
        errors += step.errors
        unreadable += step.unreadable
        if step.done:
            return visits, errors, unreadable


def full(tree: Tree, **kwargs) -> Walker:
    return Walker([WalkStart(tree.path())], quick=False, stored_mtimes={}, stored_children={}, **kwargs)


def stored(visits: list[DirVisit]) -> tuple[dict[str, int], dict[str, list[str]]]:
    children: dict[str, list[str]] = {}
    for visit in visits:
        if visit.parent is not None:
            children.setdefault(visit.parent, []).append(visit.path)
    return {v.path: v.mtime_ns for v in visits}, children


def test_full_walk_lists_directories_parents_first_with_relevant_files(tree: Tree) -> None:
    tree.add("B/b.mkv")
    tree.add("A/Sub/x.nfo")
    tree.add("A/a.mkv")
    tree.add("A/notes.txt")
    tree.add("A/.hidden.mkv")
    tree.add(".trash/t.mkv")
    visits, errors, _ = run(full(tree))
    assert [v.path for v in visits] == [tree.path(), tree.path("A"), tree.path("A/Sub"), tree.path("B")]
    assert [f.name for f in visits[1].listing.files] == ["a.mkv"]
    assert (visits[1].listing.rel_dir, visits[2].listing.rel_dir) == ("A", "A/Sub")
    assert visits[2].parent == tree.path("A") and visits[0].parent is None
    assert visits[1].listing.files[0].size == 64
    assert errors == []


def test_quick_walk_does_not_list_unchanged_directories(tree: Tree) -> None:
    tree.add("A/a.mkv")
    tree.add("A/Deep/d.mkv")
    tree.add("B/b.mkv")
    tree.age()
    mtimes, children = stored(run(full(tree))[0])
    tree.add("B/new.mkv")
    quick = Walker([WalkStart(tree.path())], quick=True, stored_mtimes=mtimes, stored_children=children)
    visits, _, _ = run(quick)
    listed = {v.path for v in visits if v.listing is not None}
    assert {v.path for v in visits} == set(mtimes)
    assert listed == {tree.path("B")}


def test_a_directory_changed_moments_ago_is_recorded_to_be_listed_again(tree: Tree) -> None:
    tree.add("A/a.mkv")
    visits, _, _ = run(full(tree))
    assert {v.mtime_ns for v in visits} == {RACY_MTIME}
    tree.age()
    visits, _, _ = run(full(tree))
    assert RACY_MTIME not in {v.mtime_ns for v in visits}


def test_forced_starts_and_expanded_folders_are_listed_whatever_their_mtime(tree: Tree) -> None:
    tree.add("Show/Season 1/e.mkv")
    tree.add("Other/o.mkv")
    tree.age()
    mtimes, children = stored(run(full(tree))[0])
    forced = Walker([WalkStart(tree.path(), "Other", forced=True)], quick=True, stored_mtimes=mtimes, stored_children=children)
    assert [(v.path, v.listing is not None) for v in run(forced)[0]] == [(tree.path("Other"), True)]
    expand = Walker(
        [WalkStart(tree.path(), "Show", forced=True)], quick=True, stored_mtimes=mtimes, stored_children=children,
        expand={tree.path("Show")},
    )  # fmt: skip
    assert [v.listing is not None for v in run(expand)[0]] == [True, True]


def test_a_symlink_loop_is_walked_once(tree: Tree) -> None:
    tree.add("A/a.mkv")
    os.symlink(tree.path(), tree.path("A/loop"))
    visits, errors, _ = run(full(tree))
    assert [v.path for v in visits] == [tree.path(), tree.path("A")]
    assert errors == []


def test_dangling_symlinks_are_errors(tree: Tree) -> None:
    tree.add("a.mkv")
    os.symlink(tree.path("nowhere"), tree.path("gone.mkv"))
    os.symlink(tree.path("nowhere"), tree.path("gone folder"))
    os.symlink(b"nowhere", os.path.join(os.fsencode(tree.path()), b"gone\xff.mkv"))
    visits, errors, _ = run(full(tree))
    assert [f.name for f in visits[0].listing.files] == ["a.mkv"]
    assert sorted((Path(e.path).name, e.error.split(":")[0]) for e in errors) == [
        ("gone folder", "Dangling symbolic link"),
        ("gone.mkv", "Dangling symbolic link"),
        ("gone\\xff.mkv", "Dangling symbolic link"),  # path text: valid Unicode, stored as it is
    ]


def _bad_names(tree: Tree) -> None:
    base = os.fsencode(tree.path())
    os.makedirs(os.path.join(base, b"Caf\xe9 (2001)"))
    for name in (b"Caf\xe9 (2001)/Caf\xe9 (2001).mkv", b"Caf\xe9 (2001)/x\\xe9.mkv", b"Ol\xe9.mkv"):
        with open(os.path.join(base, name), "wb") as handle:
            handle.write(b"\x00" * 64)


def test_names_that_are_not_utf8_are_listed_as_path_text(tree: Tree) -> None:
    _bad_names(tree)
    visits, errors, _ = run(full(tree))
    assert errors == []
    assert [v.path for v in visits] == [tree.path(), tree.path("Caf\\xe9 (2001)")]
    assert [f.name for f in visits[0].listing.files] == ["Ol\\xe9.mkv"]
    assert visits[1].listing.rel_dir == "Caf\\xe9 (2001)" and visits[1].parent == tree.path()
    # A backslash that reads like an escape is escaped itself: the mapping stays lossless.
    assert [f.name for f in visits[1].listing.files] == ["Caf\\xe9 (2001).mkv", "x\\x5cxe9.mkv"]
    cafe = os.path.join(visits[1].path, visits[1].listing.files[0].name)
    within = confinement_for([tree.path()], None)
    assert walk.read_file(cafe, 100, within) == b"\x00" * 64  # path text reads the file back


def test_a_quick_walk_finds_directories_that_are_not_utf8_unchanged(tree: Tree) -> None:
    _bad_names(tree)
    tree.age()
    mtimes, children = stored(run(full(tree))[0])
    again = Walker([WalkStart(tree.path())], quick=True, stored_mtimes=mtimes, stored_children=children)
    visits, errors, _ = run(again)
    assert [(v.path, v.listing) for v in visits] == [(tree.path(), None), (tree.path("Caf\\xe9 (2001)"), None)]
    assert errors == []
    listing, _ = walk.list_directory(tree.path(), "Caf\\xe9 (2001)", confinement_for([tree.path()], None))
    assert listing is not None and len(listing.files) == 2


def test_an_unreadable_directory_is_an_error_and_the_walk_goes_on(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    tree.add("A/a.mkv")
    tree.add("B/b.mkv")
    real = os.scandir
    locked = tree.path("A")

    def scandir(path):  # the suite may run as root, who reads everything
        if path == locked:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(walk.os, "scandir", scandir)
    visits, errors, unreadable = run(full(tree))
    assert [v.path for v in visits] == [tree.path(), tree.path("B")]
    assert errors == [WalkError(locked, "Permission denied (errno 13)")]
    assert unreadable == [locked]


def test_a_start_that_does_not_exist_is_simply_not_there(tree: Tree) -> None:
    walker = Walker([WalkStart(tree.path(), "gone", forced=True)], quick=True, stored_mtimes={}, stored_children={})
    assert run(walker) == ([], [], [])


def test_steps_report_directories_still_to_visit(tree: Tree) -> None:
    for name in "ABC":
        tree.add(f"{name}/x.mkv")
    walker = full(tree)
    first = walker.step(max_dirs=1, max_seconds=10)
    assert (len(first.visits), first.pending, first.done) == (1, 3, False)


# -- containment (issue 12, item 1) -------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the library root (tree.root is tmp_path/lib): outside it."""
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "shadow").write_text("root:$6$secret")
    (secret / "Film (2001).mkv").write_bytes(b"\x00" * 64)
    (secret / "Deep").mkdir()
    (secret / "Deep" / "Deep (2002).mkv").write_bytes(b"\x00" * 64)
    return secret


def listed_names(visits: list[DirVisit]) -> list[str]:
    return sorted(f"{v.listing.rel_dir}/{f.name}".lstrip("/") for v in visits if v.listing for f in v.listing.files)


def test_symlink_out_of_root_is_not_indexed(tree: Tree, outside: Path) -> None:
    """Files and directories whose real path leaves the root are neither listed nor walked."""
    tree.add("Leak (2013)/Leak (2013).mkv")
    os.symlink(outside / "shadow", tree.path("Leak (2013)/fanart.jpg"))
    os.symlink(outside / "Film (2001).mkv", tree.path("Film (2001).mkv"))
    os.symlink(outside, tree.path("Mounted"))
    os.symlink(outside / "Deep", tree.path("Leak (2013)/extras"))
    visits, errors, unreadable = run(full(tree))
    assert listed_names(visits) == ["Leak (2013)/Leak (2013).mkv"]
    assert [v.path for v in visits] == [tree.path(), tree.path("Leak (2013)")]
    assert sorted(Path(e.path).name for e in errors) == ["Film (2001).mkv", "Mounted", "extras", "fanart.jpg"]
    assert {e.error for e in errors} == {walk.OUTSIDE_ROOTS} and unreadable == []
    assert all(str(outside) not in e.error for e in errors)  # the target is not told


def test_symlink_inside_root_still_indexed(tree: Tree) -> None:
    tree.add("Shared/poster.jpg")
    tree.add("Shared/Real (2001).mkv")
    os.mkdir(tree.path("Movie (2001)"))
    os.symlink(tree.path("Shared/Real (2001).mkv"), tree.path("Movie (2001)/Movie (2001).mkv"))
    os.symlink("../Shared/poster.jpg", tree.path("Movie (2001)/poster.jpg"))  # relative, stays inside
    os.symlink(tree.path("Shared"), tree.path("Alias"))
    visits, errors, _ = run(full(tree))
    assert "Movie (2001)/Movie (2001).mkv" in listed_names(visits)
    assert "Movie (2001)/poster.jpg" in listed_names(visits)
    assert errors == []


def test_a_symlink_into_another_root_of_the_library_is_indexed(tree: Tree, outside: Path) -> None:
    os.symlink(outside / "Film (2001).mkv", tree.path("Film (2001).mkv"))
    within = confinement_for([tree.path(), str(outside)], None)
    walker = Walker([WalkStart(tree.path())], quick=False, stored_mtimes={}, stored_children={}, within=within)
    visits, errors, _ = run(walker)
    assert listed_names(visits) == ["Film (2001).mkv"] and errors == []


def test_a_root_that_is_a_symlink_is_walked_where_it_points(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "link-root").symlink_to(outside)
    walker = Walker([WalkStart(str(tmp_path / "link-root"))], quick=False, stored_mtimes={}, stored_children={})
    visits, errors, _ = run(walker)
    assert listed_names(visits) == ["Deep/Deep (2002).mkv", "Film (2001).mkv"] and errors == []


def test_a_symlink_swapped_in_after_a_quick_scan_is_not_followed(tree: Tree, outside: Path) -> None:
    """Quick mode walks stored subdirectories without listing their parent: each is checked again."""
    tree.add("Movie (2001)/Movie (2001).mkv")
    tree.age()
    mtimes, children = stored(run(full(tree))[0])
    os.rename(tree.path("Movie (2001)"), tree.root.parent / "moved")
    os.symlink(outside, tree.path("Movie (2001)"))
    os.utime(tree.path(), ns=(mtimes[tree.path()], mtimes[tree.path()]))  # the parent looks unchanged
    quick = Walker([WalkStart(tree.path())], quick=True, stored_mtimes=mtimes, stored_children=children)
    visits, errors, _ = run(quick)
    assert [v.path for v in visits] == [tree.path()]
    assert [e.error for e in errors] == [walk.OUTSIDE_ROOTS]


def test_symlink_loops_do_not_hang_the_walk(tree: Tree) -> None:
    tree.add("A/a.mkv")
    os.symlink(tree.path("loop-b.mkv"), tree.path("loop-a.mkv"))
    os.symlink(tree.path("loop-a.mkv"), tree.path("loop-b.mkv"))
    os.symlink(tree.path("B"), tree.path("A/B"))
    os.symlink(tree.path("A/B"), tree.path("B"))
    visits, errors, _ = run(full(tree))
    assert listed_names(visits) == ["A/a.mkv"]
    assert sorted(Path(e.path).name for e in errors) == ["B", "B", "loop-a.mkv", "loop-b.mkv"]


def test_a_fenced_directory_under_a_root_is_not_walked(tree: Tree) -> None:
    """The server's data directory kept inside a root (and /proc under a root of /) is skipped."""
    tree.add("Film (2001).mkv")
    tree.add("data/Planted (2020)/Planted (2020).mkv")
    within = confinement_for([tree.path()], tree.path("data"))
    walker = Walker([WalkStart(tree.path())], quick=False, stored_mtimes={}, stored_children={}, within=within)
    visits, errors, _ = run(walker)
    assert listed_names(visits) == ["Film (2001).mkv"] and errors == []
