"""A small catalogue with one item for every filter and sort of GET /items.

``await sample_catalog(store)`` writes it and returns the ids by name.
Films (movies library): Arrival, blade runner 2049 (+ a 4K version),
Casablanca, Zodiac, Dune (two parts), Gone (missing), Remote Film (.strm),
#1 Cheerleader Camp. Shows (tvshows): Dark (seasons 1 and 2, one episode
directly under the series), Atlanta.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reelhouse.storage import Store
from tests.catalog_factory import CatalogFactory

DAY_MS = 86_400_000
YEAR_MS = 365 * DAY_MS


@dataclass
class Samples:
    films: str = ""
    shows: str = ""
    ids: dict[str, str] = field(default_factory=dict)
    people: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> str:
        return self.ids[name]

    def names(self, ids: list[str]) -> list[str]:
        by_id = {v: k for k, v in self.ids.items()}
        return [by_id[i] for i in ids]


def _year_ms(year: int) -> int:
    return (year - 1970) * YEAR_MS


async def sample_catalog(store: Store) -> Samples:
    cat = CatalogFactory(store)
    s = Samples(films=cat.library("Films", "movies"), shows=cat.library("Shows", "tvshows"))
    _films(cat, s)
    _shows(cat, s)
    await cat.flush()
    return s


def _films(cat: CatalogFactory, s: Samples) -> None:
    s.people["Amy Adams"] = cat.person("Amy Adams", image_tag="amytag")
    s.people["Denis Villeneuve"] = cat.person("Denis Villeneuve")
    s.people["Humphrey Bogart"] = cat.person("Humphrey Bogart")
    _arrival(cat, s)
    _blade_runner(cat, s)
    _more_films(cat, s)


def _arrival(cat: CatalogFactory, s: Samples) -> None:
    ids, people = s.ids, s.people
    a = ids["Arrival"] = cat.movie(
        s.films, "Arrival", production_year=2016, premiere_date=_year_ms(2016), community_rating=7.9,
        critic_rating=9.4, official_rating="PG-13", runtime_ticks=116 * 600_000_000, overview="Linguist.",
        tagline="Why are they here?", original_title="Story of Your Life", original_language="en",
        provider_ids={"Tmdb": "329865", "IMDB": "tt2543164"}, has_nfo=True, scrape_state="scraped",
        extra={
            "ratings": [{"source": "IMDb", "value": 7.9, "votes": 700000}, {"source": "rt", "value": 94, "max": 100}],
            "remoteTrailers": [{"url": "https://example.com/t", "name": "Trailer", "official": True},
                               {"url": "ftp://example.com/x"}],
            "recognizedTags": ["2160p"], "productionLocations": ["Canada"],
        },
        locked_fields=["Overview"],
    )  # fmt: skip
    cat.media(a, width=3840, height=2160, video_codec="hevc", audio_codec="eac3", hdr_format="dolbyVision",
              color_transfer="smpte2084", subtitles=[("subrip", "eng", False), ("subrip", "ger", True)],
              container="mkv", size=40_000_000_000)  # fmt: skip
    cat.image(a, "primary", tag="arrivalposter")
    cat.image(a, "backdrop", 0, tag="arrivalbd0", width=1920, height=1080)
    cat.image(a, "backdrop", 1, tag="arrivalbd1", extra={"cropHint": {"aspect": 1.0, "x": 0.5, "y": 0.5}})
    cat.image(a, "still", 0, tag="arrivalstill")
    cat.values(a, "genre", "Drama", "Science Fiction")
    cat.values(a, "studio", "Paramount", "FilmNation")
    cat.values(a, "tag", "aliens")
    cat.values(a, "country", "United States")
    cat.credit(a, people["Amy Adams"], "Actor", "Louise Banks", 0)
    cat.credit(a, people["Denis Villeneuve"], "Director", "", 1)
    ids["Arrival Featurette"] = cat.extra(a, "Featurette", index_number=2)
    ids["Arrival Trailer"] = cat.extra(a, "Trailer", index_number=1)


def _blade_runner(cat: CatalogFactory, s: Samples) -> None:
    ids, people = s.ids, s.people
    b = ids["blade runner 2049"] = cat.movie(
        s.films, "blade runner 2049", production_year=2017, premiere_date=_year_ms(2017), community_rating=8.0,
        official_rating="R", runtime_ticks=164 * 600_000_000, overview="", product_code="BR-2049",
    )  # fmt: skip
    cat.media(b, width=1920, height=800, color_transfer="smpte2084", hdr_format="hdr10",
              subtitles=[("hdmv_pgs_subtitle", "fre", False)], container="mp4", size=20_000_000_000)  # fmt: skip
    cat.image(b, "primary", tag="bladeposter")
    cat.values(b, "genre", "science fiction")
    cat.values(b, "studio", "Warner")
    cat.credit(b, people["Denis Villeneuve"], "Director")
    ids["blade runner 2049 (4K)"] = cat.version(b, "blade runner 2049 (4K)", production_year=2017)
    ids["Blade Trailer"] = cat.extra(b, "Trailer")


def _more_films(cat: CatalogFactory, s: Samples) -> None:
    ids, people = s.ids, s.people
    c = ids["Casablanca"] = cat.movie(
        s.films, "Casablanca", production_year=1942, premiere_date=_year_ms(1942), community_rating=8.5,
        official_rating="pg", product_code="cas 001", scrape_state="identified", lock_data=True,
    )  # fmt: skip
    cat.media(c, width=720, height=480, video_codec="mpeg2video", audio_codec="mp2", container="ts", size=3_000_000_000)
    cat.values(c, "genre", "Drama", "Romance")
    cat.values(c, "studio", "Warner")
    cat.credit(c, people["Humphrey Bogart"], "Actor", "Rick", 0)
    ids["Casablanca Interview"] = cat.extra(c, "Interview")

    ids["Zodiac"] = cat.movie(s.films, "Zodiac", scrape_state="needsIdentify", product_code="Z 9")

    d = ids["Dune"] = cat.movie(
        s.films, "Dune", production_year=2021, community_rating=8.1, official_rating="PG-13",
        scrape_state="failed", probe_pending=True,
    )  # fmt: skip
    cat.media(d, width=3840, height=1600, color_transfer="arib-std-b67", hdr_format="hlg", container="mkv",
              size=50_000_000_000, audio_language="jpn")  # fmt: skip
    cat.image(d, "primary", tag="duneposter")
    cat.image(d, "logo", tag="dunelogo")
    cat.values(d, "studio", "Legendary")
    ids["Dune part 2"] = cat.part(d, 2)

    ids["Gone"] = cat.movie(s.films, "Gone", production_year=2010, missing=True, community_rating=5.0)
    r = ids["Remote Film"] = cat.movie(s.films, "Remote Film", production_year=2000, scrape_state="pending")
    cat.media(r, width=None, height=None, remote=True, probed=False, container="")
    ids["#1 Cheerleader Camp"] = cat.movie(
        s.films, "#1 Cheerleader Camp", production_year=2010, official_rating="NR", critic_rating=2.0,
    )  # fmt: skip


def _shows(cat: CatalogFactory, s: Samples) -> None:
    ids = s.ids
    dark = ids["Dark"] = cat.series(s.shows, "Dark", production_year=2017, premiere_date=_year_ms(2017),
                                    community_rating=8.7, official_rating="TV-MA")  # fmt: skip
    cat.image(dark, "primary", tag="darkposter")
    cat.values(dark, "genre", "Drama", "Mystery")
    s1 = ids["Dark S1"] = cat.season(dark, 1, name="Season 1")
    ids["Secrets"] = cat.episode(s1, 1, name="Secrets", premiere_date=_year_ms(2017))
    ids["Lies"] = cat.episode(s1, 2, name="Lies", premiere_date=_year_ms(2017) + DAY_MS)
    cat.media(ids["Secrets"], width=1920, subtitles=[("webvtt", "eng", True)])
    s2 = ids["Dark S2"] = cat.season(dark, 2, name="Season 2")
    ids["Ghosts"] = cat.episode(s2, 1, name="Ghosts")
    ids["Dark Special"] = cat.episode(dark, 9, name="Dark Special")
    atlanta = ids["Atlanta"] = cat.series(s.shows, "Atlanta", production_year=2016)
    a1 = ids["Atlanta S1"] = cat.season(atlanta, 1, name="Atlanta Season 1")
    ids["The Big Bang"] = cat.episode(a1, 1, name="The Big Bang", sort_name="Big Bang")
