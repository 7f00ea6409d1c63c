"""ItemDetail on both backends: every part of one item, read in a few queries."""

from __future__ import annotations

from typing import Any

import pytest

from reelhouse.errors import NotFound
from reelhouse.storage import Store
from reelhouse.storage.item_detail import item_detail
from tests.catalog_factory import CatalogFactory

from .item_samples import Samples, sample_catalog


@pytest.fixture
async def samples(store: Store) -> Samples:
    return await sample_catalog(store)


async def detail(store: Store, samples: Samples, name: str) -> dict[str, Any]:
    return await item_detail(store, samples[name])


async def test_values_people_and_metadata_of_a_movie(store: Store, samples: Samples) -> None:
    arrival = await detail(store, samples, "Arrival")
    assert (arrival["id"], arrival["name"], arrival["type"]) == (samples["Arrival"], "Arrival", "Movie")
    assert arrival["genres"] == ["Drama", "Science Fiction"]
    assert arrival["studios"] == ["Paramount", "FilmNation"]
    assert arrival["tags"] == ["aliens"]
    assert arrival["productionLocations"] == ["United States"]
    assert arrival["people"] == [
        {"id": samples.people["Amy Adams"], "name": "Amy Adams", "role": "Louise Banks", "order": 0,
         "imageTag": "amytag", "kind": "Actor"},
        {"id": samples.people["Denis Villeneuve"], "name": "Denis Villeneuve", "role": "", "order": 1,
         "kind": "Director"},
    ]  # fmt: skip
    assert (arrival["overview"], arrival["tagline"], arrival["officialRating"]) == (
        "Linguist.", "Why are they here?", "PG-13",
    )  # fmt: skip
    assert arrival["premiereDate"] == "2015-12-21T00:00:00.000Z"  # 46 years of 365 days after 1970
    assert arrival["providerIds"] == {"tmdb": "329865", "imdb": "tt2543164"}
    assert arrival["ratings"] == [
        {"source": "imdb", "value": 7.9, "max": 10.0, "votes": 700000},
        {"source": "rt", "value": 94.0, "max": 100.0},
    ]
    assert arrival["remoteTrailers"] == [{"url": "https://example.com/t", "name": "Trailer", "official": True}]
    assert arrival["recognizedTags"] == ["2160p"]
    state = arrival["metadataState"]
    assert (state["lockData"], state["lockedFields"], arrival["locked"]) == (False, ["Overview"], True)
    assert state["dateSaved"].endswith("Z")
    assert (arrival["subtitleDownloadable"], arrival["subtitleDownloadBlockedReason"]) == (False, "no_provider")


async def test_media_sources_list_streams_embedded_then_external(store: Store, samples: Samples) -> None:
    (source,) = (await detail(store, samples, "Arrival"))["mediaSources"]
    assert (source["itemId"], source["container"], source["size"], source["missing"]) == (
        samples["Arrival"], "mkv", 40_000_000_000, False,
    )  # fmt: skip
    assert "probeFailure" not in source and source["name"] == "" and source["bitrate"] == 8_000_000
    kinds = [(s["type"], s["index"], s["isExternal"]) for s in source["streams"]]
    assert kinds == [("Video", 0, False), ("Audio", 1, False), ("Subtitle", 2, False), ("Subtitle", 1, True)]
    video, audio, embedded, external = source["streams"]
    assert (video["codec"], video["width"], video["height"], video["resolutionName"]) == ("hevc", 3840, 2160, "4K")
    assert (audio["codec"], audio["language"], audio["channels"]) == ("eac3", "eng", 6)
    assert "resolutionName" not in audio
    assert (embedded["codec"], embedded["language"]) == ("subrip", "eng")
    assert (external["language"], external["externalPath"].endswith(".srt")) == ("ger", True)


async def test_extras_by_index_parts_by_number_missing_ones_left_out(store: Store, samples: Samples) -> None:
    cat = CatalogFactory(store)
    cat.item(samples.films, "Video", "Lost Interview", owner_id=samples["Casablanca"], extra_type="Interview",
             missing=True)  # fmt: skip
    await cat.flush()
    arrival = await detail(store, samples, "Arrival")
    assert [e["name"] for e in arrival["extras"]] == ["Arrival Trailer", "Arrival Featurette"]
    assert [e["extraType"] for e in arrival["extras"]] == ["Trailer", "Featurette"]
    assert arrival["parts"] == []
    dune = await detail(store, samples, "Dune")
    assert dune["extras"] == [] and [(p["id"], p["indexNumber"]) for p in dune["parts"]] == [
        (samples["Dune part 2"], 2)
    ]
    assert [e["name"] for e in (await detail(store, samples, "Casablanca"))["extras"]] == ["Casablanca Interview"]


