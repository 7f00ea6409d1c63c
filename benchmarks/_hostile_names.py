"""Names built to make a parser slow: long runs of digits, dots, dashes,
brackets and markers in every order, for the naming worst-case figure.

Deterministic for a seed, so two runs time the same names.
"""

from __future__ import annotations

import random

PIECES = (
    "Show", "Name", "The", "S01E02", "s1e2", "1x02", "E05", "Season", "Staffel", "Part", "cd1", "- A",
    "2010", "117", "2401", "001", "03-04", "+02", "and", "1080p", "x264", "WEB-DL", "German", "DL",
    "www.Site.com", "v2", "2021.03.04", "[", "]", "(", ")", "{", "}", "#", "第12話", "theme", "sample",
    "00000000000", "9" * 40, "." * 30, "-" * 30, " " * 5, "0" * 13, "S2", "2nd Season", "(2011", "part1",
)
SEPARATORS = (".", " ", "_", "-", " - ", "", "[", "]")
EXTENSIONS = (".mkv", ".mp4", ".disc", ".strm", ".mp3", ".nfo", "")
KINDS = ("movies", "tvshows", "mixed")


def _stem(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) + rng.choice(SEPARATORS) for _ in range(rng.randint(0, 14)))


def hostile_paths(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` (path, library kind) pairs of up to four parts each."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        folders = [_stem(rng) for _ in range(rng.randint(0, 3))]
        pairs.append(("/".join([*folders, _stem(rng) + rng.choice(EXTENSIONS)]), rng.choice(KINDS)))
    return pairs
