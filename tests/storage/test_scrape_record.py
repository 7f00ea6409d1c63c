"""The scrape record a scan's NFO rewrite keeps (SQLite's Python side of reelhouse_keep_scrape_record)."""

from __future__ import annotations

import orjson
import trio

from reelhouse.storage._scrape_record import keep_scrape_record

LIMIT_S = 20


def test_the_record_of_the_stored_extra_is_kept_and_the_rest_is_the_nfos() -> None:
    old = '{"provider": "tmdb", "providerItemId": "603", "scrapedAt": 5, "ratings": [1]}'
    new = '{"ratings": [2], "trailers": ["x"]}'
    merged = orjson.loads(keep_scrape_record(new, old))
    assert merged == {"provider": "tmdb", "providerItemId": "603", "scrapedAt": 5, "ratings": [2], "trailers": ["x"]}


def test_what_the_new_extra_carries_wins_and_absent_or_broken_text_is_empty() -> None:
    assert orjson.loads(keep_scrape_record('{"provider": "nfo"}', '{"provider": "tmdb"}')) == {"provider": "nfo"}
    assert orjson.loads(keep_scrape_record(None, "not json")) == {}
    assert orjson.loads(keep_scrape_record("[]", '{"scrapeError": "x"}')) == {"scrapeError": "x"}


async def test_both_backends_keep_the_whole_record_including_a_users_identification(store) -> None:
    """Regression: the record kept on a scan's NFO rewrite lacked `identified`, so an identified
    item re-read from its NFO came back from the queue `scraped`."""
    old = '{"provider": "tmdb", "providerItemId": "950", "scrapedAt": 5, "identified": true, "ratings": [1]}'
    with trio.fail_after(LIMIT_S):
        merged = await store.fetch_value("SELECT reelhouse_keep_scrape_record(?, ?)", ('{"ratings": [2]}', old))
    assert orjson.loads(merged) == {"provider": "tmdb", "providerItemId": "950", "scrapedAt": 5, "identified": True,
                                    "ratings": [2]}
