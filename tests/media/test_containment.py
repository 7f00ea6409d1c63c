"""The containment rule: inside a root, outside every fence; which roots are refused."""

from __future__ import annotations

import pickle

import pytest

from reelhouse.media.containment import SYSTEM_DIRS, Confinement, fences, is_under, refused_root, roots_overlap


def test_a_path_is_under_a_directory_only_below_a_whole_name() -> None:
    assert is_under("/media/films", "/media/films") and is_under("/media/films/a.mkv", "/media/films")
    assert not is_under("/media/films2/a.mkv", "/media/films")
    assert is_under("/anything", "/")


def test_a_confinement_allows_its_roots_and_nothing_fenced_or_beside() -> None:
    within = Confinement(("/media/films", "/srv/more"), fences("/media/films/.data"))
    assert within.allows("/media/films/Heat (1995)/poster.jpg") and within.allows("/srv/more/x.mkv")
    assert not within.allows("/etc/shadow") and not within.allows("/media/films-private/x.jpg")
    assert not within.allows("/media/films/.data/reelhouse.db")
    assert not Confinement(("/",)).allows("/proc/1/root/etc/shadow")
    assert pickle.loads(pickle.dumps(within)) == within  # travels to the parser's child process


@pytest.mark.parametrize(
    ("forms", "reason"),
    [
        (("/proc",), "system_directory"),
        (("/sys/kernel",), "system_directory"),
        (("/dev/shm",), "system_directory"),
        (("/",), "system_directory"),  # holds them all
        (("/home/x/innocent", "/proc"), "system_directory"),  # a link to /proc: its real path
        (("/var/lib/reelhouse",), "data_directory"),
        (("/var/lib/reelhouse/cache",), "data_directory"),
        (("/var/lib",), None),  # holds the data directory: accepted, the data directory fenced
        (("/media/films",), None),
        (("/procedures",), None),
    ],
)
def test_roots_that_are_under_or_hold_system_directories_or_are_in_the_data_dir_are_refused(
    forms: tuple[str, ...], reason: str | None
) -> None:
    assert refused_root(forms, fences("/var/lib/reelhouse")) == reason


def test_system_directories_are_always_fenced() -> None:
    assert set(SYSTEM_DIRS) <= set(fences()) and fences("/d", "/d") == (*SYSTEM_DIRS, "/d")


def test_roots_overlap_when_one_holds_the_other() -> None:
    assert roots_overlap("/m", "/m/a") and roots_overlap("/m/a", "/m") and roots_overlap("/m", "/m")
    assert not roots_overlap("/m/a", "/m/b") and not roots_overlap("/m", "/mm")
