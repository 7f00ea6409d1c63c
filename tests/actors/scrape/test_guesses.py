"""Which queued works are guesses left to the identify step (no store, no provider)."""

from __future__ import annotations

import pytest

from reelhouse.actors.scrape.guesses import is_guess
from reelhouse.media.library_options import LibraryOptions
from reelhouse.storage.libraries import LibraryRecord
from reelhouse.storage.scrape_queue import PendingItem

ROOTS = ("/media/films", "/media/more")


def _record(kind: str) -> LibraryRecord:
    return LibraryRecord("lib", "Lib", kind, ROOTS, LibraryOptions(), (), 0, 0)


def _item(kind: str, path: str | None) -> PendingItem:
    return PendingItem("id", kind, "name", None, path, False, {})


@pytest.mark.parametrize(("library", "kind", "path", "guess"), [
    ("movies", "Movie", "/media/films/a8f3e9c1d2b4.mkv", True),
    ("movies", "Movie", "/media/more/161219_06.mkv", True),
    ("movies", "Movie", "/media/films/Copper Sky (2011)/Copper Sky (2011).mkv", False),
    ("movies", "Movie", "/media/films/Copper.Sky.1080p-GRP/a8f3e9c1d2b4.mkv", False),
    ("mixed", "Movie", "/media/films/Copper Sky.mkv", False),
    ("tvshows", "Series", "/media/films", True),  # episodes in season folders at the root
    ("tvshows", "Series", "/media/films/Glass Orchard", False),
    ("tvshows", "Series", "/media/films/x7k2m9q4z8", True),
    ("tvshows", "Series", None, False),  # named by its episodes' file names
    ("movies", "Movie", "/elsewhere/a8f3e9c1d2b4.mkv", False),  # not under a root: not ours to judge
])
def test_a_work_is_a_guess_when_its_name_is_unsure(library: str, kind: str, path: str | None, guess: bool) -> None:
    assert is_guess(_record(library), _item(kind, path)) is guess


def test_a_work_with_a_provider_id_is_never_a_guess() -> None:
    item = PendingItem("id", "Movie", "x", None, "/media/films/a8f3e9c1d2b4.mkv", False, {"tmdb": "603"})
    assert is_guess(_record("movies"), item) is False
