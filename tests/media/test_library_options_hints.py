"""Update hints: rule 15 and the Library hint fields."""

from __future__ import annotations

from typing import Any

import pytest

from reelhouse.media.library_options import (
    LibraryOptions,
    UpdateHints,
    compute_hints,
    is_scraping,
)

from .library_options_cases import update

# --- hints (rule 15 and the Library hint fields) ---------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, UpdateHints()),
        ({"excludeKeywords": ["sample"]}, UpdateHints(rescan_suggested=True)),
        ({"excludeExtensions": ["iso"]}, UpdateHints(rescan_suggested=True)),
        ({"excludeSmallerThanBytes": 1}, UpdateHints(rescan_suggested=True)),
        (
            {"externalAudio": False},
            UpdateHints(rescan_suggested=True, rescan_rewrite=True),
        ),
        ({"externalAudio": True}, UpdateHints()),
        ({"writeBack": True}, UpdateHints(nfo_sync_suggested=True)),
        ({"remoteAllowedHosts": ["a.example"]}, UpdateHints(remote_reads_suggested=True)),
        ({"metadataProviders": ["tmdb"]}, UpdateHints(scrape_requeue_suggested=True)),
        ({"useNfo": False, "storage": "cloud"}, UpdateHints()),
    ],
)
def test_update_hints(body: dict[str, Any], expected: UpdateHints) -> None:
    assert update(body).hints == expected


def test_same_entries_in_another_order_are_not_a_change() -> None:
    current = LibraryOptions(
        exclude_keywords=("a", "b"), remote_allowed_hosts=("x.example", "y.example")
    )
    body = {"excludeKeywords": ["b", "a"], "remoteAllowedHosts": ["y.example", "x.example"]}
    assert update(body, current).hints == UpdateHints()


def test_write_back_turning_off_suggests_nothing() -> None:
    assert update({"writeBack": False}, LibraryOptions(write_back=True)).hints == UpdateHints()


@pytest.mark.parametrize(
    ("before", "after", "suggested"),
    [
        (LibraryOptions(auto_scrape=False, metadata_providers=("tmdb",)),
         {"autoScrape": True}, True),
        (LibraryOptions(metadata_providers=("tmdb",)), {"autoScrape": True}, False),
        (LibraryOptions(auto_scrape=False), {"metadataProviders": ["tmdb"]}, False),
        (LibraryOptions(metadata_providers=("tmdb",)), {"metadataProviders": []}, False),
    ],
)
def test_scrape_requeue_only_when_scraping_starts(
    before: LibraryOptions, after: dict[str, Any], suggested: bool
) -> None:
    assert update(after, before).hints.scrape_requeue_suggested is suggested


def test_scraping_needs_auto_scrape_and_a_provider() -> None:
    assert is_scraping(LibraryOptions(metadata_providers=("tmdb",)))
    assert not is_scraping(LibraryOptions())
    assert not is_scraping(LibraryOptions(auto_scrape=False, metadata_providers=("tmdb",)))


def test_hints_json_uses_the_reference_names() -> None:
    hints = compute_hints(LibraryOptions(), LibraryOptions(external_audio=False))
    assert hints.to_json() == {
        "rescanSuggested": True,
        "rescanRewrite": True,
        "nfoSyncSuggested": False,
        "remoteReadsSuggested": False,
        "scrapeRequeueSuggested": False,
    }


def test_turning_allow_deletion_on_asks_for_a_write_check() -> None:
    assert update({"allowDeletion": True}).check_roots_writable is True
    on = LibraryOptions(allow_deletion=True)
    assert update({"allowDeletion": True}, on).check_roots_writable is False
    assert update({"allowDeletion": False}, on).check_roots_writable is False
