"""Text helpers shared by the naming rules: brackets, release names, years.

Private to ``reelhouse.media.naming``. Every function is pure and works on
``str`` only; nothing here touches the file system.

A *release-style* text is one without spaces that uses dots or underscores
as word separators (``Blade.Runner.2049.2017.1080p.BluRay.x264-GRP``).
Its separators become spaces, except inside dotted acronyms (``S.W.A.T.``,
``E.T.``). *Release junk* is the technical tail of such names (resolution,
source, codecs, audio, HDR flags, repack markers): a title is cut at its
first junk word.
"""

from __future__ import annotations

import datetime
import functools
import re

from reelhouse.media.naming._3d import strip_3d

YEAR_MIN = 1880
# A bare year (not in brackets) later than this is taken as part of the
# title (`Blade Runner 2049`), read once at import so a process never
# changes its mind mid-scan.
LATEST_BARE_YEAR = datetime.date.today().year + 5
LATEST_EXPLICIT_YEAR = 2199
# Words repeat across a library (titles, codecs, groups): remember verdicts.
JUNK_CACHE_SIZE = 16384

_BRACKETS_RE = re.compile(r"\[([^\[\]]*)\]|\{([^{}]*)\}")
_YEAR_TEXT_RE = re.compile(r"\s*(\d{4})\s*")
_RELEASE_TOKEN_RE = re.compile(r"(?:[A-Za-z]\.){2,}(?:[A-Za-z](?![A-Za-z0-9]))?|[^._\s]+")
_ACRONYM_END_RE = re.compile(r"(?:^|[^A-Za-z])(?:[A-Za-z]\.){2,}$")
_ACRONYM_END_SPAN = 5  # a non-letter (or the start), then two letters with their dots
_EDGE_CHARS = " \t-_,:;~+|"

# Whole words (case-insensitive) that only appear in the technical tail of
# a release name. Words that are also common in titles ("web", "hd",
# "cam", "extended") are deliberately absent.
JUNK_WORDS = frozenset(
    {
        "4k", "8k", "uhd", "fhd", "2k", "ultrahd", "uhdtv", "uhdrip", "fullhd",
        "bluray", "blu-ray", "bdrip", "brrip", "bdremux", "remux", "bd25", "bd50",
        "webrip", "web-rip", "webdl", "web-dl", "hdtv", "pdtv", "sdtv", "dsr",
        "hdrip", "dvdrip", "dvdscr", "dvd5", "dvd9", "hddvd", "vhsrip", "hdcam", "dvd", "dvdr",
        "telesync", "hdts", "hdtc", "camrip", "telecine", "dvdscreener", "bdscr", "webscr",
        "amzn", "dsnp", "hmax", "atvp", "pcok", "hulu", "nf", "nflx",
        "x264", "x265", "h264", "h265", "hevc", "avc", "xvid", "divx", "av1",
        "vp9", "mpeg2", "10bit", "8bit", "hi10p", "10-bit",
        "aac", "ac3", "eac3", "dts", "dtshd", "dts-hd", "truehd", "atmos",
        "flac", "mp3", "opus", "ddp", "dd", "dd+", "lpcm", "dts-x", "dtsx", "dts-ma", "dtsma",
        "hdr", "hdr10", "hdr10+", "hdr10plus", "dovi", "dv", "dolbyvision", "sdr", "hlg",
        "proper", "repack", "rerip", "internal", "readnfo", "nfofix",
        "subbed", "dubbed", "multisubs", "multi", "ntsc", "secam",
    }
)
# Release tags: languages, dubbing and editions. Unlike junk words they are
# also words of titles (`The German Doctor`, `Extended Family`), so they
# count as the release's only right before its junk; language tags also
# at the very end of a name. `BD` and `WEB` are sources written apart from
# their junk (`(BD 1080p)`).
LANGUAGE_TAGS = frozenset(
    {
        "german", "french", "truefrench", "vostfr", "vff", "vfq", "vfi", "vf", "vf2", "vost", "subfrench",
        "ita", "eng", "spanish", "castellano", "latino", "nordic", "swesub", "dksubs", "nlsubs",
        "dl", "dual", "ac3d", "dtsd", "ld", "md", "vostfr-en", "multilang", "multi-lang", "dubbed", "subbed",
    }
)
RELEASE_TAGS = LANGUAGE_TAGS | frozenset(
    {
        "english", "french", "italian", "dutch", "flemish", "swedish", "danish", "finnish", "norwegian",
        "polish", "russian", "rus", "ukr", "hindi", "japanese", "korean", "chinese", "portuguese",
        "sub", "subs", "bd", "web", "hd", "sd", "ws", "fs", "uncut", "unrated", "extended", "remastered",
        "edition", "collector", "collectors", "limited", "imax", "criterion", "theatrical", "retail",
    }
)
# Language tags that are also words of titles (`The Good German`): a
# hand-spaced name ending with one keeps it.
_PURE_LANGUAGE_TAGS = LANGUAGE_TAGS - frozenset(
    {"german", "french", "spanish", "castellano", "latino", "nordic", "dual", "ld", "md", "dubbed", "subbed"}
)
# Obfuscated names: one token this long with this many digits (`abc123xyz`).
OBFUSCATED_MIN_LENGTH = 8
OBFUSCATED_MIN_DIGITS = 3
_LETTERS_RE = re.compile(r"[^\W\d_]{3}")
# `Movie.2012.1080p.x264-Some Group`: a dotted head this long before a space.
RELEASE_HEAD_SEPARATORS = 3
_JUNK_RE = re.compile(
    r"\d{3,4}[pi]|(?:ddp?|e?ac3|aac|dts)\+?\d(?:\.\d)?|[xh]\.?26[45]|\d{1,2}ch",
    re.IGNORECASE,
)


