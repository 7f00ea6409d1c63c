"""apply_match on both backends: the fill and replace rules, people, series, provider images."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reelhouse.actors.scrape.apply import SeriesMatch
from reelhouse.errors import NotFound
from reelhouse.media.local_images import image_tag
from reelhouse.media.provider_metadata import ProviderImage, ProviderItem, ProviderPerson, ProviderRating
from reelhouse.storage.item_detail import item_detail

from .conftest import BACKDROP, POSTER, World, movie_answer


async def _movie(world: World, name: str = "arrival 2016", **columns: object) -> tuple[str, str]:
    library = world.cat.library("Films", "movies")
    movie = world.cat.movie(library, name, **columns)
    await world.cat.flush()
    return library, movie


# -- fields ----------------------------------------------------------------------------


async def test_missing_fills_empty_fields_and_keeps_the_ones_set(world: World) -> None:
    _lib, movie = await _movie(world, overview="My own words.", production_year=2015)
    result = await world.apply(movie, movie_answer())
    row = await world.row(movie)
    assert (row["name"], row["sort_name"]) == ("Arrival", "Arrival")  # the file-name guess gave way
    assert (row["overview"], row["production_year"]) == ("My own words.", 2015)
    assert (row["tagline"], row["community_rating"], row["scrape_state"]) == ("Why are they here?", 7.6, "scraped")
    assert result.applied and result.items_changed == (movie,)
    assert {"name", "tagline", "genres"} <= set(result.fields_changed) and "overview" not in result.fields_changed
    detail = await item_detail(world.store, movie)
    assert detail["genres"] == ["Drama", "Science Fiction"] and detail["studios"] == ["FilmNation"]
    assert detail["providerIds"] == {"imdb": "tt2543164", "tmdb": "329865"}
    state = detail["metadataState"]
    assert (state["provider"], state["providerItemId"]) == ("tmdb", "329865") and state["scrapedAt"]


async def test_missing_keeps_a_name_an_earlier_match_gave(world: World) -> None:
    _lib, movie = await _movie(world)
    await world.apply(movie, movie_answer())
    await world.apply(movie, movie_answer(name="Arrival (Director's Cut)"))
    assert (await world.row(movie))["name"] == "Arrival"


async def test_replace_all_overwrites_but_never_a_locked_field(world: World) -> None:
    _lib, movie = await _movie(world, overview="Mine.", tagline="My tagline", locked_fields=["Overview", "genres"])
    world.cat.values(movie, "genre", "Home Video")
    await world.cat.flush()
    await world.apply(movie, movie_answer(), mode="replaceAll")
    row = await world.row(movie)
    assert (row["overview"], row["tagline"], row["name"]) == ("Mine.", "Why are they here?", "Arrival")
    assert (await item_detail(world.store, movie))["genres"] == ["Home Video"]


async def test_an_item_with_lock_data_is_not_touched(world: World) -> None:
    _lib, movie = await _movie(world, lock_data=True)
    before = await world.row(movie)
    result = await world.apply(movie, movie_answer(world.files), mode="replaceAll")
    assert not result.applied and await world.row(movie) == before
    assert await world.images(movie) == {} and world.files.hits["/poster.jpg"] == 0


async def test_an_item_with_an_nfo_keeps_its_nfo_values_even_with_replace_all(world: World) -> None:
    _lib, movie = await _movie(world, "NFO Title", has_nfo=True, overview="NFO plot.", production_year=2001)
    world.cat.values(movie, "genre", "Western")
    await world.cat.flush()
    result = await world.apply(movie, movie_answer(), mode="replaceAll")
    row = await world.row(movie)
    assert (row["name"], row["overview"], row["production_year"]) == ("NFO Title", "NFO plot.", 2001)
    assert row["tagline"] == "Why are they here?"  # empty in the NFO: filled
    assert (await item_detail(world.store, movie))["genres"] == ["Western"]
    assert "name" not in result.fields_changed


async def test_an_unknown_item_is_not_found(world: World) -> None:
    with pytest.raises(NotFound):
        await world.apply("nosuchitem", movie_answer())


async def test_ratings_merge_by_source_and_provider_ids_merge(world: World) -> None:
    extra = {"ratings": [{"source": "imdb", "value": 8.1, "max": 10}]}
    _lib, movie = await _movie(world, extra=extra, provider_ids={"imdb": "tt0000001"})
    answer = movie_answer(ratings=(ProviderRating("tmdb", 7.6, 120), ProviderRating("imdb", 7.9)), critic_rating=94.0)
    await world.apply(movie, answer)
    detail = await item_detail(world.store, movie)
    assert detail["ratings"] == [
        {"source": "imdb", "value": 8.1, "max": 10.0}, {"source": "tmdb", "value": 7.6, "max": 10.0, "votes": 120},
    ]  # fmt: skip
    assert detail["providerIds"] == {"imdb": "tt0000001", "tmdb": "329865"}
    assert (await world.row(movie))["critic_rating"] == 94.0


# -- people ----------------------------------------------------------------------------


async def test_people_appear_with_roles_and_order_deduplicated(world: World) -> None:
    _lib, movie = await _movie(world)
    people = (
        ProviderPerson("Amy Adams", "Actor", "Louise Banks", 0, {"tmdb": "9273"}),
        ProviderPerson("Jeremy Renner", "Actor", "Ian Donnelly", 1, {"tmdb": "17604"}),
        ProviderPerson("AMY ADAMS", "Actor", "Louise Banks", 5),  # the same person by name
        ProviderPerson("Amy Lou Adams", "Actor", "Louise Banks", 6, {"tmdb": "9273"}),  # the same by id
        ProviderPerson("Denis Villeneuve", "Director", "", 2),
    )
    await world.apply(movie, movie_answer(people=people))
    detail = await item_detail(world.store, movie)
    assert [(p["name"], p["kind"], p["role"], p["order"]) for p in detail["people"]] == [
        ("Amy Adams", "Actor", "Louise Banks", 0), ("Jeremy Renner", "Actor", "Ian Donnelly", 1),
        ("Denis Villeneuve", "Director", "", 2),
    ]  # fmt: skip
    ids = await world.store.fetch_value("SELECT provider_ids FROM people WHERE name = 'Amy Adams'")
    assert json.loads(ids) == {"tmdb": "9273"}


async def test_people_an_item_has_are_kept_in_missing_mode(world: World) -> None:
    _lib, movie = await _movie(world)
    person = world.cat.person("Local Actor")
    world.cat.credit(movie, person, role="Hero")
    await world.cat.flush()
    await world.apply(movie, movie_answer(people=(ProviderPerson("Amy Adams", "Actor", "Louise", 0),)))
    assert [p["name"] for p in (await item_detail(world.store, movie))["people"]] == ["Local Actor"]


# -- series ----------------------------------------------------------------------------


async def test_a_series_match_fills_its_seasons_and_episodes_by_number(world: World) -> None:
    library = world.cat.library("Shows", "tvshows")
    series = world.cat.series(library, "breaking bad")
    season1 = world.cat.season(series, 1)
    pilot = world.cat.episode(season1, 1)
    second = world.cat.episode(season1, 2, lock_data=True)
    unknown = world.cat.episode(season1, 9)
    await world.cat.flush()
    match = SeriesMatch(
        ProviderItem("1396", name="Breaking Bad", overview="A teacher turns.", seasons=(1,)),
        {1: (ProviderItem("s1", name="Season One", index_number=1),
             [ProviderItem("e1", name="Pilot", index_number=1, overview="It starts."),
              ProviderItem("e2", name="Cat's in the Bag...", index_number=2)])},
    )  # fmt: skip
    result = await world.apply(series, match)
    assert set(result.items_changed) == {series, season1, pilot}
    assert (await world.row(series))["name"] == "Breaking Bad"
    assert (await world.row(season1))["name"] == "Season One"
    pilot_row = await world.row(pilot)
    assert (pilot_row["name"], pilot_row["overview"], pilot_row["scrape_state"]) == ("Pilot", "It starts.", "scraped")
    assert (await world.row(second))["name"] == "Episode 2"  # lockData
    assert (await world.row(unknown))["name"] == "Episode 9"  # not in the answer
    detail = await item_detail(world.store, pilot)
    assert detail["metadataState"]["providerItemId"] == "e1" and detail["seriesName"] == "Breaking Bad"


# -- provider images --------------------------------------------------------------------


async def test_a_provider_image_is_fetched_into_the_image_store_with_tag_and_size(world: World) -> None:
    _lib, movie = await _movie(world)
    result = await world.apply(movie, movie_answer(world.files))
    image = (await world.images(movie))[("primary", 0)]
    assert result.images_added == 1 and result.images_failed == 0
    assert (image["tag"], image["width"], image["height"], image["size"]) == (image_tag(POSTER), 60, 90, len(POSTER))
    assert image["source"] == "provider"
    path = Path(image["path"])
    assert path.parent == world.data_dir / "metadata" / movie and path.read_bytes() == POSTER
    assert (await item_detail(world.store, movie))["images"]["primary"] == image_tag(POSTER)


async def test_a_redirect_is_followed_and_checked(world: World) -> None:
    _lib, movie = await _movie(world)
    await world.apply(movie, movie_answer(images=(ProviderImage("primary", world.files.url("/moved.jpg")),)))
    assert (await world.images(movie))[("primary", 0)]["tag"] == image_tag(POSTER)


async def test_a_url_answering_no_image_is_refused(world: World) -> None:
    _lib, movie = await _movie(world)
    result = await world.apply(movie, movie_answer(images=(ProviderImage("primary", world.files.url("/page.html")),)))
    assert (result.images_added, result.images_failed) == (0, 1)
    assert await world.images(movie) == {}
    assert (await world.row(movie))["name"] == "Arrival"  # the fields are applied anyway


async def test_a_loopback_url_is_refused_unless_its_host_is_the_providers(world: World) -> None:
    _lib, movie = await _movie(world)
    result = await world.apply(movie, movie_answer(world.files), provider_origins=frozenset())
    assert result.images_failed == 1 and world.files.hits["/poster.jpg"] == 0


async def test_an_image_larger_than_the_cap_is_refused(world: World) -> None:
    _lib, movie = await _movie(world)
    result = await world.apply(movie, movie_answer(world.files), max_image_bytes=100)
    assert result.images_failed == 1 and await world.images(movie) == {}


async def test_missing_never_replaces_a_local_image(world: World) -> None:
    _lib, movie = await _movie(world)
    local_tag = world.cat.image(movie, "primary")
    await world.cat.flush()
    result = await world.apply(movie, movie_answer(world.files), mode="replaceAll", replace_images=True)
    assert (await world.images(movie))[("primary", 0)]["tag"] == local_tag
    assert result.images_added == 0 and world.files.hits["/poster.jpg"] == 0


async def test_replace_images_replaces_provider_images_and_removes_their_files(world: World) -> None:
    _lib, movie = await _movie(world)
    await world.apply(movie, movie_answer(world.files))
    first = Path((await world.images(movie))[("primary", 0)]["path"])
    again = movie_answer(images=(ProviderImage("primary", world.files.url("/backdrop.png")),))
    await world.apply(movie, again)  # missing: the slot is taken
    assert (await world.images(movie))[("primary", 0)]["tag"] == image_tag(POSTER)
    await world.apply(movie, again, replace_images=True)
    image = (await world.images(movie))[("primary", 0)]
    assert image["tag"] == image_tag(BACKDROP) and not first.exists()


async def test_an_episode_without_a_primary_takes_its_still_fetched_once(world: World) -> None:
    library = world.cat.library("Shows", "tvshows")
    series = world.cat.series(library, "show")
    episode = world.cat.episode(world.cat.season(series, 1), 1)
    await world.cat.flush()
    still = (ProviderImage("still", world.files.url("/backdrop.png")),)
    match = SeriesMatch(ProviderItem("1"), {1: (ProviderItem("s1", index_number=1), [ProviderItem("e1", index_number=1, images=still)])})
    await world.apply(series, match)
    images = await world.images(episode)
    assert set(images) == {("primary", 0), ("still", 0)} and world.files.hits["/backdrop.png"] == 1
    assert images[("primary", 0)]["tag"] == images[("still", 0)]["tag"] == image_tag(BACKDROP)
