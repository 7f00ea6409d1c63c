"""A synthetic, deterministic media tree for the scan benchmarks.

``write_library(root, kind, videos, seed)`` writes one library's folder the
way users really keep them, with Kodi sidecars:

- movies: ``Title Words (Year)/Title Words (Year).mkv`` + ``movie.nfo``
  (title, year, plot, genres, studio, director, actors, ids) + ``poster.jpg``;
- tvshows: ``Show Name (Year)/tvshow.nfo`` + ``poster.jpg`` +
  ``season01-poster.jpg``..., and ``Season 01/Show Name - S01E01 - Episode
  Title.mkv`` + its episode ``.nfo``.

Video files are a few dummy bytes (the benchmark never probes them); every
image is the same tiny valid JPEG, made once with Pillow. The same seed
gives the same tree, byte for byte. ``walk_floor`` and ``insert_floor`` are
the "floor" the scan is compared with: a bare ``os.scandir`` walk and one
``sqlite3.executemany`` of one row per video file; ``measure_floor`` times
both, best of ``FLOOR_ROUNDS``.
"""

from __future__ import annotations

import io
import os
import random
import sqlite3
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

SEED = 20240607
KINDS = ("movies", "tvshows")
# An EBML header and padding: looks like the start of a Matroska file.
VIDEO_BYTES = bytes.fromhex("1a45dfa3") + bytes(60)
POSTER_SIZE = (20, 30)
EPISODES_PER_SEASON = (6, 24)
SEASONS_PER_SHOW = (1, 6)

