"""Release-style library paths, as download tools leave them (naming_speed.py).

Deterministic for a seed. Every title, group and site is made up from the
word lists below. The shapes are the ones issue #32 lists: dotted and
underscored release names with language, edition, source and codec tags,
groups with spaces, site and uploader prefixes, years in series names, bare
and three- or four-digit episode numbers, multi-episode files, anime
fansub names with absolute numbers, season packs in other languages,
obfuscated files inside their release folder, parts, 3D tags and samples.
"""

from __future__ import annotations

import random

WORDS = (
    "copper sky glass orchard harbor lights paper kites quiet acres night ferry iron lantern silver "
    "tide hollow crown ember field winter signal broken compass velvet storm distant shore hidden "
    "valley amber road falling stars northern wake crimson gate lost harbor"
).split()
GROUPS = ("GRP", "NOVA", "Kestrel", "FLUX0", "ZeroDay", "Night Owls", "PaperCrane", "LtS")
FANSUBS = ("Lantern", "Kitsu-Subs", "Moonlit", "AOZ")
SITES = ("[ www.FakeSite.com ] - ", "www.ExampleTracker.org - ", "[www.NoSuchSite.cc]", "Fr - ", "")
TAGS = (
    "1080p.BluRay.x264", "720p.HDTV.x264", "2160p.WEB-DL.DDP5.1.HDR.H.265", "German.DL.1080p.WEB.h264",
    "TRUEFRENCH.720p.BluRay", "MULTi.1080p.BluRay.x265", "Extended.1080p.BRRip", "iNTERNAL.720p.WEB",
    "NORDiC.1080p.WEB-DL", "Edition.Collector.1080p.BluRay",
)
SEASON_WORDS = ("Season", "Saison", "Staffel", "Temporada", "Stagione", "S")


def _title(rng: random.Random, words: int | None = None) -> list[str]:
    return [rng.choice(WORDS).capitalize() for _ in range(words or rng.randint(1, 4))]


def _movie(rng: random.Random) -> list[tuple[str, str]]:
    title, year = _title(rng), rng.randint(1950, 2025)
    release = ".".join([*title, str(year), rng.choice(TAGS)]) + "-" + rng.choice(GROUPS)
    shape = rng.random()
    if shape < 0.35:
        return [(rng.choice(SITES) + release + ".mkv", "movies")]
    if shape < 0.55:
        return [(f"{release}/{release}.mkv", "movies"), (f"{release}/Sample/sample-{release.lower()}.mkv", "movies")]
    if shape < 0.7:  # obfuscated file in its release folder
        return [(f"{release}/{rng.randrange(16**10):010x}.mkv", "movies")]
    if shape < 0.8:
        spaced = " ".join(title)
        return [(f"{spaced} {year} ({rng.choice(('BD 1080p', 'WEB 720p', 'DVDRip'))}).mkv", "movies")]
    if shape < 0.9:
        return [(f"{release}/{release}.cd{part}.avi", "movies") for part in (1, 2)]
    return [(".".join([*title, str(year), "3D", rng.choice(("HSBS", "SBS", "H-OU")), "1080p"]) + ".mkv", "movies")]


def _episode_name(rng: random.Random, show: list[str], season: int, episode: int) -> str:
    dotted = ".".join(show)
    tag, group = rng.choice(TAGS), rng.choice(GROUPS)
    shape = rng.random()
    if shape < 0.3:
        return f"{dotted}.S{season:02d}E{episode:02d}.{tag}-{group}.mkv"
    if shape < 0.4:
        return f"{dotted}.{rng.randint(1990, 2020)}.S{season:02d}E{episode:02d}.{tag}-{group}.mkv"
    if shape < 0.5:
        return f"{dotted.lower()}.{season}{episode:02d}.hdtv-{group.lower()}.mp4"
    if shape < 0.6:
        return f"{dotted}.{episode:02d}.{rng.choice(WORDS).capitalize()}.720p.mkv"
    if shape < 0.7:
        return f"{dotted}.S{season:02d}E{episode:02d}+{episode + 1:02d}.{tag}.mkv"
    if shape < 0.8:
        return f"{rng.choice(SITES)}{dotted}.S{season:02d}E{episode:02d}.{tag}.mkv"
    if shape < 0.9:
        return f"{' '.join(show)} - S{season:02d}E{episode:02d} - 1080p part{rng.randint(1, 2)}.mkv"
    return f"{'_'.join(show)}_{episode:03d}.mkv"


def _series(rng: random.Random) -> list[tuple[str, str]]:
    show = _title(rng, rng.randint(1, 3))
    shape = rng.random()
    paths: list[str] = []
    if shape < 0.2:  # anime: absolute numbers, or a season before the number
        group = rng.choice(FANSUBS)
        name = " ".join(show)
        form = rng.choice(("{name} - {number:02d}", "{name} S2 - {number:02d}", "{name} {number:02d}"))
        for number in range(1, rng.randint(12, 40)):
            paths.append(f"{name}/[{group}] {form.format(name=name, number=number)} [1080p].mkv")
        return [(path, "tvshows") for path in paths]
    if shape < 0.35:  # one release folder per episode, obfuscated files
        for episode in range(1, rng.randint(4, 12)):
            folder = f"{'.'.join(show)}.S01E{episode:02d}.720p.WEB-{rng.choice(GROUPS)}"
            paths.append(f"{folder}/{rng.randint(100000, 999999)}_{episode:02d}.mkv")
        return [(path, "tvshows") for path in paths]
    folder = " ".join(show)
    for season in range(1, rng.randint(2, 5)):
        word = rng.choice(SEASON_WORDS)
        season_folder = f"S{season:02d}" if word == "S" else rng.choice((f"{word} {season}", f"{season}"))
        for episode in range(1, rng.randint(6, 14)):
            paths.append(f"{folder}/{season_folder}/{_episode_name(rng, show, season, episode)}")
    return [(path, "tvshows") for path in paths]


def release_paths(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` (path, library kind) pairs of release-style names."""
    rng = random.Random(seed)
    pairs: list[tuple[str, str]] = []
    while len(pairs) < count:
        pairs.extend(_movie(rng) if rng.random() < 0.75 else _series(rng))
    return pairs[:count]
