"""A synthetic catalogue for api_load.py, written straight into a Store in bulk.

``fill_catalog(store, items, media_root, posters)`` writes exactly ``items``
item rows into a migrated, empty store, in two libraries:

- *Films* (about a third of the items): movies, about 4 % with a second
  version (a Movie row with ``version_of``), about 8 % with a trailer (a
  Video row with ``owner_id`` and ``extra_type``);
- *Shows* (the rest): series of 1 to 6 seasons of 6 to 16 episodes (the
  last series is cut so the total is exact).

Around them, as the scanner writes them (see tests/catalog_factory.py):
genres, studios and tags (``item_values``), people and credits, one media
source per video with a video, an audio and sometimes a subtitle stream,
and primary images (plus some backdrops) whose paths are the real JPEG
files ``write_posters`` made, with their true tag (content hash), size and
mtime. Libraries have scans suspended and the real-time monitor off, so
the server under test never scans them.

Rows go in with ``Store.transaction`` of ``executemany`` statements, one
transaction per ``BATCH_ITEMS`` items (parents before children); the search
tables are filled by the migrations' triggers as the rows go in. Everything
is deterministic for a given ``items`` and ``seed``.

It returns a :class:`CatalogSample`: the library ids, row counts per table
and what the scenarios request (item ids for details, items with a poster,
search queries made of words that occur in the names).
"""

from __future__ import annotations

import base64
import calendar
import hashlib
import io
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reelhouse.storage import Statement, Store
from reelhouse.storage.catalog import name_key

SEED = 20_240_601
BATCH_ITEMS = 5_000
MOVIE_SHARE = 0.33
VERSION_SHARE = 0.04
TRAILER_SHARE = 0.08
SUBTITLE_SHARE = 0.3
BACKDROP_SHARE = 0.3
EPISODE_IMAGE_SHARE = 0.5
PEOPLE_PER_ITEM = 0.2
MOVIE_CAST = 5
SERIES_CAST = 4
DETAIL_SAMPLE = 1_000
IMAGE_SAMPLE = 50
POSTER_SIZE = (600, 900)
START_MS = 1_600_000_000_000
TICKS_PER_MINUTE = 600_000_000
LIBRARY_OPTIONS = json.dumps({"realtimeMonitor": False, "scansSuspended": True, "remoteAllowedHosts": [],
                              "mediaInfoTiming": "playback"}, sort_keys=True)

GENRES = ("Drama", "Comedy", "Action", "Thriller", "Science Fiction", "Romance", "Horror", "Documentary",
          "Animation", "Crime", "Adventure", "Fantasy", "Mystery", "Family", "War", "Western", "Music", "History")
STUDIOS = tuple(f"{a} {b}" for a in ("Northern", "Silver", "Blue", "Golden", "Red", "Iron", "Open", "Grand")
                for b in ("Pictures", "Studios", "Films", "Media", "Entertainment"))
TAGS = ("based on novel", "heist", "time travel", "coming of age", "road trip", "dystopia", "small town",
        "true story", "revenge", "friendship", "space", "courtroom", "sequel", "remake", "cult")
RATINGS = ("G", "PG", "PG-13", "R", "NC-17", "TV-14", "TV-MA", None)
LANGUAGES = ("en", "en", "en", "fr", "de", "ja", "es", "it", "ko")
WORDS = (
    "Silent", "Harbor", "Midnight", "Protocol", "Crimson", "Garden", "Last", "Summer", "Broken", "Arrow",
    "Distant", "Shore", "Iron", "Kingdom", "Hidden", "Valley", "Burning", "Sky", "Frozen", "River", "Golden",
    "Hour", "Lost", "Empire", "Shadow", "Dancer", "Paper", "Moon", "Electric", "Dreams", "Wild", "Heart",
    "Glass", "Tower", "Secret", "Orchard", "Northern", "Lights", "Stolen", "Letters", "Velvet", "Storm",
    "Quiet", "Revolution", "Emerald", "City", "Falling", "Stars", "Hollow", "Crown", "Winter", "Station",
    "Copper", "Canyon", "Endless", "Night", "Scarlet", "Thread", "Ghost", "Signal", "Autumn", "Promise",
    "Savage", "Coast", "Marble", "Saints", "Neon", "Desert", "Violet", "Hours", "Black", "Meridian",
)
FIRST_NAMES = ("James", "Maria", "Akira", "Sofia", "Liam", "Chloe", "Mateo", "Aisha", "Noah", "Elena", "Ravi",
               "Hannah", "Lucas", "Yuki", "Omar", "Grace", "Felix", "Ingrid", "Diego", "Nadia", "Oscar", "Priya",
               "Hugo", "Zoe", "Tomas", "Leila", "Victor", "Mei", "Samuel", "Astrid")
