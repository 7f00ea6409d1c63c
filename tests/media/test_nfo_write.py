"""render_nfo: what it writes reads back through parse_nfo to the same values."""

from __future__ import annotations

from datetime import date

import pytest

from reelhouse.media.nfo import NfoData, NfoPerson, NfoRating, PersonKind, parse_nfo
from reelhouse.media.nfo_write import nfo_from_provider, render_nfo
from reelhouse.media.provider_metadata import ProviderItem, ProviderPerson, ProviderRating

MOVIE = NfoData(
    kind="movie",
    title="Arrival & <Departure>",
    original_title="Story of Your Life",
    sort_title="Arrival",
    year=2016,
    premiered=date(2016, 11, 11),
    plot="Linguist Louise Banks leads an elite team.",
    tagline="Why are they here?",
    runtime_minutes=116,
    official_rating="PG-13",
    genres=("Drama", "Science Fiction"),
    studios=("FilmNation",),
    tags=("aliens",),
    countries=("United States of America",),
    ratings=(NfoRating("tmdb", 7.6, 10.0, 17000, is_default=True), NfoRating("imdb", 7.9, 10.0, None)),
    critic_rating=94.0,
    provider_ids={"imdb": "tt2543164", "tmdb": "329865"},
    default_provider="tmdb",
    people=(
        NfoPerson("Amy Adams", PersonKind.ACTOR, "Louise Banks", 0),
        NfoPerson("Jeremy Renner", PersonKind.ACTOR, "Ian Donnelly", 1),
        NfoPerson("Jóhann Jóhannsson", PersonKind.COMPOSER),
        NfoPerson("Denis Villeneuve", PersonKind.DIRECTOR),
        NfoPerson("Eric Heisserer", PersonKind.WRITER),
        NfoPerson("Shawn Levy", PersonKind.PRODUCER),
    ),
    collection="Linguistics",
    collection_overview="Films about language.",
    trailers=("https://example.com/trailer.mp4",),
)
ROUND_TRIP_FIELDS = (
    "title", "original_title", "sort_title", "year", "premiered", "plot", "tagline", "runtime_minutes",
    "official_rating", "genres", "studios", "tags", "countries", "ratings", "critic_rating", "provider_ids",
    "default_provider", "people", "collection", "collection_overview", "trailers",
)  # fmt: skip


def test_a_rendered_movie_nfo_parses_back_to_the_same_values() -> None:
    parsed = parse_nfo(render_nfo(MOVIE), "movie")
    for name in ROUND_TRIP_FIELDS:
        assert getattr(parsed, name) == getattr(MOVIE, name), name
    assert parsed.community_rating == 7.6 and parsed.community_votes == 17000


def test_a_rendered_episode_nfo_keeps_its_numbers_and_air_date() -> None:
    episode = NfoData(kind="episode", title="Pilot", premiered=date(2008, 1, 20), season_number=1,
                      episode_number=1, episode_number_end=2, end_date=None)  # fmt: skip
    parsed = parse_nfo(render_nfo(episode), "episode")
    assert (parsed.title, parsed.premiered) == ("Pilot", date(2008, 1, 20))
    assert (parsed.season_number, parsed.episode_number, parsed.episode_number_end) == (1, 1, 2)
    assert b"<aired>2008-01-20</aired>" in render_nfo(episode)


@pytest.mark.parametrize("kind", ["tvshow", "season"])
def test_show_and_season_nfos_have_their_own_root_elements(kind: str) -> None:
    data = NfoData(kind=kind, title="Breaking Bad", season_number=2 if kind == "season" else None,  # type: ignore[arg-type]
                   end_date=date(2013, 9, 29))  # fmt: skip
    parsed = parse_nfo(render_nfo(data), kind)  # type: ignore[arg-type]
    assert (parsed.title, parsed.season_number, parsed.end_date) == ("Breaking Bad", data.season_number, date(2013, 9, 29))


def test_an_nfo_from_a_provider_answer_carries_its_fields_people_and_ids() -> None:
    answer = ProviderItem(
        provider_item_id="329865", name="Arrival", overview="Aliens.", production_year=2016,
        genres=("Drama",), provider_ids={"TMDB": "329865"}, ratings=(ProviderRating("tmdb", 7.6, 17000),),
        people=(ProviderPerson("Denis Villeneuve", "Director"), ProviderPerson("Amy Adams", "Actor", "Louise", 0)),
    )  # fmt: skip
    parsed = parse_nfo(render_nfo(nfo_from_provider("movie", answer, title="fallback")), "movie")
    assert (parsed.title, parsed.plot, parsed.year, parsed.genres) == ("Arrival", "Aliens.", 2016, ("Drama",))
    assert parsed.provider_ids == {"tmdb": "329865"} and parsed.community_rating == 7.6
    assert [(p.name, p.kind, p.role) for p in parsed.people] == [
        ("Amy Adams", PersonKind.ACTOR, "Louise"), ("Denis Villeneuve", PersonKind.DIRECTOR, None),
    ]  # fmt: skip
