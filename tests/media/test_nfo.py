"""nfo: Kodi NFO parsing, hostile documents and real-world junk."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.media.nfo import (
    MAX_NFO_BYTES,
    NfoData,
    NfoError,
    NfoKind,
    NfoPerson,
    NfoRating,
    PersonKind,
    nfo_candidates,
    parse_nfo,
)

FIXTURES = Path(__file__).parent / "fixtures"


def _fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def _movie(body: str) -> NfoData:
    return parse_nfo(f"<movie>{body}</movie>".encode(), "movie")


# -- a full Kodi movie ------------------------------------------------------


@pytest.fixture(scope="module")
def arrival() -> NfoData:
    return parse_nfo(_fixture("movie.nfo"), "movie")


def test_movie_texts(arrival: NfoData) -> None:
    assert (arrival.title, arrival.original_title, arrival.sort_title) == (
        "Arrival", "Arrival", "Arrival 1",
    )  # fmt: skip
    assert arrival.plot == "A linguist works with the military to communicate with alien lifeforms & more."
    assert (arrival.outline, arrival.tagline) == ("Aliens land.", "Why are they here?")
    assert arrival.runtime_minutes == 116
    assert arrival.official_rating == "PG-13"


def test_movie_year_falls_back_to_premiere(arrival: NfoData) -> None:
    assert arrival.premiered == date(2016, 11, 10)
    assert arrival.year == 2016


def test_movie_lists_split_on_slash_and_drop_duplicates(arrival: NfoData) -> None:
    assert arrival.genres == ("Drama", "Science Fiction", "Mystery")
    assert arrival.studios == ("Paramount", "FilmNation Entertainment")
    assert arrival.tags == ("aliens", "language")
    assert arrival.countries == ("United States of America",)


def test_movie_ratings_with_votes_and_default(arrival: NfoData) -> None:
    assert arrival.ratings == (
        NfoRating("imdb", 7.9, 10.0, 745123, is_default=True),
        NfoRating("themoviedb", 7.6, 10.0, 17000),
        NfoRating("tomatometerallcritics", 94.0, 100.0, None),
    )
    assert (arrival.community_rating, arrival.community_votes) == (7.9, 745123)
    assert arrival.user_rating == 8.0


def test_movie_uniqueids_win_and_keys_are_lowercase(arrival: NfoData) -> None:
    assert arrival.provider_ids == {"imdb": "tt2543164", "tmdb": "329865"}
    assert arrival.default_provider == "imdb"


def test_movie_people_in_document_order(arrival: NfoData) -> None:
    assert arrival.people == (
        NfoPerson("Amy Adams", PersonKind.ACTOR, "Louise Banks", 0,
                  "https://image.tmdb.org/t/p/original/amy.jpg"),
        NfoPerson("Jeremy Renner", PersonKind.ACTOR, "Ian Donnelly", 1),
        NfoPerson("Forest Whitaker", PersonKind.ACTOR, "Colonel Weber", None),
        NfoPerson("Denis Villeneuve", PersonKind.DIRECTOR),
        NfoPerson("Eric Heisserer", PersonKind.WRITER),
        NfoPerson("Ted Chiang", PersonKind.WRITER),
    )  # fmt: skip


def test_movie_set_trailers_and_lock(arrival: NfoData) -> None:
    assert (arrival.collection, arrival.collection_overview) == ("Villeneuve Sci-Fi", "Two films.")
    assert arrival.trailers == (
        "https://www.youtube.com/watch?v=tFMo3UJ4B4g",
        "https://example.com/arrival-trailer.mp4",
    )
    assert arrival.lock_data is True
    assert arrival.season_number is None and arrival.episode_number is None


# -- shows, seasons, episodes ---------------------------------------------


def test_tvshow_dates_status_legacy_rating_and_ids() -> None:
    show = parse_nfo(_fixture("tvshow.nfo"), "tvshow")
    assert show.title == "Dark"
    assert (show.premiered, show.end_date, show.year) == (
        date(2017, 12, 1), date(2020, 6, 27), 2017,
    )  # fmt: skip
    assert show.status == "Ended"
    assert show.official_rating == "TV-MA"
    assert (show.community_rating, show.community_votes, show.ratings) == (8.7, 380000, ())
    assert show.provider_ids == {"imdb": "tt5753856", "tvdb": "334824"}
    assert show.people[1] == NfoPerson("Guest Person", PersonKind.GUEST_STAR, "Stranger")


def test_first_episode_of_a_multi_episode_file() -> None:
    episode = parse_nfo(_fixture("episodes.nfo"), "episode")
    assert episode.title == "Secrets"
    assert (episode.season_number, episode.episode_number) == (1, 1)
    assert (episode.display_season, episode.display_episode) == (0, 3)
    assert episode.premiered == date(2017, 12, 1)
    assert episode.runtime_minutes == 51
    assert episode.provider_ids == {"tvdb": "6284880"}
    assert [p.kind for p in episode.people] == [PersonKind.DIRECTOR, PersonKind.WRITER]


def test_episode_air_order_elements() -> None:
    episode = parse_nfo(
        b"<episodedetails><season>0</season><episode>4</episode>"
        b"<episodenumberend>5</episodenumberend><premiered>2020-01-02</premiered>"
        b"<airsbefore_season>2</airsbefore_season><airsbefore_episode>3</airsbefore_episode>"
        b"<airsafter_season>1</airsafter_season></episodedetails>",
        "episode",
    )
    assert (episode.season_number, episode.episode_number, episode.episode_number_end) == (0, 4, 5)
    assert (episode.airs_before_season, episode.airs_before_episode) == (2, 3)
    assert episode.airs_after_season == 1
    assert episode.premiered == date(2020, 1, 2)


def test_season_number_and_title() -> None:
    season = parse_nfo(
        b"<season><title>Origins</title><seasonnumber>2</seasonnumber></season>", "season"
    )
    assert (season.title, season.season_number, season.kind) == ("Origins", 2, "season")


def test_episode_numbers_are_not_read_for_movies() -> None:
    assert _movie("<season>1</season><episode>2</episode>").season_number is None


# -- smaller rules ----------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "rating", "votes"),
    [
        ("<rating>6.5</rating><votes>1.234</votes>", 6.5, 1234),
        ("<rating>6,5</rating><votes>n/a</votes>", 6.5, None),
        ('<ratings><rating name="rt" max="100"><value>80</value></rating></ratings>', 8.0, None),
        ('<rating>5</rating><ratings><rating name="imdb"><value>7</value></rating></ratings>',
         5.0, None),
        ('<rating>5</rating><ratings><rating name="imdb" default="true"><value>7</value>'
         "</rating></ratings>", 7.0, None),
        ("<rating>55</rating>", None, None),
        ("<rating>NaN</rating>", None, None),
        ('<ratings><rating max="0"><value>7</value></rating></ratings>', None, None),
        ('<ratings><rating><value>70</value></rating></ratings>', None, None),
        ("", None, None),
    ],
)  # fmt: skip
def test_community_rating_sources(body: str, rating: float | None, votes: int | None) -> None:
    parsed = _movie(body)
    assert (parsed.community_rating, parsed.community_votes) == (rating, votes)


def test_rating_without_name_or_max() -> None:
    (rating,) = _movie("<ratings><rating><value>7.5</value></rating></ratings>").ratings
    assert rating == NfoRating("default", 7.5, 10.0, None)


@pytest.mark.parametrize(
    ("body", "ids"),
    [
        ("<id>tt0111161</id>", {"imdb": "tt0111161"}),
        ("<id>278</id>", {"tmdb": "278"}),
        ("<id>weird</id>", {}),
        ("<tmdbid>278</tmdbid><imdb_id>tt1</imdb_id>", {"tmdb": "278", "imdb": "tt1"}),
        ('<uniqueid type="tmdb">1</uniqueid><tmdbid>2</tmdbid>', {"tmdb": "1"}),
        ('<uniqueid>9</uniqueid><uniqueid type="x"></uniqueid>', {}),
        ('<uniqueid type="imdb">tt1</uniqueid><uniqueid type="IMDB">tt2</uniqueid>',
         {"imdb": "tt1"}),
    ],
)  # fmt: skip
def test_provider_ids(body: str, ids: dict[str, str]) -> None:
    assert _movie(body).provider_ids == ids


def test_legacy_numeric_id_is_tvdb_for_shows() -> None:
    assert parse_nfo(b"<tvshow><id>81189</id></tvshow>", "tvshow").provider_ids == {
        "tvdb": "81189"
    }


def test_set_as_plain_text_and_mpaa_kept_as_written() -> None:
    parsed = _movie("<set>Alien Collection</set><mpaa>US:R</mpaa><year>1979</year>")
    assert (parsed.collection, parsed.collection_overview) == ("Alien Collection", None)
    assert parsed.official_rating == "US:R"
    assert parsed.year == 1979


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<premiered>2016-02-30</premiered>", None),
        ("<premiered>2016</premiered>", None),
        ("<premiered>2016-1-5 12:00:00</premiered>", date(2016, 1, 5)),
        ("<premiered>0000-01-01</premiered>", None),
    ],
)
def test_premiere_dates(body: str, expected: date | None) -> None:
    assert _movie(body).premiered == expected


def test_unreadable_values_are_absent_not_errors() -> None:
    parsed = _movie(
        "<year>20x6</year><runtime>about two hours</runtime><userrating>great</userrating>"
        "<lockdata>maybe</lockdata><title>   </title><trailer>javascript:alert(1)</trailer>"
        "<trailer>plugin://plugin.video.youtube/?videoid=%3Cx%3E</trailer>"
    )
    assert (parsed.year, parsed.runtime_minutes, parsed.user_rating) == (None, None, None)
    assert (parsed.lock_data, parsed.title, parsed.trailers) == (False, None, ())


def test_uppercase_elements_are_ignored() -> None:
    assert _movie("<Title>Loud</Title>").title is None


# -- real-world junk ------------------------------------------------------


def test_bom_leading_whitespace_and_trailing_url_are_tolerated() -> None:
    data = (
        b"\xef\xbb\xbf\n  <?xml version='1.0' encoding='utf-8'?>\n"
        b'<movie><title>Heat</title><uniqueid type="imdb">tt0113277</uniqueid></movie>\n'
        b"https://www.themoviedb.org/movie/949-heat\n"
    )
    parsed = parse_nfo(data, "movie")
    assert parsed.title == "Heat"
    assert parsed.provider_ids == {"imdb": "tt0113277", "tmdb": "949"}


def test_provider_url_only_nfo_gives_ids() -> None:
    parsed = parse_nfo(b"https://www.imdb.com/title/tt0113277/\n", "movie")
    assert parsed == NfoData(kind="movie", provider_ids={"imdb": "tt0113277"})
    show = parse_nfo(b"https://thetvdb.com/?tab=series&id=81189", "tvshow")
    assert show.provider_ids == {"tvdb": "81189"}


def test_utf16_with_declaration_is_read() -> None:
    text = '<?xml version="1.0" encoding="UTF-16"?>\n<movie><title>Amélie</title></movie>'
    assert parse_nfo(text.encode("utf-16"), "movie").title == "Amélie"


def test_undeclared_windows_1252_is_read() -> None:
    assert parse_nfo("<movie><title>Café</title></movie>".encode("cp1252"), "movie").title == "Café"


def test_declared_latin1_is_read() -> None:
    data = '<?xml version="1.0" encoding="ISO-8859-1"?><movie><plot>déjà vu</plot></movie>'
    assert parse_nfo(data.encode("latin-1"), "movie").plot == "déjà vu"


# -- refusals -------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "kind", "fragment"),
    [
        (_fixture("billion_laughs.nfo"), "movie", "DTD"),
        (_fixture("external_entity.nfo"), "movie", "DTD"),
        (b"<movie><title>broken</movie>", "movie", "well-formed"),
        (b"<movie><title>&undefined;</title></movie>", "movie", "well-formed"),
        (b"<movie><title>x</title>", "movie", "well-formed"),
        (b"", "movie", "neither XML nor"),
        (b"just some notes about the film", "movie", "neither XML nor"),
        (b"<tvshow><title>Dark</title></tvshow>", "movie", "expected <movie>"),
        (b"<movie><title>x</title></movie>", "episode", "expected <episodedetails>"),
        (b"<Movie><title>x</title></Movie>", "movie", "expected <movie>"),
        (b"\xff\xfe\x00\xd8", "movie", "UTF-16"),
        (b'<?xml version="1.0" encoding="klingon"?><movie/>', "movie", "encoding"),
    ],
)  # fmt: skip
def test_refused_documents_raise_nfo_error(data: bytes, kind: NfoKind, fragment: str) -> None:
    with pytest.raises(NfoError) as caught:
        parse_nfo(data, kind)
    assert fragment in caught.value.message
    assert len(caught.value.message) < 200


def test_oversized_file_is_refused_before_parsing() -> None:
    data = b"<movie><plot>" + b"x" * MAX_NFO_BYTES + b"</plot></movie>"
    with pytest.raises(NfoError, match="larger than 5 MiB"):
        parse_nfo(data, "movie")


def test_file_at_the_limit_is_parsed() -> None:
    head, tail = b"<movie><plot>", b"</plot></movie>"
    data = head + b"x" * (MAX_NFO_BYTES - len(head) - len(tail)) + tail
    assert len(parse_nfo(data, "movie").plot or "") == MAX_NFO_BYTES - len(head) - len(tail)


_elements = st.sampled_from(
    ["title", "year", "rating", "ratings", "rating name='a' max='x'", "value", "votes",
     "uniqueid type='imdb'", "id", "actor", "name", "order", "set", "trailer", "genre",
     "premiered", "season", "episode", "runtime", "lockdata", "director"]
)  # fmt: skip


@st.composite
def _documents(draw: st.DrawFn) -> bytes:
    parts = []
    for _ in range(draw(st.integers(0, 8))):
        element = draw(_elements)
        text = draw(st.text(max_size=10)).replace("<", "").replace("&", "")
        parts.append(f"<{element}>{text}</{element.split()[0]}>")
    return ("<movie>" + "".join(parts) + "</movie>").encode()


@settings(max_examples=150)
@given(data=_documents() | st.binary(max_size=80))
def test_any_input_gives_data_or_nfo_error(data: bytes) -> None:
    try:
        parse_nfo(data, "movie")
    except NfoError:
        pass


# -- candidates -------------------------------------------------------------


@pytest.mark.parametrize(
    ("stem", "kind", "names"),
    [
        ("Arrival (2016)", "movie", ["Arrival (2016).nfo", "movie.nfo"]),
        ("", "movie", ["movie.nfo"]),
        ("Dark", "tvshow", ["tvshow.nfo"]),
        ("", "season", ["season.nfo"]),
        ("Dark - S01E01", "episode", ["Dark - S01E01.nfo"]),
        ("", "episode", []),
    ],
)
def test_nfo_candidates_most_specific_first(stem: str, kind: NfoKind, names: list[str]) -> None:
    assert nfo_candidates(stem, kind) == names


def test_a_dtd_in_utf16_is_still_refused() -> None:
    """The C-parser fast path must never see a DTD, whatever the encoding."""
    hostile = '<?xml version="1.0" encoding="utf-16"?><!DOCTYPE movie [<!ENTITY a "x">]><movie><title>&a;</title></movie>'
    with pytest.raises(NfoError):
        parse_nfo(hostile.encode("utf-16"), "movie")


def test_comments_and_plain_documents_parse_alike() -> None:
    plain = b"<movie><title>Heat</title><year>1995</year></movie>"
    commented = b"<!-- written by a tool --><movie><title>Heat</title><year>1995</year></movie>"
    assert parse_nfo(plain, "movie") == parse_nfo(commented, "movie")