# Release groups that are often glued to a title with no other junk word
# (`Movie-HDC`); a dash before another word is a title's (`Spider-Man`).
RELEASE_GROUPS = frozenset(
    {
        "hdc", "sparks", "rarbg", "yts", "yify", "fgt", "evo", "ntb", "flux", "chd",
        "wiki", "ctrlhd", "epsilon", "tigole", "qxr", "psa", "rovers", "geckos",
        "amiable", "drones", "ettv", "eztv", "lol", "killers", "dimension", "fum",
    }
)
_GROUP_SUFFIX_RE = re.compile(r"-([A-Za-z0-9]{2,12})$")
# A full date inside a release name (`My.Movie.2013.12.09`) stays one word.
_DOTTED_DATE_RE = re.compile(r"(?<![0-9])((?:19|20)\d{2})[._](\d{2})[._](\d{2})(?![0-9])")
_DATE_HINT_RE = re.compile(r"[12]\d{3}[._]\d\d[._]\d\d")
_DATE_WORD_RE = re.compile(r"(?:19|20)\d{2}-\d{1,2}-\d{1,2}")


def strip_release_group(title: str) -> str:
    """``Movie-HDC`` -> ``Movie`` for a known release group; else ``title``."""
    if "-" not in title:
        return title
    match = _GROUP_SUFFIX_RE.search(title)
    if match is None or match.group(1).casefold() not in RELEASE_GROUPS:
        return title
    return trim(title[: match.start()]) or title


def join_dates(text: str) -> str:
    """Dotted dates in a release name become one word: ``2013.12.09`` -> ``2013-12-09``."""
    if _DATE_HINT_RE.search(text) is None:  # several times cheaper than the sub
        return text
    return _DOTTED_DATE_RE.sub(r"\1-\2-\3", text)


def is_date_word(token: str) -> bool:
    """``2013-12-09``: a date, whose year is not a release year."""
    return _DATE_WORD_RE.fullmatch(token) is not None


def split_brackets(text: str) -> tuple[str, tuple[str, ...]]:
    """Remove ``[...]`` and ``{...}`` groups; return the rest and their contents.

    A group holding just a plausible year becomes ``(YYYY)`` in the text
    (so ``Title [2010]`` reads like ``Title (2010)``) and is not a tag.
    """
    if "[" not in text and "{" not in text:
        return text, ()
    tags: list[str] = []
    pieces: list[str] = []
    last = 0
    for match in _BRACKETS_RE.finditer(text):
        content = match.group(1) if match.group(1) is not None else match.group(2)
        pieces.append(text[last : match.start()])
        year = _YEAR_TEXT_RE.fullmatch(content)
        if year is not None and is_year(year.group(1), explicit=True):
            pieces.append(f" ({year.group(1)}) ")
        else:
            pieces.append(" ")
            if content.strip():
                tags.append(content.strip())
        last = match.end()
    pieces.append(text[last:])
    return "".join(pieces), tuple(tags)


def is_year(token: str, *, explicit: bool) -> bool:
    """Whether ``token`` is four digits naming a plausible release year.

    ``explicit`` years (in brackets or parentheses) may lie further in the
    future than bare ones.
    """
    # isdigit() is also true of `²`, which int() refuses: ASCII digits only.
    if len(token) != 4 or not token.isdigit() or not token.isascii():
        return False
    latest = LATEST_EXPLICIT_YEAR if explicit else LATEST_BARE_YEAR
    return YEAR_MIN <= int(token) <= latest


