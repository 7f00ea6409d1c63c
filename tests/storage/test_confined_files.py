"""Opening library files only inside their roots: checked on the opened file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reelhouse.storage import confined_files
from reelhouse.storage.confined_files import (
    OutsideRoots,
    confinement_for,
    create_confined,
    fenced_forms,
    open_confined,
    read_confined,
    root_refusal,
)


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "Movie (2001)").mkdir(parents=True)
    (root / "Movie (2001)" / "poster.jpg").write_bytes(b"\xff\xd8\xff poster")
    (tmp_path / "secret").write_text("root:$6$secret")
    return root


def test_a_file_inside_and_a_link_that_stays_inside_are_read(library: Path) -> None:
    within = confinement_for([str(library)], None)
    (library / "alias.jpg").symlink_to("Movie (2001)/poster.jpg")
    assert read_confined(library / "Movie (2001)" / "poster.jpg", within) == b"\xff\xd8\xff poster"
    assert read_confined(library / "alias.jpg", within, max_bytes=3) == b"\xff\xd8\xff "  # max_bytes + 1


def test_a_link_leading_out_is_refused_whatever_its_name(library: Path, tmp_path: Path) -> None:
    within = confinement_for([str(library)], None)
    (library / "Movie (2001)" / "fanart.jpg").symlink_to(tmp_path / "secret")
    (library / "Movie (2001)" / "up").symlink_to(tmp_path)
    for path in (library / "Movie (2001)" / "fanart.jpg", library / "Movie (2001)" / "up" / "secret"):
        with pytest.raises(OutsideRoots):
            read_confined(path, within)


def test_a_link_into_another_root_of_the_library_is_read(library: Path, tmp_path: Path) -> None:
    (library / "shared.jpg").symlink_to(tmp_path / "secret")
    assert read_confined(library / "shared.jpg", confinement_for([str(library), str(tmp_path / "secret")], None))


def test_the_data_directory_is_fenced_even_inside_a_root(library: Path) -> None:
    (library / "data").mkdir()
    (library / "data" / "reelhouse.db").write_bytes(b"SQLite format 3")
    with pytest.raises(OutsideRoots):
        read_confined(library / "data" / "reelhouse.db", confinement_for([str(library)], library / "data"))


def test_the_opened_file_is_checked_not_the_name(library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link swapped between a check of the name and the open is still caught."""
    within = confinement_for([str(library)], None)
    poster = library / "Movie (2001)" / "poster.jpg"
    real_open = os.open

    def swapping_open(path: object, flags: int, *args: object) -> int:
        poster.unlink()
        poster.symlink_to(tmp_path / "secret")  # swapped just before the open
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(confined_files.os, "open", swapping_open)
    with pytest.raises(OutsideRoots):
        open_confined(poster, within)


def test_without_proc_the_name_is_resolved_and_compared_with_the_opened_file(
    library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confined_files, "PROC_FDS", str(tmp_path / "no-proc"))
    within = confinement_for([str(library)], None)
    (library / "leak.jpg").symlink_to(tmp_path / "secret")
    assert read_confined(library / "Movie (2001)" / "poster.jpg", within).startswith(b"\xff\xd8")
    with pytest.raises(OutsideRoots):
        read_confined(library / "leak.jpg", within)


def test_only_regular_files_are_opened(library: Path) -> None:
    """A FIFO named poster.jpg would block the reading thread for good."""
    fifo = library / "Movie (2001)" / "folder.jpg"
    os.mkfifo(fifo)
    with pytest.raises(FileNotFoundError):
        open_confined(fifo, confinement_for([str(library)], None))
    with pytest.raises(FileNotFoundError):
        open_confined(library, confinement_for([str(library)], None))


def test_a_root_is_refused_by_what_it_is_and_what_it_resolves_to(tmp_path: Path) -> None:
    (tmp_path / "to-proc").symlink_to("/proc")
    (tmp_path / "data").mkdir()
    (tmp_path / "to-data").symlink_to(tmp_path / "data")
    assert root_refusal(str(tmp_path / "to-proc"), None) == "system_directory"
    assert root_refusal("/proc/self/root", None) == "system_directory"  # resolves to /, given under /proc
    assert root_refusal(str(tmp_path / "to-data" / "x"), tmp_path / "data") == "data_directory"
    assert root_refusal(str(tmp_path), tmp_path / "data") is None


def test_the_data_directory_is_named_as_a_watcher_of_each_root_sees_it(tmp_path: Path) -> None:
    """The realtime monitor names changes by the root's path: the data directory's forms under it."""
    real_root = tmp_path / "media"
    (real_root / "data").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(real_root)
    forms = fenced_forms([str(tmp_path / "alias"), str(tmp_path / "other")], real_root / "data")
    assert set(forms) == {str(real_root / "data"), str(tmp_path / "alias" / "data")}
    assert fenced_forms([str(real_root)], None) == ()


# -- creating (writeBack) ----------------------------------------------------------------


def test_create_confined_writes_a_new_file_and_leaves_no_temporary(library: Path) -> None:
    folder = library / "Movie (2001)"
    create_confined(folder, "movie.nfo", b"<movie/>", confinement_for([str(library)], None))
    assert (folder / "movie.nfo").read_bytes() == b"<movie/>"
    assert sorted(p.name for p in folder.iterdir()) == ["movie.nfo", "poster.jpg"]


def test_create_confined_never_replaces_a_file_nor_follows_a_dangling_link(library: Path, tmp_path: Path) -> None:
    folder, within = library / "Movie (2001)", confinement_for([str(library)], None)
    (folder / "fanart.jpg").symlink_to(tmp_path / "not-yet")
    with pytest.raises(FileExistsError):
        create_confined(folder, "poster.jpg", b"new", within)
    with pytest.raises(FileExistsError):
        create_confined(folder, "fanart.jpg", b"new", within)
    assert (folder / "poster.jpg").read_bytes() == b"\xff\xd8\xff poster" and not (tmp_path / "not-yet").exists()


def test_create_confined_refuses_a_folder_leading_out_and_a_path_as_name(library: Path, tmp_path: Path) -> None:
    within = confinement_for([str(library)], None)
    (library / "out").symlink_to(tmp_path)
    with pytest.raises(OutsideRoots):
        create_confined(library / "out", "movie.nfo", b"x", within)
    with pytest.raises(OutsideRoots):
        create_confined(library, "../movie.nfo", b"x", within)
    assert not (tmp_path / "movie.nfo").exists()