async def test_images_tags_details_and_stills(store: Store, samples: Samples) -> None:
    arrival = await detail(store, samples, "Arrival")
    assert arrival["images"] == {"primary": "arrivalposter", "backdrop": "arrivalbd0"}
    assert arrival["imageTag"] == "arrivalposter" and arrival["hasPoster"] is True
    assert [(d["kind"], d["index"], d["tag"]) for d in arrival["imageDetails"]] == [
        ("primary", 0, "arrivalposter"), ("backdrop", 0, "arrivalbd0"), ("backdrop", 1, "arrivalbd1"),
        ("still", 0, "arrivalstill"),
    ]  # fmt: skip
    hinted = arrival["imageDetails"][2]
    assert hinted["cropHint"] == {"aspect": 1.0, "x": 0.5, "y": 0.5} and "crop" not in hinted
    assert hinted["effectiveCrop"] == pytest.approx({"x": 0.0, "y": 1 / 6, "width": 1.0, "height": 2 / 3})
    assert arrival["stills"] == [{"index": 0, "tag": "arrivalstill", "width": 1000, "height": 1500}]
    assert (await detail(store, samples, "Dune"))["images"] == {"primary": "duneposter", "logo": "dunelogo"}


async def test_episodes_name_their_series_and_season(store: Store, samples: Samples) -> None:
    secrets = await detail(store, samples, "Secrets")
    assert (secrets["seriesName"], secrets["seasonName"]) == ("Dark", "Season 1")
    assert (secrets["seriesId"], secrets["seasonId"], secrets["parentIndexNumber"]) == (
        samples["Dark"], samples["Dark S1"], 1,
    )  # fmt: skip
    assert secrets["subtitleDownloadable"] is False
    special = await detail(store, samples, "Dark Special")
    assert "seasonName" not in special and "seasonId" not in special


async def test_optional_parts_are_omitted_but_lists_are_always_present(store: Store, samples: Samples) -> None:
    dark = await detail(store, samples, "Dark")
    for absent in ("ratings", "remoteTrailers", "subtitleDownloadable", "overview", "productionLocations",
                   "attributes", "seriesName", "providerIds"):  # fmt: skip
        assert absent not in dark, absent
    assert (dark["genres"], dark["studios"], dark["tags"], dark["mediaSources"]) == (["Drama", "Mystery"], [], [], [])
    assert dark["metadataState"]["lockData"] is False and dark["metadataState"]["lockedFields"] == []
    casablanca = await detail(store, samples, "Casablanca")
    assert "ratings" not in casablanca and casablanca["communityRating"] == 8.5
    assert casablanca["metadataState"]["lockData"] is True and casablanca["locked"] is True


async def test_version_groups_show_on_both_sides(store: Store, samples: Samples) -> None:
    assert (await detail(store, samples, "blade runner 2049"))["versionMemberCount"] == 1
    member = await detail(store, samples, "blade runner 2049 (4K)")
    assert member["versionOf"] == samples["blade runner 2049"] and "versionMemberCount" not in member


async def test_remote_sources_never_report_a_probe_failure(store: Store, samples: Samples) -> None:
    await store.execute("UPDATE media_sources SET probe_failure = 'unreachable'")
    (remote,) = (await detail(store, samples, "Remote Film"))["mediaSources"]
    assert "probeFailure" not in remote
    (local,) = (await detail(store, samples, "Casablanca"))["mediaSources"]
    assert local["probeFailure"] == "unreachable"


async def test_attributes_are_sorted_by_key(store: Store, samples: Samples) -> None:
    await store.execute(
        "UPDATE items SET extra = ? WHERE id = ?",
        ('{"attributes": {"Zeta": "last", "alpha": "first"}}', samples["Zodiac"]),
    )
    zodiac = await detail(store, samples, "Zodiac")
    assert zodiac["attributes"] == [{"key": "alpha", "value": "first"}, {"key": "zeta", "value": "last"}]


async def test_an_unknown_item_is_not_found(store: Store, samples: Samples) -> None:
    with pytest.raises(NotFound):
        await item_detail(store, "no-such-item")
