"""The scrape record a scan's NFO rewrite keeps (SQLite's Python side of reelhouse_keep_scrape_record)."""

from __future__ import annotations

import orjson

from reelhouse.storage._scrape_record import keep_scrape_record


def test_the_record_of_the_stored_extra_is_kept_and_the_rest_is_the_nfos() -> None:
    old = '{"provider": "tmdb", "providerItemId": "603", "scrapedAt": 5, "ratings": [1]}'
    new = '{"ratings": [2], "trailers": ["x"]}'
    merged = orjson.loads(keep_scrape_record(new, old))
    assert merged == {"provider": "tmdb", "providerItemId": "603", "scrapedAt": 5, "ratings": [2], "trailers": ["x"]}


def test_what_the_new_extra_carries_wins_and_absent_or_broken_text_is_empty() -> None:
    assert orjson.loads(keep_scrape_record('{"provider": "nfo"}', '{"provider": "tmdb"}')) == {"provider": "nfo"}
    assert orjson.loads(keep_scrape_record(None, "not json")) == {}
    assert orjson.loads(keep_scrape_record("[]", '{"scrapeError": "x"}')) == {"scrapeError": "x"}