def is_release_style(text: str) -> bool:
    """True for dotted or underscored names without spaces, and for a
    dotted name whose group has a space (``Movie.2012.1080p.x264-Some Group``:
    three or more separators before the first space, or fewer with a junk
    word among them: ``show.203.hdtv-Some Group``)."""
    stripped = text.strip()
    if " " not in stripped:
        return "." in stripped or "_" in stripped
    head = stripped[: stripped.index(" ")]
    separators = head.count(".") + head.count("_")
    if not separators or head.endswith("."):
        return False
    return separators >= RELEASE_HEAD_SEPARATORS or any(map(is_junk, _RELEASE_TOKEN_RE.findall(head)))


def words(text: str, release: bool) -> list[str]:
    """Split into words: release separators (keeping acronyms) or whitespace."""
    if release:
        return _RELEASE_TOKEN_RE.findall(text)
    return text.split()


@functools.lru_cache(maxsize=JUNK_CACHE_SIZE)
def is_junk(word: str) -> bool:
    """Whether ``word`` belongs to a release name's technical tail.

    A release group glued on with a dash (``x264-GRP``) does not hide the
    junk word in front of it.
    """
    folded = word.casefold().strip("-()")
    if folded in JUNK_WORDS:
        return True
    head = folded.partition("-")[0]
    return head in JUNK_WORDS or _JUNK_RE.fullmatch(head) is not None


def first_junk(tokens: list[str], release: bool = True) -> int:
    """Index of the first junk word, or ``len(tokens)``, with the release tags
    right before it (``German DL 1080p``, ``(BD 1080p``) and, at the very
    end of the name, the language tags (``Show.S01E01.German.DL``; in a
    hand-spaced name, not ``release``, only tags no title uses: ``The Good
    German`` keeps its last word, ``Show S01E01 VOSTFR`` does not)."""
    cut = len(tokens)
    for index, token in enumerate(tokens):
        if is_junk(token):
            cut = index
            break
    else:
        return _tags_ending(tokens, LANGUAGE_TAGS if release else _PURE_LANGUAGE_TAGS)
    while cut > 0 and _tag_key(tokens[cut - 1]) in RELEASE_TAGS:
        cut -= 1
    return cut


def _tags_ending(tokens: list[str], languages: frozenset[str]) -> int:
    """Where the release tags ending a name start (``VOSTFR WEB``), if one of
    ``languages`` is among them; else ``len(tokens)`` (``The Final Extended``)."""
    cut, language = len(tokens), False
    while cut > 0 and (key := _tag_key(tokens[cut - 1])) in RELEASE_TAGS:
        language = language or key in languages
        cut -= 1
    return cut if language else len(tokens)


def _tag_key(token: str) -> str:
    return token.casefold().strip("-()[]")


def trim(text: str) -> str:
    """Strip separators at both ends; a trailing dot only if not an acronym's.

    Brackets cut open by a marker go too (``Show [`` of ``Show [1x02]``):
    a balanced group never ends with an opening or starts with a closing one.
    """
    text = text.rstrip(_EDGE_CHARS + "[({").lstrip(_EDGE_CHARS + "])}")
    # A run of dots goes at once (no acronym ends with two dots), and only
    # the last five characters can make an acronym's end (`?X.Y.`): a
    # search of the whole text for each dot of a run was the slowest step
    # of the slowest names (`Name..............................`).
    while text.endswith("."):
        if text.endswith(".."):
            text = text.rstrip(".") + "."
        if _ACRONYM_END_RE.search(text, max(0, len(text) - _ACRONYM_END_SPAN)) is not None:
            break
        text = text[:-1].rstrip(_EDGE_CHARS)
    if text.startswith(".") and not text.startswith("..."):
        text = text.lstrip(".").strip(_EDGE_CHARS)
    return text


def tidy(text: str, release: bool, *, three_d: bool = True) -> str:
    """A readable fragment: no brackets, spaces for separators, no junk tail
    and no 3D layout marker (``three_d=False``: the caller knows there is none)."""
    text, _ = split_brackets(text)
    if three_d:
        text = strip_3d(text)
    tokens = words(text, release)
    return trim(" ".join(tokens[: first_junk(tokens, release)]))


def is_obfuscated(stem: str) -> bool:
    """A name that says nothing: no three letters in a row (``161219_06``,
    ``a8f3e9c1d2b4``), or one long token of letters and digits
    (``abc123xyz``, ``ZK8JQ2M1P0``) as download tools leave them."""
    text = split_brackets(stem)[0].strip()
    if _LETTERS_RE.search(text) is None:
        return True
    if len(text) < OBFUSCATED_MIN_LENGTH or not text.isascii() or not text.isalnum():
        return False
    return sum(c.isdigit() for c in text) >= OBFUSCATED_MIN_DIGITS


def readable(stem: str) -> str:
    """A display title from a stem that has no marker to cut it at."""
    return tidy(stem, is_release_style(split_brackets(stem)[0])) or stem


def strip_extension(name: str) -> str:
    """The file name without its last extension (``a.b.mkv`` -> ``a.b``)."""
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name
