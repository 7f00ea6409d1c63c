"""The tmdb plugin's modules in process: the HTTP client's errors and the search score, against the fake."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from reelhouse.media import provider_metadata
from reelhouse.storage.plugin_catalog import BUNDLED_DIR
from tests.fakes.tmdb_api import FakeTmdb, fake_tmdb

sys.path.insert(0, str(BUNDLED_DIR / "tmdb"))  # the plugin imports its modules as the server runs it

import tmdb_items
import tmdb_search
from tmdb_client import ProviderError, TmdbClient, retry_after_seconds

JWT_LIKE = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZWVsaG91c2UifQ.c2lnbmF0dXJl"


@pytest.fixture
def fake() -> Iterator[FakeTmdb]:
    with fake_tmdb() as running:
        yield running


def _client(fake: FakeTmdb, key: str | None = None, **kwargs: float) -> TmdbClient:
    return TmdbClient(fake.base_url, key or fake.api_key, on_rate_limited=lambda seconds: None, **kwargs)


def test_a_request_slower_than_the_read_timeout_is_a_timeout_error(fake: FakeTmdb) -> None:
    fake.delay = 1.0
    with pytest.raises(ProviderError) as failure:
        _client(fake, read_timeout=0.2).get("/movie/603")
    assert failure.value.code == "timeout" and fake.api_key not in failure.value.message


def test_a_5xx_or_a_closed_port_is_unreachable(fake: FakeTmdb) -> None:
    client = _client(fake)
    fake.fail_next(1, status=503)
    with pytest.raises(ProviderError) as failure:
        client.get("/movie/603")
    assert failure.value.code == "unreachable"
    fake.go_down()
    with pytest.raises(ProviderError) as failure:
        client.get("/movie/603")
    assert failure.value.code == "unreachable"


def test_a_connection_closed_without_an_answer_is_tried_once_more(fake: FakeTmdb) -> None:
    client = _client(fake)
    fake.hang_up_next(1)
    assert client.get("/movie/603")["id"] == 603
    assert fake.count("/3/movie/603") == 2
    fake.hang_up_next(2)
    with pytest.raises(ProviderError) as failure:
        client.get("/movie/603")
    assert failure.value.code == "unreachable"


def test_a_v4_read_token_is_sent_as_bearer_and_a_v3_key_as_api_key() -> None:
    with fake_tmdb(api_key=JWT_LIKE) as fake:
        assert _client(fake).get("/movie/603")["id"] == 603
        assert dict(fake.auth_styles) == {"bearer": 1}
    with fake_tmdb() as fake:
        assert _client(fake).get("/movie/603")["id"] == 603
        assert dict(fake.auth_styles) == {"api_key": 1}


def test_retry_after_reads_seconds_or_a_date_and_defaults_when_absent() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after_seconds("12") == 12
    assert retry_after_seconds(format_datetime(now + timedelta(seconds=30), usegmt=True), now.timestamp()) == 30
    assert retry_after_seconds(None) == retry_after_seconds("soon") == 10


def test_the_rate_limit_callback_gets_the_seconds(fake: FakeTmdb) -> None:
    told: list[int] = []
    client = TmdbClient(fake.base_url, fake.api_key, on_rate_limited=told.append)
    fake.rate_limit_next(1, retry_after=5)
    with pytest.raises(ProviderError) as failure:
        client.get("/configuration")
    assert (failure.value.code, failure.value.retry_after, told) == ("rate_limited", 5, [5])


@pytest.mark.parametrize(("query", "title", "expected"), [
    ("Amelie", "Amélie", 1.0), ("Fast & Furious", "Fast and Furious", 1.0), ("The Matrix!", "the matrix", 1.0)])
def test_titles_compare_without_case_accents_or_punctuation(query: str, title: str, expected: float) -> None:
    assert tmdb_search.similarity(query, title) == expected


def test_a_unique_exact_title_without_a_year_is_confident_and_a_sequel_is_not() -> None:
    rows = [{"id": 1, "title": "Heat", "release_date": "1995-12-15", "popularity": 40.0},
            {"id": 2, "title": "Heat Wave", "release_date": "2009-01-01", "popularity": 80.0}]
    heat, wave = tmdb_search.scores("Heat", None, rows, "movie")
    assert heat >= 0.85 and heat - wave >= 0.1


NULLS = {"title": None, "original_title": None, "overview": None, "tagline": None, "release_date": "",
         "runtime": 0, "vote_average": 0, "vote_count": 0, "genres": None, "production_companies": None,
         "credits": {"cast": [{"name": None}, {"id": 1, "name": "A", "character": None, "order": None}],
                     "crew": [{"name": "B", "job": None}]},
         "images": {"posters": [{"file_path": None}, {"file_path": "/p.jpg", "iso_639_1": None}]},
         "release_dates": {"results": [{"iso_3166_1": "US", "release_dates": [{"certification": ""}]}]},
         "external_ids": None, "imdb_id": None}


@pytest.mark.parametrize("body", [{"id": 5}, {"id": 5, **NULLS}], ids=["bare", "nulls"])
def test_a_sparse_or_null_filled_record_still_parses(body: dict[str, object]) -> None:
    item = provider_metadata.parse_item({"item": tmdb_items.movie_item(dict(body), "http://img/t/p/", "en")})
    assert item.provider_item_id == "5" and dict(item.provider_ids) == {"tmdb": "5"}
    assert item.community_rating is None and item.official_rating is None and item.name is None
    if "credits" in body:
        assert [(p.name, p.kind, p.order) for p in item.people] == [("A", "Actor", 1)]
        assert [image.url for image in item.images] == ["http://img/t/p/original/p.jpg"]


def test_a_season_without_episodes_parses() -> None:
    season = tmdb_items.season_item({"id": 77, "season_number": 0, "air_date": None}, "http://img/t/p/")
    parsed, episodes = provider_metadata.parse_season({"item": season, "episodes": []})
    assert (parsed.provider_item_id, parsed.index_number, episodes) == ("77", 0, [])
