"""Properties of the naming rules over generated names: none raises, none is slow.

Names are built from the pieces release names are made of (words, numbers,
markers, junk, brackets, separators) and from arbitrary text, in paths of
up to four parts, for every library kind.

"Slow" is more than 1 ms of this thread's CPU time for one classify() call
(issue #32), with the garbage collector paused so that its pauses are not
counted against the parser. A name over the bound is measured twice more
and judged by its fastest run: a pathological name (a regular expression
backtracking) is slow every time, a loaded machine is not.
"""

from __future__ import annotations

import gc
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reelhouse.media.naming import EpisodeFile, ExtraFile, MovieFile, SkippedFile, classify, clear_caches

MAX_SECONDS = 0.001
EXAMPLES = 500
KINDS = ("movies", "tvshows", "mixed")
PIECES = (
    "Show", "Name", "The", "Movie", "S01E02", "s1e2", "1x02", "E05", "Ep", "Season", "Staffel", "Part", "cd1",
    "part2", "- A", "2010", "1999", "117", "2401", "001", "13", "03-04", "+02", "and", "1080p", "720p", "x264",
    "BluRay", "WEB-DL", "German", "DL", "TRUEFRENCH", "GRP", "3D", "HSBS", "sbs", "www.Site.com", "Fr", "v2",
    "2021.03.04", "04.03.2021", "[", "]", "(", ")", "{", "}", "#", "第12話", "시즌", "Сезон", "theme",
    "trailer", "sample", "extras", "00000000000", "9" * 40, "." * 30, "-" * 30, " " * 5,
)
SEPARATORS = (".", " ", "_", "-", " - ", "", "[", "]")
EXTENSIONS = (".mkv", ".mp4", ".disc", ".strm", ".mp3", ".nfo", "")

_piece = st.one_of(st.sampled_from(PIECES), st.text(max_size=12))
_name = st.lists(st.tuples(_piece, st.sampled_from(SEPARATORS)), max_size=14).map(
    lambda parts: "".join(piece + sep for piece, sep in parts)
)
_stem = st.one_of(_name, st.text(max_size=200))
_path = st.tuples(st.lists(_stem.filter(lambda s: "/" not in s), max_size=3), _stem, st.sampled_from(EXTENSIONS)).map(
    lambda p: "/".join([*p[0], p[1].replace("/", " ") + p[2]])
)


def _timed(path: str, kind: str) -> tuple[object, float]:
    """classify()'s answer and the CPU seconds this thread spent on it."""
    clear_caches()  # a folder name parsed once is remembered: time the first parse
    gc.disable()
    try:
        start = time.thread_time()
        result = classify(path, kind)
        return result, time.thread_time() - start
    finally:
        gc.enable()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=_path, kind=st.sampled_from(KINDS))
def test_no_name_makes_the_parser_raise_or_take_more_than_a_millisecond(path: str, kind: str) -> None:
    result, spent = _timed(path, kind)
    assert isinstance(result, (MovieFile, EpisodeFile, ExtraFile, SkippedFile))
    if not isinstance(result, SkippedFile):
        assert 0.0 <= result.confidence <= 1.0
    if spent > MAX_SECONDS:
        spent = min(spent, *(_timed(path, kind)[1] for _ in range(2)))
    assert spent <= MAX_SECONDS, f"{path!r} ({kind}) took {spent * 1000:.2f} ms"
