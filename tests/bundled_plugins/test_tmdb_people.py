"""The tmdb plugin's ``metadata.person`` and ``metadata.collection``, in process against the fake,
parsed by the server's own parsers (``media/provider_people.py``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import date

import pytest

from reelhouse.media.provider_metadata import ProviderAnswerError
from reelhouse.media.provider_people import parse_collection, parse_person
from reelhouse.storage.plugin_catalog import BUNDLED_DIR
from tests.fakes.tmdb_api import FakeTmdb, fake_tmdb
from tests.fakes.tmdb_catalogue import Collection, fixture_catalogue, with_collection

sys.path.insert(0, str(BUNDLED_DIR / "tmdb"))  # the plugin imports its modules as the server runs it

import tmdb_items
import tmdb_people
from tmdb_client import ProviderError, TmdbClient

COLLECTION = Collection(2344, {"en": {"name": "The Matrix Collection", "overview": "The Matrix films."}},
                        poster_path="/matrix-collection.jpg")


@pytest.fixture
def fake() -> Iterator[FakeTmdb]:
    with fake_tmdb(with_collection(fixture_catalogue(), COLLECTION, [603])) as running:
        yield running


def _client(fake: FakeTmdb) -> TmdbClient:
    return TmdbClient(fake.base_url, fake.api_key, on_rate_limited=lambda seconds: None)


def test_a_person_has_a_biography_dates_a_birthplace_and_a_picture(fake: FakeTmdb) -> None:
    person = parse_person(tmdb_people.person(_client(fake), {"providerItemId": "6384", "language": "en"}))
    assert person.name == "Keanu Reeves" and person.overview == "Keanu Charles Reeves is a Canadian actor."
    assert person.birth_date == date(1964, 9, 2) and person.birth_place == "Beirut, Lebanon"
    assert person.image_url is not None and person.image_url.endswith("/original/keanu-reeves.jpg")
    assert dict(person.provider_ids) == {"tmdb": "6384"} and not person.empty


def test_an_untranslated_biography_falls_back_to_english(fake: FakeTmdb) -> None:
    person = parse_person(tmdb_people.person(_client(fake), {"providerItemId": "6384", "language": "zh-CN"}))
    assert person.overview == "Keanu Charles Reeves is a Canadian actor."
    assert fake.count("/3/person/6384") == 2


def test_a_person_the_provider_knows_nothing_of_is_empty_and_an_unknown_id_not_found(fake: FakeTmdb) -> None:
    bare = parse_person(tmdb_people.person(_client(fake), {"providerItemId": "1091", "language": "en"}))
    assert bare.empty and bare.name == "Joel Silver"
    with pytest.raises(ProviderError):
        tmdb_people.person(_client(fake), {"providerItemId": "999999999", "language": "en"})
    with pytest.raises(ValueError):
        tmdb_people.person(_client(fake), {"providerItemId": "../configuration"})


def test_a_movie_names_its_collection_and_the_collection_has_a_poster(fake: FakeTmdb) -> None:
    client = _client(fake)
    movie = tmdb_items.details(client, {"kind": "movie", "providerItemId": "603", "language": "en"})
    assert movie["item"]["collection"] == {"providerItemId": "2344", "name": "The Matrix Collection"}
    alone = tmdb_items.details(client, {"kind": "movie", "providerItemId": "949", "language": "en"})
    assert "collection" not in alone["item"]
    collection = parse_collection(tmdb_people.collection(client, {"providerItemId": "2344", "language": "en"}))
    assert collection.name == "The Matrix Collection" and collection.overview == "The Matrix films."
    assert [image.kind for image in collection.images] == ["primary"]


def test_a_person_answer_off_the_contract_is_refused() -> None:
    with pytest.raises(ProviderAnswerError):
        parse_person({"person": {"birthDate": "yesterday"}})
    with pytest.raises(ProviderAnswerError):
        parse_person({"person": {"imageUrl": "file:///etc/passwd"}})
    with pytest.raises(ProviderAnswerError):
        parse_person({"nobody": {}})
