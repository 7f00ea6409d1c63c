"""Micro-benchmark of the naming rules: classify() over realistic paths.

Generates a deterministic list of library-relative paths in the layouts
users really have (movie folders, release names, versions, stacks, extras,
samples, series with season folders, anime, dated shows, and the .nfo /
.jpg / .srt files a walk also meets), classifies each for its library kind
and prints one line of JSON: ``{"paths_per_second": ..., "paths": ...}``;
then the same for as many release-style paths as download tools leave
them (``_release_names.py``: ``release_paths_per_second``,
``release_cpu_paths_per_second`` and their ratio to the tidy set,
``release_vs_tidy``); then the slowest single classify() among
``--hostile`` names built to make a parser slow (``_hostile_names.py``:
``worst_case_ms``, of this thread's CPU time with the garbage collector
paused, the best of three runs of that name, against issue #32's bound of
1 ms: ``worst_case_within_1ms``). ``--guessit N`` also times guessit, when installed,
on N of the release-style paths (``ours_vs_guessit``).

The naming rules' memos are cleared before each round, so every round
starts cold like a fresh scan; the best of ``--rounds`` is reported, by
wall clock (``paths_per_second``) and by this process's CPU time
(``cpu_paths_per_second``, which other load on the machine does not skew).

Usage: PYTHONPATH=src python benchmarks/naming_speed.py [--paths N] [--rounds R]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from collections.abc import Callable

from _hostile_names import hostile_paths
from _release_names import release_paths
from reelhouse.media.naming import classify, clear_caches

DEFAULT_PATHS = 100_000
DEFAULT_ROUNDS = 5
DEFAULT_HOSTILE = 20_000
WORST_CASE_BOUND_MS = 1.0
SEED = 20240607

WORDS = (
    "the last night city dark blue river house dead love war star man woman "
    "king queen lost secret black white red green silent iron golden shadow "
    "empire world story girl boy summer winter fire ice stone heart road "
    "home ghost dream wild storm sea sky sun moon brother sister mother "
    "father island forest garden mountain edge light time code zero one"
).split()
EPISODE_TITLES = ("Pilot", "Reunion", "The Return", "Homecoming", "Finale", "Secrets", "Exodus", "Legacy")
GROUPS = ("GRP", "SPARKS", "NTb", "FLUX", "RARBG", "YIFY")
TAILS = ("1080p.BluRay.x264", "2160p.UHD.BluRay.x265.HDR", "720p.WEB-DL.DDP5.1.H.264", "1080p.WEBRip.AAC")
SIDECARS = (".nfo", ".jpg", ".en.srt", "-poster.jpg", "-fanart.jpg")
MOVIE_EXTS = (".mkv", ".mkv", ".mkv", ".mp4", ".avi", ".m2ts", ".strm")


def _title(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS).capitalize() for _ in range(rng.randint(1, 4)))


def _movie_paths(rng: random.Random) -> list[str]:
    title, year, ext = _title(rng), rng.randint(1930, 2025), rng.choice(MOVIE_EXTS)
    folder = f"{title} ({year})"
    shape = rng.random()
    if shape < 0.45:
        paths = [f"{folder}/{folder}{ext}"]
    elif shape < 0.55:
        paths = [f"{folder}/{folder} - 1080p{ext}", f"{folder}/{folder} - 4K{ext}"]
    elif shape < 0.60:
        paths = [f"{folder}/{folder} - cd1.avi", f"{folder}/{folder} - cd2.avi"]
    elif shape < 0.85:
        release = f"{title.replace(' ', '.')}.{year}.{rng.choice(TAILS)}-{rng.choice(GROUPS)}"
        paths = [f"{release}{ext}"] if rng.random() < 0.5 else [
            f"{release}/{release}.mkv", f"{release}/Sample/{release.lower()}-sample.mkv"
        ]
    else:
        paths = [f"Collections/{title} Collection/{folder}{ext}"]
    if rng.random() < 0.3:
        paths.append(f"{folder}/extras/Making of {rng.choice(WORDS)}.mkv")
        paths.append(f"{folder}/{folder}-trailer.mp4")
    paths.extend(f"{folder}/{folder}{rng.choice(SIDECARS)}" for _ in range(rng.randint(0, 3)))
    return paths


def _episode_name(rng: random.Random, show: str, season: int, episode: int) -> str:
    shape = rng.random()
    title = rng.choice(EPISODE_TITLES)
    if shape < 0.5:
        return f"{show} - S{season:02d}E{episode:02d} - {title}.mkv"
    if shape < 0.75:
        tail = rng.choice(TAILS)
        return f"{show.replace(' ', '.')}.S{season:02d}E{episode:02d}.{title}.{tail}-{rng.choice(GROUPS)}.mkv"
    if shape < 0.85:
        return f"{show} {season}x{episode:02d}.mp4"
    if shape < 0.92:
        return f"{show} - S{season:02d}E{episode:02d}-E{episode + 1:02d}.mkv"
    return f"{show} s{season}e{episode}.avi"


def _series_paths(rng: random.Random) -> list[str]:
    show, year = _title(rng), rng.randint(1990, 2025)
    folder = f"{show} ({year})" if rng.random() < 0.5 else show
    shape = rng.random()
    paths: list[str] = []
    if shape < 0.12:
        group = rng.choice(GROUPS)
        for number in range(1, rng.randint(12, 60)):
            paths.append(f"{folder}/[{group}] {show} - {number:03d} [1080p].mkv")
        return paths
    if shape < 0.17:
        for day in range(1, 29):
            paths.append(f"{folder}/Season {year}/{show} {year}.{rng.randint(1, 12):02d}.{day:02d}.mkv")
        return paths
    for season in range(1, rng.randint(2, 7)):
        season_folder = rng.choice((f"Season {season}", f"Season {season:02d}", f"S{season:02d}"))
        for episode in range(1, rng.randint(6, 24)):
            stem = _episode_name(rng, show, season, episode)
            paths.append(f"{folder}/{season_folder}/{stem}")
            if rng.random() < 0.3:
                paths.append(f"{folder}/{season_folder}/{stem.rsplit('.', 1)[0]}.nfo")
    paths.append(f"{folder}/Specials/{show} - S00E01 - Special.mkv")
    paths.append(f"{folder}/tvshow.nfo")
    return paths


def generate(count: int, seed: int = SEED) -> list[tuple[str, str]]:
    """``count`` (path, library kind) pairs, the same for the same seed."""
    rng = random.Random(seed)
    pairs: list[tuple[str, str]] = []
    while len(pairs) < count:
        roll = rng.random()
        # A series yields ~18x the paths of a movie: this mix is about 1/3
        # movie-library paths, 3/5 series paths, the rest mixed libraries.
        if roll < 0.88:
            pairs.extend((path, "movies") for path in _movie_paths(rng))
        elif roll < 0.98:
            pairs.extend((path, "tvshows") for path in _series_paths(rng))
        else:
            maker: Callable[[random.Random], list[str]] = rng.choice((_movie_paths, _series_paths))
            pairs.extend((path, "mixed") for path in maker(rng))
    return pairs[:count]


def measure(pairs: list[tuple[str, str]]) -> tuple[float, float]:
    """(wall, CPU) seconds to classify every pair once, from cold folder caches."""
    clear_caches()  # every memo of the naming rules: each round starts like a fresh scan
    wall, cpu = time.perf_counter(), time.process_time()
    for path, kind in pairs:
        classify(path, kind)
    return time.perf_counter() - wall, time.process_time() - cpu


def best(pairs: list[tuple[str, str]], rounds: int) -> tuple[int, int]:
    """(paths a second by wall clock, by CPU time) of the best of ``rounds``."""
    measured = [measure(pairs) for _ in range(rounds)]
    return round(len(pairs) / min(w for w, _ in measured)), round(len(pairs) / min(c for _, c in measured))


def _cpu_ms(path: str, kind: str) -> float:
    """This thread's CPU milliseconds for one cold classify(), the collector paused."""
    clear_caches()
    gc.disable()
    try:
        start = time.thread_time()
        classify(path, kind)
        return (time.thread_time() - start) * 1000
    finally:
        gc.enable()