LAST_NAMES = ("Carter", "Okafor", "Tanaka", "Rossi", "Novak", "Larsen", "Moreau", "Silva", "Kowalski", "Haddad",
              "Fischer", "Brennan", "Castillo", "Nakamura", "Lindqvist", "Petrov", "Dubois", "Mendes", "Keller",
              "Ahmed", "Sullivan", "Varga", "Osei", "Yamamoto", "Costa", "Becker", "Reyes", "Johansson", "Kim",
              "Abbott")

ITEM_COLUMNS = (
    "id", "library_id", "type", "parent_id", "series_id", "season_id", "owner_id", "extra_type", "version_of",
    "path", "dir_path", "name", "sort_name", "name_key", "original_title", "original_language", "production_year",
    "premiere_date", "index_number", "parent_index_number", "community_rating", "critic_rating",
    "official_rating", "overview", "tagline", "runtime_ticks", "date_created", "date_modified", "file_size",
    "file_mtime", "has_nfo", "provider_ids",
)
ITEMS_SQL = f"INSERT INTO items ({', '.join(ITEM_COLUMNS)}) VALUES ({', '.join('?' * len(ITEM_COLUMNS))})"
VALUES_SQL = "INSERT INTO item_values (item_id, kind, value, position) VALUES (?, ?, ?, ?)"
PEOPLE_SQL = "INSERT INTO people (id, name, sort_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
CREDITS_SQL = "INSERT INTO credits (item_id, person_id, kind, role, sort_order) VALUES (?, ?, ?, ?, ?)"
SOURCES_SQL = ("INSERT INTO media_sources (id, item_id, path, container, size, bitrate, mtime, runtime_ticks,"
               " probed_at, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)")