WORDS = (
    "the last night city dark blue river house dead love war star man woman "
    "king queen lost secret black white red green silent iron golden shadow "
    "empire world story girl boy summer winter fire ice stone heart road "
    "home ghost dream wild storm sea sky sun moon brother sister mother "
    "father island forest garden mountain edge light time code zero one"
).split()
GENRES = ("Drama", "Comedy", "Thriller", "Science Fiction", "Horror", "Romance", "Documentary", "Animation")
STUDIOS = ("Northlight Pictures", "Blue Harbor", "Iron Gate Films", "Paper Moon", "Eastwind")
FIRST_NAMES = ("Anna", "Ben", "Chloe", "David", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas")
LAST_NAMES = ("Moreau", "Okafor", "Lindqvist", "Tanaka", "Silva", "Novak", "Keller", "Haddad")
EPISODE_TITLES = ("Pilot", "Reunion", "The Return", "Homecoming", "Finale", "Secrets", "Exodus", "Legacy")
FLOOR_ROUNDS = 3
RATINGS = ("G", "PG", "PG-13", "R", "TV-14", "TV-MA")


@dataclass(frozen=True, slots=True)
class TreeStats:
    """What was written under one root."""

    videos: int
    files: int
    directories: int


@cache
def poster_jpeg() -> bytes:
    """The one tiny valid JPEG every image in the tree is (a few hundred bytes)."""
    from PIL import Image  # only the generator needs Pillow

    buffer = io.BytesIO()
    Image.new("RGB", POSTER_SIZE, (40, 70, 110)).save(buffer, "JPEG", quality=40)
    return buffer.getvalue()


def write_library(root: Path, kind: str, videos: int, seed: int = SEED) -> TreeStats:
    """Write a ``kind`` library with exactly ``videos`` video files under ``root``.

    ``root`` is created; existing files in it are overwritten. Raises
    ``ValueError`` for an unknown kind, ``OSError`` when the disk refuses.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    root.mkdir(parents=True, exist_ok=True)
    writer = _Writer(root, random.Random(f"{seed}:{kind}:{videos}"))
    if kind == "movies":
        writer.movies(videos)
    else:
        writer.series(videos)
    return TreeStats(videos=writer.videos, files=writer.files, directories=writer.directories)


class _Writer:
    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = root
        self.rng = rng
        self.videos = self.files = self.directories = 0
        self._names: set[str] = set()

    def movies(self, count: int) -> None:
        for _ in range(count):
            title, year = self._unique_name()
            folder = self._mkdir(self.root / f"{title} ({year})")
            self._video(folder / f"{title} ({year}).mkv")
            self._text(folder / "movie.nfo", _movie_nfo(self.rng, title, year))
            self._image(folder / "poster.jpg")

    def series(self, count: int) -> None:
        while self.videos < count:
            show, year = self._unique_name()
            folder = self._mkdir(self.root / f"{show} ({year})")
            self._text(folder / "tvshow.nfo", _show_nfo(self.rng, show, year))
            self._image(folder / "poster.jpg")
            for season in range(1, self.rng.randint(*SEASONS_PER_SHOW) + 1):
                if self.videos >= count:
                    break
                self._image(folder / f"season{season:02d}-poster.jpg")
                self._season(folder, show, season, count)

    def _season(self, show_folder: Path, show: str, season: int, count: int) -> None:
        folder = self._mkdir(show_folder / f"Season {season:02d}")
        for episode in range(1, self.rng.randint(*EPISODES_PER_SEASON) + 1):
            if self.videos >= count:
                return
            title = self.rng.choice(EPISODE_TITLES)
            stem = f"{show} - S{season:02d}E{episode:02d} - {title}"
            self._video(folder / f"{stem}.mkv")
            self._text(folder / f"{stem}.nfo", _episode_nfo(self.rng, title, season, episode))

    def _unique_name(self) -> tuple[str, int]:
        while True:
            words = self.rng.randint(1, 4)
            title = " ".join(self.rng.choice(WORDS).capitalize() for _ in range(words))
            year = self.rng.randint(1930, 2025)
            if f"{title} ({year})" not in self._names:
                self._names.add(f"{title} ({year})")
                return title, year

    def _mkdir(self, path: Path) -> Path:
        path.mkdir(exist_ok=True)
        self.directories += 1
        return path

    def _video(self, path: Path) -> None:
        path.write_bytes(VIDEO_BYTES)
        self.videos += 1
        self.files += 1

    def _text(self, path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8")
        self.files += 1

    def _image(self, path: Path) -> None:
        path.write_bytes(poster_jpeg())
        self.files += 1


def _people(rng: random.Random, count: int) -> list[str]:
    return [f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}" for _ in range(count)]


def _plot(rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(25, 60)))
    return words.capitalize() + "."


def _actors(rng: random.Random) -> str:
    return "".join(
        f"  <actor>\n    <name>{escape(name)}</name>\n    <role>{rng.choice(WORDS).capitalize()}</role>\n"
        f"    <order>{order}</order>\n  </actor>\n"
        for order, name in enumerate(_people(rng, rng.randint(2, 5)))
    )


def _movie_nfo(rng: random.Random, title: str, year: int) -> str:
    genres = "".join(f"  <genre>{g}</genre>\n" for g in rng.sample(GENRES, 2))
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>\n<movie>\n'
        f"  <title>{escape(title)}</title>\n  <originaltitle>{escape(title)}</originaltitle>\n"
        f"  <year>{year}</year>\n  <premiered>{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}</premiered>\n"
        f"  <plot>{_plot(rng)}</plot>\n  <runtime>{rng.randint(80, 170)}</runtime>\n"
        f"  <mpaa>{rng.choice(RATINGS)}</mpaa>\n{genres}  <studio>{rng.choice(STUDIOS)}</studio>\n"
        f"  <director>{_people(rng, 1)[0]}</director>\n"
        f'  <uniqueid type="imdb" default="true">tt{rng.randint(1_000_000, 9_999_999)}</uniqueid>\n'
        f'  <uniqueid type="tmdb">{rng.randint(1, 999_999)}</uniqueid>\n'
        f"{_actors(rng)}</movie>\n"
    )


def _show_nfo(rng: random.Random, show: str, year: int) -> str:
    genres = "".join(f"  <genre>{g}</genre>\n" for g in rng.sample(GENRES, 2))
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>\n<tvshow>\n'
        f"  <title>{escape(show)}</title>\n  <year>{year}</year>\n  <plot>{_plot(rng)}</plot>\n"
        f"  <mpaa>{rng.choice(RATINGS)}</mpaa>\n{genres}  <studio>{rng.choice(STUDIOS)}</studio>\n"
        f'  <uniqueid type="tvdb" default="true">{rng.randint(70_000, 450_000)}</uniqueid>\n'
        f"{_actors(rng)}</tvshow>\n"
    )


def _episode_nfo(rng: random.Random, title: str, season: int, episode: int) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>\n<episodedetails>\n'
        f"  <title>{escape(title)}</title>\n  <season>{season}</season>\n  <episode>{episode}</episode>\n"
        f"  <plot>{_plot(rng)}</plot>\n  <aired>{rng.randint(1990, 2025)}-{rng.randint(1, 12):02d}-"
        f"{rng.randint(1, 28):02d}</aired>\n  <director>{_people(rng, 1)[0]}</director>\n</episodedetails>\n"
    )


def walk_floor(root: Path) -> tuple[list[str], float]:
    """(video file paths, seconds) of a bare recursive ``os.scandir`` walk of ``root``."""
    started = time.perf_counter()
    videos: list[str] = []
    pending = [os.fspath(root)]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.name.endswith(".mkv"):
                    videos.append(entry.path)
    return videos, time.perf_counter() - started


def insert_floor(database: Path, paths: list[str]) -> float:
    """Seconds to insert one row per path with one ``executemany`` into a fresh WAL database."""
    database.unlink(missing_ok=True)
    started = time.perf_counter()
    connection = sqlite3.connect(database)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(
            "CREATE TABLE media_file (id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL,"
            " directory TEXT NOT NULL, name TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER NOT NULL)"
        )
        rows = ((p, os.path.dirname(p), os.path.basename(p), len(VIDEO_BYTES), 0) for p in paths)
        with connection:
            connection.executemany(
                "INSERT INTO media_file (path, directory, name, size, mtime_ms) VALUES (?, ?, ?, ?, ?)", rows
            )
    finally:
        connection.close()
    return time.perf_counter() - started


def measure_floor(root: Path, database: Path) -> dict[str, Any]:
    """Best of ``FLOOR_ROUNDS`` (walk + insert) over the tree at ``root``."""
    best: tuple[float, float, int] | None = None
    for _ in range(FLOOR_ROUNDS):
        paths, walk = walk_floor(root)
        insert = insert_floor(database, paths)
        if best is None or walk + insert < best[0] + best[1]:
            best = (walk, insert, len(paths))
    assert best is not None
    walk, insert, videos = best
    return {
        "videos": videos,
        "walk_seconds": round(walk, 3),
        "insert_seconds": round(insert, 3),
        "floor_seconds": round(walk + insert, 3),
        "floor_files_per_second": round(videos / (walk + insert)),
    }
