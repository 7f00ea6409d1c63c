"""Item listings on both backends: scope, visibility, every filter and every sort."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import trio

from reelhouse.storage import Store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import ItemPage, list_item_keys, list_items, parse_item_query
from tests.catalog_factory import CatalogFactory

from .item_samples import Samples, sample_catalog

CODEC = CursorCodec(b"item-query-tests-secret")
TOP_LEVEL = [
    "#1 Cheerleader Camp", "Arrival", "Atlanta", "blade runner 2049", "blade runner 2049 (4K)",
    "Casablanca", "Dark", "Dune", "Remote Film", "Zodiac",
]  # fmt: skip
MOVIES = [n for n in TOP_LEVEL if n not in ("Atlanta", "Dark")]
LIMIT_S = 20


@pytest.fixture
async def samples(store: Store) -> Samples:
    return await sample_catalog(store)


def _params(samples: Samples, params: dict[str, Any]) -> dict[str, list[str]]:
    """Query parameters with sample names (``@Name``) and people (``~Name``) turned into ids."""
    def resolve(value: Any) -> str:
        text = str(value)
        if "," in text:
            return ",".join(resolve(part) for part in text.split(","))
        if text.startswith("@"):
            return samples.ids.get(text[1:]) or {"films": samples.films, "shows": samples.shows}[text[1:]]
        if text.startswith("~"):
            return samples.people[text[1:]]
        return text

    return {k: [resolve(v) for v in (vs if isinstance(vs, list) else [vs])] for k, vs in params.items()}


async def page(store: Store, samples: Samples, **params: Any) -> ItemPage:
    return await list_items(store, parse_item_query(_params(samples, params)), CODEC)


async def names(store: Store, samples: Samples, **params: Any) -> list[str]:
    return samples.names([item.id for item in (await page(store, samples, **params)).items])


SCOPE_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({}, TOP_LEVEL),
    ({"libraryId": "@shows"}, ["Atlanta", "Dark"]),
    ({"parentId": "@films"}, MOVIES),
    ({"parentId": "@Dark"}, ["Dark Special", "Dark S1", "Dark S2"]),
    ({"parentId": "@Dark S1"}, ["Lies", "Secrets"]),
    ({"parentId": "@Dark", "recursive": "true"}, ["Dark Special", "Ghosts", "Lies", "Dark S1", "Dark S2", "Secrets"]),
    ({"libraryId": "@shows", "recursive": "true"},
     ["Atlanta", "Atlanta S1", "The Big Bang", "Dark", "Dark Special", "Ghosts", "Lies", "Dark S1", "Dark S2",
      "Secrets"]),
    ({"parentId": "@Arrival"}, []),
    ({"parentId": "@Arrival", "type": "Video"}, ["Arrival Featurette", "Arrival Trailer"]),
    ({"parentId": "@Dune", "type": "Video"}, ["Dune part 2"]),
    ({"ids": "@Dune part 2,@Arrival,@Arrival Trailer"}, ["Arrival", "Arrival Trailer", "Dune part 2"]),
    ({"ids": "@Gone,@Zodiac"}, ["Zodiac"]),
    ({"ids": "@Gone", "missing": "true"}, ["Gone"]),
    ({"ids": "@Secrets", "parentId": "@Atlanta"}, ["Secrets"]),
    ({"recursive": "true", "missing": "true"}, ["Gone"]),
    ({"type": "Series"}, ["Atlanta", "Dark"]),
    ({"type": ["Season", "Episode"], "recursive": "true", "libraryId": "@shows"},
     ["Atlanta S1", "The Big Bang", "Dark Special", "Ghosts", "Lies", "Dark S1", "Dark S2", "Secrets"]),
    ({"excludeType": "Movie"}, ["Atlanta", "Dark"]),
]  # fmt: skip

FILTER_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"genreId": "drama"}, ["Arrival", "Casablanca", "Dark"]),
    ({"genreId": ["SCIENCE FICTION", "Romance"]}, ["Arrival", "blade runner 2049", "Casablanca"]),
    ({"genreId": "Drama", "studioId": "warner"}, ["Casablanca"]),
    ({"tagId": "ALIENS"}, ["Arrival"]),
    ({"year": "2017"}, ["blade runner 2049", "blade runner 2049 (4K)", "Dark"]),
    ({"year": ["2017", "1942"]}, ["blade runner 2049", "blade runner 2049 (4K)", "Casablanca", "Dark"]),
    ({"yearFrom": "2010", "yearTo": "2016"}, ["#1 Cheerleader Camp", "Arrival", "Atlanta"]),
    ({"yearFrom": "2017"}, ["blade runner 2049", "blade runner 2049 (4K)", "Dark", "Dune"]),
    ({"minRating": "8"}, ["blade runner 2049", "Casablanca", "Dark", "Dune"]),
    ({"officialRating": "pg-13"}, ["Arrival", "Dune"]),
    ({"officialRating": ["PG", "tv-ma"]}, ["Casablanca", "Dark"]),
    ({"minOfficialRating": "PG-13"}, ["Arrival", "blade runner 2049", "Dark", "Dune"]),
    ({"maxOfficialRating": "PG-13"}, ["Arrival", "Casablanca", "Dune"]),
    ({"minOfficialRating": "PG", "maxOfficialRating": "PG"}, ["Casablanca"]),
    ({"hasSubtitles": "true"}, ["Arrival", "blade runner 2049"]),
    ({"hasSubtitles": "true", "recursive": "true"}, ["Arrival", "blade runner 2049", "Secrets"]),
    ({"hasSubtitles": "false", "type": "Movie"},
     ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Casablanca", "Dune", "Remote Film", "Zodiac"]),
    ({"resolutions": "4k"}, ["Arrival", "Dune"]),
    ({"resolutions": "hd", "recursive": "true"}, ["blade runner 2049", "Secrets"]),
    ({"resolutions": ["sd", "4k"]}, ["Arrival", "Casablanca", "Dune"]),
    ({"dynamicRanges": "dolbyVision"}, ["Arrival"]),
    ({"dynamicRanges": "hdr10"}, ["blade runner 2049"]),
    ({"dynamicRanges": ["hlg", "sdr"], "recursive": "true"}, ["Casablanca", "Dune", "Secrets"]),
    ({"containers": "MKV"}, ["Arrival", "Dune"]),
    ({"containers": ["mpegts", "strm"]}, ["Casablanca", "Remote Film"]),
    ({"videoCodecs": "HEVC"}, ["Arrival"]),
    ({"audioCodecs": ["mp2", "eac3"]}, ["Arrival", "Casablanca"]),
    ({"subtitleCodecs": "srt"}, ["Arrival"]),
    ({"subtitleCodecs": "pgs"}, ["blade runner 2049"]),
    ({"subtitleCodecs": "vtt", "recursive": "true"}, ["Secrets"]),
    ({"subtitleLanguages": "en", "recursive": "true"}, ["Arrival", "Secrets"]),
    ({"subtitleLanguages": "de-DE"}, ["Arrival"]),
    ({"subtitleLanguages": ["fra"]}, ["blade runner 2049"]),
    ({"hasSpecialFeature": "true"}, ["Arrival", "Casablanca"]),
    ({"hasSpecialFeature": "false", "type": "Movie"},
     ["#1 Cheerleader Camp", "blade runner 2049", "blade runner 2049 (4K)", "Dune", "Remote Film", "Zodiac"]),
    ({"nameFrom": "c"}, ["Casablanca", "Dark", "Dune", "Remote Film", "Zodiac"]),
    ({"nameBefore": "B"}, ["#1 Cheerleader Camp", "Arrival", "Atlanta"]),
    ({"nameFrom": "blade", "nameBefore": "DARK"}, ["blade runner 2049", "blade runner 2049 (4K)", "Casablanca"]),
    ({"nameStartsWith": "BLADE RUNNER 2049 ("}, ["blade runner 2049 (4K)"]),
    ({"nameStartsWith": "%"}, []),
    ({"nameStartsWith": "_"}, []),
    ({"initial": "d"}, ["Dark", "Dune"]),
    ({"initial": "Z"}, ["Zodiac"]),
    ({"initial": "#"}, ["#1 Cheerleader Camp"]),
    ({"personId": "~Amy Adams"}, ["Arrival"]),
    ({"personId": "~Denis Villeneuve"}, ["Arrival", "blade runner 2049"]),
    ({"personId": ["~Amy Adams", "~Humphrey Bogart"]}, ["Arrival", "Casablanca"]),
    ({"personId": ["~Amy Adams", "~Denis Villeneuve"], "personMatch": "all"}, ["Arrival"]),
    ({"personId": "~Denis Villeneuve", "personRole": "Actor"}, []),
    ({"personId": "~Denis Villeneuve", "personRole": ["Actor", "Director"]}, ["Arrival", "blade runner 2049"]),
    ({"hasOverview": "true"}, ["Arrival"]),
    ({"hasOverview": "false", "type": "Movie"}, [n for n in MOVIES if n != "Arrival"]),
    ({"q": "RUNNER"}, ["blade runner 2049", "blade runner 2049 (4K)"]),
    ({"q": "story of"}, ["Arrival"]),
    ({"q": "%"}, []),
    ({"q": "big bang", "recursive": "true"}, ["The Big Bang"]),
    ({"missing": "false"}, TOP_LEVEL),
    ({"hasPrimaryImage": "true"}, ["Arrival", "blade runner 2049", "Dark", "Dune"]),
    ({"hasPrimaryImage": "false", "type": "Series"}, ["Atlanta"]),
    ({"hasRemoteSource": "true"}, ["Remote Film"]),
    ({"hasRemoteSource": "false", "type": "Series"}, ["Atlanta", "Dark"]),
    ({"probePending": "true"}, ["Dune"]),
    ({"probePending": "false", "type": "Series"}, ["Atlanta", "Dark"]),
    ({"imageKinds": "backdrop"}, ["Arrival"]),
    ({"imageKinds": ["primary", "logo"]}, ["Dune"]),
    ({"imageKinds": ["backdrop", "logo"]}, []),
    ({"scrapeState": ["failed", "pending"]}, ["Dune", "Remote Film"]),
    ({"attention": "needsIdentify"}, ["Zodiac"]),
    ({"attention": "scrapeFailed"}, ["Dune"]),
    ({"attention": "scrapePending"}, ["Remote Film"]),
    ({"attention": "unprobed"}, ["Dune"]),
    ({"attention": "noPoster"},
     ["#1 Cheerleader Camp", "Atlanta", "blade runner 2049 (4K)", "Casablanca", "Remote Film", "Zodiac"]),
    ({"attention": "scrapeNotQueued"},
     ["#1 Cheerleader Camp", "Atlanta", "blade runner 2049", "blade runner 2049 (4K)", "Dark"]),
    ({"attention": "missing", "recursive": "true"}, ["Gone"]),
    ({"attention": ["missing", "needsIdentify"], "recursive": "true"}, ["Gone", "Zodiac"]),
    ({"card": "missing"}, ["Gone"]),
    ({"card": "noPoster", "type": "Movie", "hasPrimaryImage": "true", "libraryId": "@shows"},
     ["Atlanta", "Atlanta S1", "The Big Bang", "Dark Special", "Ghosts", "Lies", "Dark S1", "Dark S2", "Secrets"]),
    ({"card": "needsIdentify", "scrapeState": "failed", "excludeType": "Movie", "probePending": "true"}, ["Zodiac"]),
]  # fmt: skip

USER_STATE_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"isPlayed": "true"}, []),
    ({"isPlayed": "false"}, TOP_LEVEL),
    ({"isFavorite": "true"}, []),
    ({"isFavorite": "false"}, TOP_LEVEL),
    ({"favoritePeople": "true"}, []),
    ({"favoritePeople": "false"}, TOP_LEVEL),
    ({"neverPlayed": "true"}, TOP_LEVEL),
    ({"neverPlayed": "false"}, []),
]


@pytest.mark.parametrize("cases", [SCOPE_CASES, FILTER_CASES, USER_STATE_CASES], ids=["scope", "filters", "user"])
async def test_each_filter_selects_its_items_in_name_order(
    store: Store, samples: Samples, cases: list[tuple[dict[str, Any], list[str]]], subtests: Any
) -> None:
    for params, expected in cases:
        with subtests.test(params=params):
            assert await names(store, samples, **params, limit=200) == expected


MOVIE_SCOPE = {"libraryId": "@films", "type": "Movie", "recursive": "true", "limit": 200}
SORT_CASES: list[tuple[str, list[str]]] = [
    ("name", MOVIES),
    ("year", ["Casablanca", "Remote Film", "#1 Cheerleader Camp", "Arrival", "blade runner 2049",
              "blade runner 2049 (4K)", "Dune", "Zodiac"]),
    ("premiereDate", ["Casablanca", "Arrival", "blade runner 2049", "#1 Cheerleader Camp", "blade runner 2049 (4K)",
                      "Dune", "Remote Film", "Zodiac"]),
    ("rating", ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Remote Film", "Zodiac", "Arrival",
                "blade runner 2049", "Dune", "Casablanca"]),
    ("criticRating", ["blade runner 2049", "blade runner 2049 (4K)", "Casablanca", "Dune", "Remote Film", "Zodiac",
                      "#1 Cheerleader Camp", "Arrival"]),
    ("runtime", ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Casablanca", "Dune", "Remote Film", "Zodiac",
                 "Arrival", "blade runner 2049"]),
    ("officialRating", ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Remote Film", "Zodiac", "Casablanca",
                        "Arrival", "Dune", "blade runner 2049"]),
    ("dateAdded", ["Arrival", "blade runner 2049", "blade runner 2049 (4K)", "Casablanca", "Zodiac", "Dune",
                   "Remote Film", "#1 Cheerleader Camp"]),
    ("dateModified", ["Arrival", "blade runner 2049", "blade runner 2049 (4K)", "Casablanca", "Zodiac", "Dune",
                      "Remote Film", "#1 Cheerleader Camp"]),
    ("size", ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Zodiac", "Remote Film", "Casablanca",
              "blade runner 2049", "Arrival", "Dune"]),
    ("resolution", ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Remote Film", "Zodiac", "Casablanca",
                    "blade runner 2049", "Arrival", "Dune"]),
    ("container", ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Zodiac", "Arrival", "Dune",
                   "blade runner 2049", "Casablanca", "Remote Film"]),
    ("studio", ["#1 Cheerleader Camp", "blade runner 2049 (4K)", "Remote Film", "Zodiac", "Dune", "Arrival",
                "blade runner 2049", "Casablanca"]),
    ("productCode", ["#1 Cheerleader Camp", "Arrival", "blade runner 2049 (4K)", "Dune", "Remote Film",
                     "blade runner 2049", "Casablanca", "Zodiac"]),
    ("index", MOVIES),
    ("childCount", MOVIES),
    ("seriesName", MOVIES),
    *((sort, MOVIES) for sort in ("datePlayed", "playCount", "played", "favorite", "seriesDatePlayed")),
]  # fmt: skip
# Descending: every key reversed, except that missing dates stay last.
MISSING_DATES_LAST = {
    "year": ["Dune", "blade runner 2049 (4K)", "blade runner 2049", "Arrival", "#1 Cheerleader Camp", "Remote Film",
             "Casablanca", "Zodiac"],
    "premiereDate": ["blade runner 2049", "Arrival", "Casablanca", "Zodiac", "Remote Film", "Dune",
                     "blade runner 2049 (4K)", "#1 Cheerleader Camp"],
}  # fmt: skip


async def test_each_sort_orders_by_its_value_then_name_in_both_orders(
    store: Store, samples: Samples, subtests: Any
) -> None:
    for sort, expected in SORT_CASES:
        with subtests.test(sort=sort):
            assert await names(store, samples, **MOVIE_SCOPE, sort=sort) == expected
            descending = MISSING_DATES_LAST.get(sort, expected[::-1])
            assert await names(store, samples, **MOVIE_SCOPE, sort=sort, order="desc") == descending


async def test_index_sorts_seasons_and_episodes_by_season_then_number(store: Store, samples: Samples) -> None:
    listed = await names(store, samples, parentId="@Dark", recursive="true", sort="index")
    assert listed == ["Dark S1", "Dark S2", "Dark Special", "Secrets", "Lies", "Ghosts"]


async def test_series_sorts_by_child_count_series_name_and_last_content(store: Store, samples: Samples) -> None:
    assert await names(store, samples, libraryId="@shows", sort="childCount") == ["Atlanta", "Dark"]
    episodes = {"type": "Episode", "recursive": "true", "sort": "seriesName"}
    assert await names(store, samples, **episodes) == ["The Big Bang", "Dark Special", "Ghosts", "Lies", "Secrets"]
    assert await names(store, samples, libraryId="@shows", sort="lastContentAdded") == ["Dark", "Atlanta"]
    cat = CatalogFactory(store, start_ms=2_000_000_000_000)
    cat.item(samples.shows, "Episode", "Late", parent_id=samples["Dark S2"], series_id=samples["Dark"],
             season_id=samples["Dark S2"], index_number=2, parent_index_number=2)  # fmt: skip
    await cat.flush()
    assert await names(store, samples, libraryId="@shows", sort="lastContentAdded") == ["Atlanta", "Dark"]


async def test_path_sort_follows_the_stored_paths(store: Store, samples: Samples) -> None:
    rows = await store.fetch_all("SELECT name, path FROM items WHERE library_id = ? AND type = 'Movie'"
                                 " AND missing = 0", (samples.films,))  # fmt: skip
    expected = [row["name"] for row in sorted(rows, key=lambda r: r["path"])]
    assert await names(store, samples, **MOVIE_SCOPE, sort="path") == expected


async def test_box_sets_alone_sort_by_their_newest_member(store: Store) -> None:
    cat = CatalogFactory(store)
    library = cat.library("Films", "movies")
    older = cat.item(library, "BoxSet", "Older Set")
    newer = cat.item(library, "BoxSet", "Newer Set")
    cat.member(newer, cat.movie(library, "In Newer"))
    cat.member(older, cat.movie(library, "In Older"))
    await cat.flush()
    query = parse_item_query({"type": ["BoxSet"], "sort": ["dateAdded"]})
    listed = await list_items(store, query, CODEC)
    assert [i.name for i in listed.items] == ["Newer Set", "Older Set"]


async def test_box_sets_are_listed_when_asked_for_and_list_their_members(store: Store) -> None:
    cat = CatalogFactory(store)
    library = cat.library("Films", "movies")
    box = cat.item(library, "BoxSet", "A Set")
    first, second = cat.movie(library, "First"), cat.movie(library, "Second")
    cat.movie(library, "Alone")
    cat.member(box, first)
    cat.member(box, second)
    await cat.flush()
    plain = await list_items(store, parse_item_query({"libraryId": [library]}), CODEC)
    boxsets = await list_items(store, parse_item_query({"type": ["BoxSet"]}), CODEC)
    members = await list_items(store, parse_item_query({"parentId": [box]}), CODEC)
    by_id = await list_items(store, parse_item_query({"ids": [box]}), CODEC)
    assert [i.name for i in plain.items] == ["Alone", "First", "Second"]
    assert [i.name for i in boxsets.items] == ["A Set"]
    assert [i.name for i in members.items] == ["First", "Second"]
    assert [i.name for i in by_id.items] == ["A Set"]


async def test_random_sort_is_a_seeded_permutation(store: Store, samples: Samples) -> None:
    orders = set()
    for seed in range(1, 7):
        query = replace(parse_item_query({"sort": ["random"], "limit": ["200"]}), random_seed=seed)
        listed = [i.name for i in (await list_items(store, query, CODEC)).items]
        assert sorted(listed) == sorted(TOP_LEVEL)
        assert listed == [i.name for i in (await list_items(store, query, CODEC)).items]
        orders.add(tuple(listed))
    assert len(orders) > 1


async def test_summaries_carry_the_reference_fields(store: Store, samples: Samples) -> None:
    listed = (await page(store, samples, recursive="true", limit=200)).items
    found = {name: item.to_json() for name, item in zip(samples.names([i.id for i in listed]), listed, strict=True)}
    arrival = found["Arrival"]
    assert arrival["imageTag"] == "arrivalposter" and arrival["hasPoster"] is True
    assert arrival["locked"] is True  # a locked field
    assert arrival["originalTitle"] == "Story of Your Life" and arrival["productionYear"] == 2016
    assert arrival["dateCreated"].endswith("Z") and arrival["libraryId"] == samples.films
    assert "productCode" not in arrival and "seasonId" not in arrival and "extraType" not in arrival
    assert found["Casablanca"]["locked"] is True and found["Casablanca"]["hasPoster"] is False
    assert "imageTag" not in found["Casablanca"] and found["Casablanca"]["productCode"] == "cas 001"
    assert found["blade runner 2049"]["versionMemberCount"] == 1
    assert found["blade runner 2049 (4K)"]["versionOf"] == samples["blade runner 2049"]
    assert "versionMemberCount" not in found["blade runner 2049 (4K)"]
    secrets = found["Secrets"]
    assert (secrets["seasonId"], secrets["seriesId"]) == (samples["Dark S1"], samples["Dark"])
    assert (secrets["indexNumber"], secrets["parentIndexNumber"]) == (1, 1)
    assert "seasonId" not in found["Dark Special"] and found["Dark Special"]["seriesId"] == samples["Dark"]
    assert found["Dark S1"]["seriesId"] == samples["Dark"] and "seasonId" not in found["Dark S1"]
    part = (await page(store, samples, ids="@Dune part 2")).items[0].to_json()
    assert (part["extraType"], part["indexNumber"], part["type"]) == ("AdditionalPart", 2, "Video")


async def test_total_count_counts_every_match_not_the_page(store: Store, samples: Samples) -> None:
    first = await page(store, samples, limit=3, includeTotal="true")
    assert first.total_count == len(TOP_LEVEL) and len(first.items) == 3
    assert (await page(store, samples, limit=3)).total_count is None
    assert "totalCount" not in (await page(store, samples)).to_json()


async def test_offset_skips_rows_without_a_cursor(store: Store, samples: Samples) -> None:
    assert await names(store, samples, offset=8) == TOP_LEVEL[8:]
    assert await names(store, samples, offset=2, limit=3) == TOP_LEVEL[2:5]


async def test_unknown_library_or_parent_is_not_found(store: Store, samples: Samples) -> None:
    from reelhouse.errors import NotFound

    with pytest.raises(NotFound):
        await page(store, samples, libraryId="nope")
    with pytest.raises(NotFound):
        await page(store, samples, parentId="nope")


async def test_a_page_read_with_names_carries_its_series_and_season_names(store: Store, samples: Samples) -> None:
    query = parse_item_query(_params(samples, {"parentId": "@Dark S1", "limit": 1}))
    named = await list_items(store, query, CODEC, with_cursor=False, with_names=True)
    assert named.names == {samples.ids["Dark"]: "Dark", samples.ids["Dark S1"]: "Season 1"}
    assert named.next_cursor is None  # a second page exists: without_cursor, no cursor is made
    plain = await list_items(store, query, CODEC)
    assert plain.names == {} and plain.next_cursor is not None
    assert [item.id for item in named.items] == [item.id for item in plain.items]


@pytest.mark.parametrize("params", [
    {"libraryId": "@shows", "recursive": "true", "type": "Episode", "sort": "dateAdded", "order": "desc", "limit": 3},
    {"libraryId": "@films", "recursive": "true", "type": "Movie", "sort": "dateAdded", "order": "desc"},
    {"parentId": "@Dark", "recursive": "true", "sort": "name"},
    {"libraryId": "@shows", "recursive": "true", "type": ["Season", "Episode"], "limit": 100},
])  # fmt: skip
async def test_the_keys_of_a_page_are_those_of_the_page_list_items_reads(
    store: Store, samples: Samples, params: dict[str, Any]
) -> None:
    query = parse_item_query(_params(samples, params))
    with trio.fail_after(LIMIT_S):  # two reads of a dozen rows
        keys = await list_item_keys(store, query)
        items = (await list_items(store, query, CODEC)).items
    assert keys and [(k.id, k.series_id, k.date_created_ms) for k in keys] == [
        (i.id, i.series_id, i.date_created_ms) for i in items
    ]


async def test_the_keys_of_an_unknown_library_or_parent_are_not_found(store: Store, samples: Samples) -> None:
    from reelhouse.errors import NotFound

    with trio.fail_after(LIMIT_S), pytest.raises(NotFound):
        await list_item_keys(store, parse_item_query({"libraryId": ["nope"]}))
    with trio.fail_after(LIMIT_S), pytest.raises(NotFound):
        await list_item_keys(store, parse_item_query({"parentId": ["nope"]}))
