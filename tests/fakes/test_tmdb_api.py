"""The fake TMDB itself: what other tests and the scrape benchmark rely on."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image

from .tmdb_api import FakeTmdb, fake_tmdb
from .tmdb_catalogue import fixture_catalogue, synthetic_movies, synthetic_title, with_movies


@pytest.fixture
def fake() -> Iterator[FakeTmdb]:
    with fake_tmdb() as running:
        yield running


def _get(fake: FakeTmdb, path: str, **params: str) -> httpx.Response:
    return httpx.get(fake.base_url + path, params={"api_key": fake.api_key, **params}, timeout=10)


def test_a_missing_or_wrong_key_is_401_and_api_key_or_bearer_is_accepted(fake: FakeTmdb) -> None:
    assert httpx.get(fake.base_url + "/movie/603").status_code == 401
    wrong = httpx.get(fake.base_url + "/movie/603", params={"api_key": "nope"})
    assert (wrong.status_code, wrong.json()["status_code"]) == (401, 7)
    assert _get(fake, "/movie/603").json()["title"] == "The Matrix"
    bearer = httpx.get(fake.base_url + "/movie/603", headers={"Authorization": f"Bearer {fake.api_key}"})
    assert bearer.status_code == 200


def test_rate_limit_next_answers_429_with_retry_after_then_serves_again(fake: FakeTmdb) -> None:
    fake.rate_limit_next(2, retry_after=9)
    for _ in range(2):
        limited = _get(fake, "/movie/603")
        assert (limited.status_code, limited.headers["Retry-After"]) == (429, "9")
    assert _get(fake, "/movie/603").status_code == 200


def test_going_down_refuses_connections_and_coming_up_serves_on_the_same_port(fake: FakeTmdb) -> None:
    port = fake.port
    fake.go_down()
    with pytest.raises(httpx.ConnectError):
        _get(fake, "/configuration")
    fake.come_up()
    assert fake.port == port and _get(fake, "/configuration").status_code == 200


def test_counts_and_the_concurrency_reached_follow_the_requests(fake: FakeTmdb) -> None:
    fake.hold()
    threads = [threading.Thread(target=_get, args=(fake, "/movie/949")) for _ in range(3)]
    for thread in threads:
        thread.start()
    for _ in range(600):  # at most a minute for three threads to connect
        if fake.in_flight == 3:
            break
        time.sleep(0.1)
    fake.release()
    for thread in threads:
        thread.join()
    assert fake.count("/3/movie/949") == 3 and fake.count() == 3
    assert fake.max_api_concurrency == fake.max_concurrency == 3
    fake.reset_stats()
    assert fake.count() == 0 and fake.max_api_concurrency == 0


def test_busy_time_adds_up_the_time_requests_are_in_flight(fake: FakeTmdb) -> None:
    fake.delay = 0.3
    for _ in range(2):
        _get(fake, "/configuration")
    assert fake.api_busy_seconds >= 0.6


def test_an_untranslated_field_is_empty_and_an_untranslated_title_is_the_original(fake: FakeTmdb) -> None:
    matrix = _get(fake, "/movie/603", language="zh-CN").json()
    assert (matrix["title"], matrix["tagline"]) == ("黑客帝国", "")
    solaris = _get(fake, "/movie/2103", language="zh-CN").json()
    assert (solaris["title"], solaris["overview"]) == ("Solaris", "")
    season = _get(fake, "/tv/1396/season/1", language="zh-CN").json()
    assert [e["name"] for e in season["episodes"]] == ["试播集", "", "袋子在河里"]


def test_images_are_listed_by_the_languages_asked(fake: FakeTmdb) -> None:
    only_en = _get(fake, "/movie/603", append_to_response="images").json()["images"]["posters"]
    assert [p["file_path"] for p in only_en] == ["/matrix-poster-en.jpg"]
    mixed = _get(fake, "/movie/603", append_to_response="images", include_image_language="zh,null").json()
    assert [p["file_path"] for p in mixed["images"]["posters"]] == ["/matrix-poster-zh.jpg", "/matrix-poster-plain.jpg"]


def test_images_are_real_pictures_at_the_size_asked(fake: FakeTmdb) -> None:
    original = httpx.get(fake.image_base + "original/matrix-poster-en.jpg")
    small = httpx.get(fake.image_base + "w92/matrix-poster-en.jpg")
    logo = httpx.get(fake.image_base + "original/matrix-logo.png")
    assert Image.open(io.BytesIO(original.content)).size == (300, 450)
    assert Image.open(io.BytesIO(small.content)).size == (92, 138)
    assert Image.open(io.BytesIO(logo.content)).format == "PNG"
    assert httpx.get(fake.image_base + "original/nothing.jpg").status_code == 404


def test_synthetic_movies_are_found_by_their_title_and_year() -> None:
    with fake_tmdb(with_movies(fixture_catalogue(), synthetic_movies(300))) as fake:
        title, year = synthetic_title(123)
        found = _get(fake, "/search/movie", query=title, year=str(year)).json()["results"]
        assert [(row["title"], row["release_date"][:4]) for row in found] == [(title, str(year))]