STREAMS_SQL = ("INSERT INTO media_streams (source_id, idx, type, codec, language, width, height, channels,"
               " is_default, is_external, external_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
IMAGES_SQL = ("INSERT INTO images (item_id, kind, idx, path, tag, width, height, size, mtime, source)"
              " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'local')")
LIBRARY_SQL = ("INSERT INTO libraries (id, name, collection_type, options, created_at, updated_at)"
               " VALUES (?, ?, ?, ?, ?, ?)")
LIBRARY_PATH_SQL = "INSERT INTO library_paths (library_id, path, position) VALUES (?, ?, 0)"


@dataclass(frozen=True, slots=True)
class Poster:
    """A real JPEG on disk and what the images table says of it."""

    path: str
    tag: str
    width: int
    height: int
    size: int
    mtime_ms: int


@dataclass(frozen=True, slots=True)
class CatalogSample:
    """What fill_catalog wrote, and what the scenarios ask for."""

    movies_library: str
    shows_library: str
    films_top_level: int  # movies and their versions: the Films library's top level
    counts: dict[str, int]
    detail_ids: list[str]
    image_items: list[tuple[str, str]]  # (item id, primary image tag)
    search_queries: list[str]
    genres: tuple[str, ...]
    seconds: float


def write_posters(directory: Path, count: int = 6) -> list[Poster]:
    """``count`` small, distinct JPEG posters (gradients with noise), written once."""
    from PIL import Image, ImageDraw

    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    posters = []
    for n in range(count):
        width, height = POSTER_SIZE
        image = Image.effect_noise((width, height), 40 + 10 * n).convert("RGB")
        draw = ImageDraw.Draw(image, "RGBA")
        for y in range(0, height, 6):
            shade = (rng.randrange(256), 80 + y * 150 // height, 255 - y * 200 // height, 110)
            draw.rectangle((0, y, width, y + 6), fill=shade)
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=85)
        data = buffer.getvalue()
        path = directory / f"poster-{n}.jpg"
        path.write_bytes(data)
        posters.append(Poster(
            path=str(path), tag=hashlib.sha256(data).hexdigest()[:16], width=width, height=height,
            size=len(data), mtime_ms=path.stat().st_mtime_ns // 1_000_000,
        ))  # fmt: skip
    return posters


def _new_id(text: str) -> str:
    """22 URL-safe characters, like the scanner's ids."""
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(slots=True)
class _Batch:
    """Rows of one transaction, per table."""

    items: list[tuple[Any, ...]] = field(default_factory=list)
    values: list[tuple[Any, ...]] = field(default_factory=list)
    credits: list[tuple[Any, ...]] = field(default_factory=list)
    sources: list[tuple[Any, ...]] = field(default_factory=list)
    streams: list[tuple[Any, ...]] = field(default_factory=list)
    images: list[tuple[Any, ...]] = field(default_factory=list)

    def statements(self) -> list[Statement]:
        pairs = ((ITEMS_SQL, self.items), (VALUES_SQL, self.values), (CREDITS_SQL, self.credits),
                 (SOURCES_SQL, self.sources), (STREAMS_SQL, self.streams), (IMAGES_SQL, self.images))
        return [Statement(sql, many=rows) for sql, rows in pairs if rows]


class _Generator:
    """Builds the rows; ``counts`` tallies every row written."""

    def __init__(self, media_root: Path, posters: list[Poster], people: list[str], seed: int) -> None:
        self.rng = random.Random(seed)
        self.root = media_root
        self.posters = posters
        self.people = people
        self.serial = 0
        self.batch = _Batch()
        self.counts: dict[str, int] = {}
        self.movies: list[str] = []
        self.versions = 0
        self.shows: list[str] = []
        self.episodes: list[str] = []
        self.titles: list[str] = []
        self.with_poster: list[tuple[str, str]] = []

    # -- names and values -------------------------------------------------------

    def title(self) -> str:
        words = self.rng.sample(WORDS, self.rng.choice((1, 2, 2, 3)))
        if self.rng.random() < 0.35:
            words.insert(0, "The")
        if self.rng.random() < 0.1:
            words.append(str(self.rng.randint(2, 4)))
        return " ".join(words)

    def _date_ms(self, year: int) -> int:
        return calendar.timegm((year, self.rng.randint(1, 12), self.rng.randint(1, 28), 12, 0, 0)) * 1000

    def _item(self, library: str, item_type: str, name: str, path: str, **columns: Any) -> str:
        self.serial += 1
        item_id = _new_id(f"bench-item:{self.serial}")
        created = START_MS + self.serial * 1_000
        year = columns.pop("year", None)
        sort_name = _sort_name(name)
        row = {
            "id": item_id, "library_id": library, "type": item_type, "path": path,
            "dir_path": path.rsplit("/", 1)[0], "name": name, "sort_name": sort_name, "name_key": name_key(sort_name),
            "production_year": year, "premiere_date": self._date_ms(year) if year else None,
            "date_created": created, "date_modified": created, "has_nfo": 1, "provider_ids": "{}", **columns,
        }  # fmt: skip
        self.batch.items.append(tuple(row.get(column) for column in ITEM_COLUMNS))
        return item_id

    def _values(self, item_id: str) -> None:
        genres = self.rng.sample(GENRES, self.rng.randint(1, 3))
        rows = [(item_id, "genre", g, n) for n, g in enumerate(genres)]
        rows.append((item_id, "studio", self.rng.choice(STUDIOS), 0))
        rows += [(item_id, "tag", t, n) for n, t in enumerate(self.rng.sample(TAGS, self.rng.randint(0, 2)))]
        self.batch.values.extend(rows)

    def _credits(self, item_id: str, cast: int) -> None:
        people = self.rng.sample(self.people, cast + 1)
        rows = [(item_id, person, "Actor", f"Role {n + 1}", n) for n, person in enumerate(people[:cast])]
        rows.append((item_id, people[cast], "Director", "", 0))
        self.batch.credits.extend(rows)

    def _media(self, item_id: str, path: str, runtime_minutes: int) -> None:
        source_id = _new_id(f"bench-source:{item_id}")
        height = self.rng.choice((480, 720, 1080, 1080, 1080, 2160))
        width = height * 16 // 9
        runtime = runtime_minutes * TICKS_PER_MINUTE
        self.batch.sources.append((source_id, item_id, path, "mkv", self.rng.randint(300, 9000) * 1_000_000,
                                   self.rng.randint(2, 40) * 1_000_000, START_MS, runtime, START_MS))
        self.batch.streams.append((source_id, 0, "Video", self.rng.choice(("h264", "hevc")), None, width, height,
                                   None, 1, 0, None))
        self.batch.streams.append((source_id, 1, "Audio", "aac", self.rng.choice(("eng", "fre", "ger")), None, None,
                                   6, 1, 0, None))
        if self.rng.random() < SUBTITLE_SHARE:
            self.batch.streams.append((source_id, 0, "Subtitle", "subrip", "eng", None, None, None, 0, 1,
                                       path.rsplit(".", 1)[0] + ".en.srt"))

    def _image(self, item_id: str, kind: str = "primary") -> str:
        poster = self.posters[self.rng.randrange(len(self.posters))]
        self.batch.images.append((item_id, kind, 0, poster.path, poster.tag, poster.width, poster.height,
                                  poster.size, poster.mtime_ms))
        return poster.tag

    # -- units --------------------------------------------------------------------

    def movie(self, library: str) -> int:
        """One movie with maybe a second version and a trailer; the items written."""
        name, year = self.title(), self.rng.randint(1930, 2024)
        folder = f"{self.root}/films/{name} ({year})-{self.serial}"
        path = f"{folder}/{name} ({year}).mkv"
        runtime = self.rng.randint(80, 180)
        movie_id = self._item(
            library, "Movie", name, path, year=year, original_language=self.rng.choice(LANGUAGES),
            original_title=self.title() if self.rng.random() < 0.1 else None,
            community_rating=round(self.rng.uniform(3, 9.5), 1), critic_rating=round(self.rng.uniform(10, 100)),
            official_rating=self.rng.choice(RATINGS), overview=f"A story of {name.lower()}.",
            tagline="Some things never change.", runtime_ticks=runtime * TICKS_PER_MINUTE,
        )  # fmt: skip
        self._values(movie_id)
        self._credits(movie_id, MOVIE_CAST)
        self._media(movie_id, path, runtime)
        self.with_poster.append((movie_id, self._image(movie_id)))
        if self.rng.random() < BACKDROP_SHARE:
            self._image(movie_id, "backdrop")
        self.movies.append(movie_id)
        self.titles.append(name)
        written = 1
        if self.rng.random() < VERSION_SHARE:
            version_path = f"{folder}/{name} ({year}) - 2160p.mkv"
            version_id = self._item(library, "Movie", name, version_path, year=year, version_of=movie_id,
                                    runtime_ticks=runtime * TICKS_PER_MINUTE)
            self._media(version_id, version_path, runtime)
            self.versions += 1
            written += 1
        if self.rng.random() < TRAILER_SHARE:
            trailer_path = f"{folder}/{name} ({year})-trailer.mkv"
            trailer_id = self._item(library, "Video", f"{name} Trailer", trailer_path, owner_id=movie_id,
                                    extra_type="Trailer")
            self._media(trailer_id, trailer_path, 2)
            written += 1
        return written

    def series(self, library: str, budget: int) -> int:
        """One series with seasons and episodes, at most ``budget`` items; the items written."""
        name, year = self.title(), self.rng.randint(1960, 2024)
        folder = f"{self.root}/shows/{name} ({year})-{self.serial}"
        series_id = self._item(
            library, "Series", name, folder, year=year, original_language=self.rng.choice(LANGUAGES),
            community_rating=round(self.rng.uniform(3, 9.5), 1), official_rating=self.rng.choice(RATINGS),
            overview=f"The saga of {name.lower()}.",
        )  # fmt: skip
        self._values(series_id)
        self._credits(series_id, SERIES_CAST)
        self.with_poster.append((series_id, self._image(series_id)))
        self.shows.append(series_id)
        self.titles.append(name)
        written = 1
        for season in range(1, self.rng.randint(1, 6) + 1):
            if written >= budget:
                break
            season_folder = f"{folder}/Season {season:02d}"
            season_id = self._item(library, "Season", f"Season {season}", season_folder, parent_id=series_id,
                                   series_id=series_id, index_number=season)
            self._image(season_id)
            written += 1
            written += self._episodes(library, name, series_id, season_id, season, budget - written)
        return written

    def _episodes(self, library: str, show: str, series_id: str, season_id: str, season: int, budget: int) -> int:
        count = min(self.rng.randint(6, 16), budget)
        for number in range(1, count + 1):
            name = self.title()
            path = f"{self.root}/shows/{series_id}/S{season:02d}E{number:02d} - {name}.mkv"
            episode_id = self._item(
                library, "Episode", name, path, parent_id=season_id, series_id=series_id, season_id=season_id,
                index_number=number, parent_index_number=season, runtime_ticks=45 * TICKS_PER_MINUTE,
                overview=f"{show}, season {season}, episode {number}.",
            )  # fmt: skip
            self._media(episode_id, path, 45)
            if self.rng.random() < EPISODE_IMAGE_SHARE:
                self._image(episode_id)
            self.episodes.append(episode_id)
        return count

    def take_batch(self) -> _Batch:
        batch, self.batch = self.batch, _Batch()
        for table in ("items", "values", "credits", "sources", "streams", "images"):
            self.counts[table] = self.counts.get(table, 0) + len(getattr(batch, table))
        return batch


def _sort_name(name: str) -> str:
    return name[4:] if name.startswith("The ") else name


def _people(count: int, rng: random.Random) -> list[tuple[str, str]]:
    """(id, name) of ``count`` people; names repeat with a number past the combinations."""
    names = [f"{first} {last}" for first in FIRST_NAMES for last in LAST_NAMES]
    rng.shuffle(names)
    people = []
    for n in range(count):
        name = names[n % len(names)] + ("" if n < len(names) else f" {n // len(names) + 1}")
        people.append((_new_id(f"bench-person:{n}"), name))
    return people


async def fill_catalog(store: Store, items: int, media_root: Path, posters: list[Poster],
                       seed: int = SEED) -> CatalogSample:  # fmt: skip
    """Write exactly ``items`` items and their rows (see the module docstring).

    The store must be migrated and hold no catalogue. Raises StoreError or
    IntegrityError from the store; a cancelled call leaves the batches
    already committed.
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    people = _people(max(50, int(items * PEOPLE_PER_ITEM)), rng)
    libraries = {"Films": _new_id("bench-library:films"), "Shows": _new_id("bench-library:shows")}
    await _write_libraries(store, libraries, media_root, [(pid, name) for pid, name in people],
                           Path(posters[0].path).parent)  # fmt: skip
    generator = _Generator(media_root, posters, [pid for pid, _ in people], seed)
    for batch in _batches(generator, items, libraries["Films"], libraries["Shows"]):
        await store.transaction(batch.statements())
    generator.counts.update({"people": len(people), "libraries": len(libraries)})
    return CatalogSample(
        movies_library=libraries["Films"],
        shows_library=libraries["Shows"],
        films_top_level=len(generator.movies) + generator.versions,
        counts=generator.counts,
        detail_ids=_detail_sample(generator, rng),
        image_items=rng.sample(generator.with_poster, min(IMAGE_SAMPLE, len(generator.with_poster))),
        search_queries=_search_queries(generator.titles, [name for _, name in people], rng),
        genres=GENRES,
        seconds=round(time.perf_counter() - started, 2),
    )


async def _write_libraries(store: Store, libraries: dict[str, str], media_root: Path,
                           people: list[tuple[str, str]], posters_dir: Path) -> None:  # fmt: skip
    statements = []
    for name, library_id in libraries.items():
        kind = "movies" if name == "Films" else "tvshows"
        root = media_root / name.lower()
        root.mkdir(parents=True, exist_ok=True)
        statements.append(Statement(LIBRARY_SQL, (library_id, name, kind, LIBRARY_OPTIONS, START_MS, START_MS)))
        statements.append(Statement(LIBRARY_PATH_SQL, (library_id, str(root))))
        # A second root holding the shared posters: an image is served only from inside its library.
        statements.append(Statement(LIBRARY_PATH_SQL.replace("0)", "1)"), (library_id, str(posters_dir))))
    rows = [(pid, name, name, START_MS, START_MS) for pid, name in people]
    statements.append(Statement(PEOPLE_SQL, many=rows))
    await store.transaction(statements)


def _batches(generator: _Generator, items: int, films: str, shows: str) -> Iterator[_Batch]:
    """Movies until their share is used, then series; a batch every ``BATCH_ITEMS`` items."""
    movie_items, written = round(items * MOVIE_SHARE), 0
    while written < items:
        if written < movie_items:
            written += generator.movie(films)
        else:
            written += generator.series(shows, items - written)
        if len(generator.batch.items) >= BATCH_ITEMS:
            yield generator.take_batch()
    if generator.batch.items:
        yield generator.take_batch()


def _detail_sample(generator: _Generator, rng: random.Random) -> list[str]:
    """Item ids for detail requests: half movies, a tenth series, the rest episodes."""
    wanted = {"movies": DETAIL_SAMPLE // 2, "shows": DETAIL_SAMPLE // 10, "episodes": DETAIL_SAMPLE * 2 // 5}
    sample = []
    for kind, count in wanted.items():
        pool = getattr(generator, kind)
        sample += rng.sample(pool, min(count, len(pool)))
    rng.shuffle(sample)
    return sample


def _search_queries(titles: list[str], people: list[str], rng: random.Random) -> list[str]:
    """What people type: whole titles, one word, a word's start, part of a word, a person's name."""
    queries = [rng.choice(titles) for _ in range(10)]
    queries += [w.lower() for w in rng.sample(WORDS, 10)]
    queries += [w[: rng.randint(3, 5)].lower() for w in rng.sample(WORDS, 8)]
    queries += [w[1:5].lower() for w in rng.sample(WORDS, 4)]
    queries += [rng.choice(people) for _ in range(6)]
    queries += [name.split()[0][:4] for name in rng.sample(people, 2)]
    return queries