def worst_case_ms(pairs: list[tuple[str, str]]) -> float:
    """The slowest name's best of three: a backtracking pattern is slow every time, a busy machine is not."""
    worst = 0.0
    for path, kind in pairs:
        spent = _cpu_ms(path, kind)
        if spent > worst:
            worst = max(worst, min(spent, _cpu_ms(path, kind), _cpu_ms(path, kind)))
    return worst


def guessit_cpu_rate(pairs: list[tuple[str, str]]) -> int | None:
    """guessit's paths a second (CPU time) on ``pairs``, None when it is not installed.

    guessit is not a dependency: ``pip install guessit`` into the venv to compare.
    """
    try:
        from guessit import guessit  # type: ignore[import-not-found]
    except ImportError:
        return None
    cpu = time.process_time()
    for path, kind in pairs:
        guessit(path, {"type": "episode" if kind == "tvshows" else "movie"})
    return round(len(pairs) / (time.process_time() - cpu))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=DEFAULT_PATHS)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--guessit", type=int, default=0, metavar="N",
                        help="also time guessit (if installed) on the first N release-style paths")
    parser.add_argument("--hostile", type=int, default=DEFAULT_HOSTILE, metavar="N",
                        help="names built to be slow, for the worst case")
    args = parser.parse_args()
    pairs = generate(args.paths)
    release = release_paths(args.paths, SEED)
    tidy_wall, tidy_cpu = best(pairs, args.rounds)
    release_wall, release_cpu = best(release, args.rounds)
    figures: dict[str, object] = {
        "paths_per_second": tidy_wall,
        "paths": len(pairs),
        # CPU time of this process only: steadier on a shared machine.
        "cpu_paths_per_second": tidy_cpu,
        "release_paths_per_second": release_wall,
        "release_cpu_paths_per_second": release_cpu,
        "release_vs_tidy": round(release_cpu / tidy_cpu, 2),
    }
    worst = worst_case_ms(hostile_paths(args.hostile, SEED))
    figures.update(worst_case_ms=round(worst, 3), worst_case_within_1ms=worst <= WORST_CASE_BOUND_MS)
    if args.guessit:
        sample = release[: args.guessit]
        theirs = guessit_cpu_rate(sample)
        if theirs is not None:
            ours = round(len(sample) / measure(sample)[1])
            figures.update(guessit_cpu_paths_per_second=theirs, ours_vs_guessit=round(ours / theirs, 1))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
