"""GET /items query parameters: what is accepted, and every 400 naming its parameter."""

from __future__ import annotations

from typing import Any

import pytest

from reelhouse.errors import Invalid
from reelhouse.storage.item_query import ItemQuery, parse_item_query


def parse(**params: Any) -> ItemQuery:
    return parse_item_query({k: v if isinstance(v, list) else [v] for k, v in params.items()})


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"type": "Bogus"}, "type"),
        ({"type": "Movie,Series"}, "type"),  # a comma-separated value is not a list
        ({"excludeType": "movies"}, "excludeType"),
        ({"sort": "popularity"}, "sort"),
        ({"order": "up"}, "order"),
        ({"scrapeState": "done"}, "scrapeState"),
        ({"attention": "broken"}, "attention"),
        ({"card": "broken"}, "card"),
        ({"imageKinds": "poster"}, "imageKinds"),
        ({"personRole": "Singer"}, "personRole"),
        ({"personMatch": "some"}, "personMatch"),
        ({"resolutions": "8k"}, "resolutions"),
        ({"dynamicRanges": "hdr"}, "dynamicRanges"),
        ({"recursive": "yes"}, "recursive"),
        ({"isPlayed": "1"}, "isPlayed"),
        ({"includeTotal": "TRUE"}, "includeTotal"),
        ({"missing": "no"}, "missing"),
        ({"limit": "0"}, "limit"),
        ({"limit": "201"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": ["10", "20"]}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"year": "0"}, "year"),
        ({"year": ["2000", "3001"]}, "year"),
        ({"year": "MMX"}, "year"),
        ({"yearFrom": "0"}, "yearFrom"),
        ({"yearTo": "3001"}, "yearTo"),
        ({"yearFrom": "1700", "yearTo": "2001"}, "yearTo"),
        ({"yearFrom": "2000", "yearTo": "1999"}, "yearTo"),
        ({"minRating": "10.5"}, "minRating"),
        ({"minRating": "-1"}, "minRating"),
        ({"minRating": "nan"}, "minRating"),
        ({"minRating": "good"}, "minRating"),
        ({"minOfficialRating": "XYZ-99"}, "minOfficialRating"),
        ({"maxOfficialRating": "NR"}, "maxOfficialRating"),
        ({"initial": "ab"}, "initial"),
        ({"initial": "1"}, "initial"),
        ({"initial": "é"}, "initial"),
        ({"ids": "a,,b"}, "ids"),
        ({"ids": "a,b,"}, "ids"),
        ({"ids": "bad id!"}, "ids"),
        ({"ids": ",".join(f"id{n}" for n in range(201))}, "ids"),
        ({"subtitleLanguages": "zz"}, "subtitleLanguages"),
        ({"sort": ["name", "year"]}, "sort"),
    ],
)
def test_invalid_values_are_field_invalid_naming_the_parameter(params: dict[str, Any], field: str) -> None:
    with pytest.raises(Invalid) as raised:
        parse(**params)
    assert raised.value.code == "field_invalid"
    assert raised.value.params["field"] == field


def test_defaults_are_name_ascending_forty_per_page() -> None:
    query = parse()
    assert (query.sort, query.order, query.limit, query.offset, query.include_total) == ("name", "asc", 40, 0, False)
    assert query.ids is None and not query.recursive


def test_enum_values_are_matched_case_insensitively_into_the_reference_spelling() -> None:
    query = parse(type=["movie", "BOXSET"], sort="dateadded", order="DESC", attention="noposter")
    assert query.types == ("Movie", "BoxSet")
    assert (query.sort, query.order, query.attention) == ("dateAdded", "desc", ("noPoster",))


def test_limits_at_the_edges_are_accepted() -> None:
    assert parse(limit="200").limit == 200
    assert parse(limit="1").limit == 1
    assert parse(ids=",".join(f"id{n}" for n in range(200))).ids is not None
    assert (parse(yearFrom="1700", yearTo="2000").year_to, parse(year="3000").years) == (2000, (3000,))
    assert parse(minRating="0").min_rating == 0.0 and parse(minRating="10").min_rating == 10.0


def test_values_are_normalised() -> None:
    query = parse(
        subtitleCodecs=["SRT", "vtt", "pgs", "ass"], subtitleLanguages=["en", "en-US", "eng", "de"],
        containers="MKV", initial="X", minOfficialRating="PG-13", ids="b, a,b",
    )  # fmt: skip
    assert query.subtitle_codecs == ("subrip", "webvtt", "hdmv_pgs_subtitle", "ass")
    assert query.subtitle_languages == ("eng", "ger")
    assert (query.containers, query.initial, query.min_official_level) == (("mkv",), "x", 13)
    assert query.ids == ("b", "a")


def test_empty_free_text_and_unknown_parameters_are_ignored() -> None:
    assert parse(q="", genreId=["", "Drama"], libraryId="", cursor="", somethingElse="x") == parse(genreId="Drama")


@pytest.mark.parametrize(
    "name",
    ["recursive", "includeTotal", "missing", "isPlayed", "type", "excludeType", "sort", "order", "card",
     "personMatch", "limit", "offset", "year", "yearFrom", "minRating", "minOfficialRating", "initial",
     "subtitleLanguages", "ids", "imageKinds", "attention", "scrapeState", "resolutions"],
)  # fmt: skip
def test_an_empty_boolean_enum_number_or_code_is_field_invalid_not_absent(name: str) -> None:
    with pytest.raises(Invalid) as raised:
        parse(**{name: ""})
    assert raised.value.code == "field_invalid"
    assert raised.value.params["field"] == name


def test_a_card_overrides_type_exclusions_scrape_states_poster_and_probe_filters() -> None:
    query = parse(card="noPoster", type="Movie", excludeType="Series", scrapeState="failed",
                  hasPrimaryImage="true", probePending="false", genreId="Drama")  # fmt: skip
    assert query.card == "noPoster" and query.genres == ("Drama",)
    assert (query.types, query.exclude_types, query.scrape_states) == ((), (), ())
    assert query.has_primary_image is None and query.probe_pending is None


def test_fingerprint_ignores_paging_and_parameter_order_but_not_filters_or_sort() -> None:
    base = parse(type=["Movie", "Series"], genreId="Drama", sort="year")
    assert parse(genreId="Drama", type=["Series", "Movie"], sort="year", limit="5", offset="3",
                 includeTotal="true", cursor="abc").fingerprint() == base.fingerprint()  # fmt: skip
    assert parse(type=["Movie", "Series"], genreId="Drama", sort="year", order="desc").fingerprint() != base.fingerprint()
    assert parse(type=["Movie", "Series"], genreId="Drama").fingerprint() != base.fingerprint()
    assert parse(type=["Movie"], genreId="Drama", sort="year").fingerprint() != base.fingerprint()
