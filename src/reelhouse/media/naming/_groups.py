"""Files of one folder that make one item: multi-part stacks and versions.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over file stems (names without extension).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from reelhouse.media.naming._3d import layout_3d
from reelhouse.media.naming._text import is_junk

MAX_PART = 99

_PART_WORDS = r"cd|dvd|part|pt|dis[ck]"
_PART_WORD_LIST = ("cd", "dvd", "part", "pt", "dis")
# Greedy prefix: the last marker wins (`Part 1 - cd2` is cd 2). A marker
# may sit in brackets (`(Disc 01)`, `[cd1]`) or right after one (`]part1`).
_STACK_NUMBER_RE = re.compile(
    rf"(?P<pre>.*)(?:^|[ ._-]++[(\[]?|[(\[]|(?<=[\])]))(?:{_PART_WORDS})[ ._-]*(?P<part>\d{{1,2}})"
    r"(?P<post>[\])]?(?:[ ._-].*)?)",
    re.IGNORECASE | re.DOTALL,
)
_STACK_WORD_LETTER_RE = re.compile(
    rf"(?P<pre>.*)(?:^|[ ._-]++)(?:{_PART_WORDS})[ ._-]*(?P<part>[a-d])(?P<post>[ ._-].*)?",
    re.IGNORECASE | re.DOTALL,
)
_STACK_DASH_LETTER_RE = re.compile(r"(?P<pre>.+?)\s*-\s*(?P<part>[a-d])(?P<post>)", re.IGNORECASE | re.DOTALL)
_VERSION_REST_RE = re.compile(
    r"[\s._]*-[\s._]*(?P<dash>.+?)\s*"
    r"|\s*\[(?P<bracket>[^\[\]]+)\]\s*"
    r"|\s*\{edition-(?P<edition>[^{}]+)\}\s*"  # Plex editions
    r"|\s*\((?P<paren>[^()]+)\)\s*"
    r"|[\s._](?P<glued>[^-].*)",
    re.DOTALL | re.IGNORECASE,
)
_LABEL_WORDS_RE = re.compile(r"[^\s._]+")
# A lone letter (with a year) names another film, not a version: `Iron Man - B (2006)`.
_LETTER_LABEL_RE = re.compile(r"[a-z](?:\s*\(\d{4}\))?", re.IGNORECASE)
_VERSION_BASE_RE = re.compile(r"(?P<base>.+?\(\d{4}\))(?P<rest>.*)", re.DOTALL)
_RESOLUTIONS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"(?<![a-z0-9])(?:8k|4320p)(?![a-z0-9])", re.IGNORECASE), 4320),
    (re.compile(r"(?<![a-z0-9])(?:4k|uhd|2160p)(?![a-z0-9])", re.IGNORECASE), 2160),
    (re.compile(r"(?<![a-z0-9])(?:2k|qhd|1440p)(?![a-z0-9])", re.IGNORECASE), 1440),
    (re.compile(r"(?<![a-z0-9])(?:fhd|1080[pi])(?![a-z0-9])", re.IGNORECASE), 1080),
    (re.compile(r"(?<![a-z0-9])(?:hd|720p)(?![a-z0-9])", re.IGNORECASE), 720),
    (re.compile(r"(?<![a-z0-9])(?:576[pi]|480[pi]|sd)(?![a-z0-9])", re.IGNORECASE), 480),
)


@dataclass(frozen=True, slots=True)
class StackPart:
    """One file's multi-part marker: ``Movie - cd2`` -> base ``Movie``, part 2.

    ``base`` is the stem with the marker removed (text on both sides kept);
    ``lettered`` parts (``-a``, ``part b``) count a=1, b=2...
    """

    base: str
    part: int
    lettered: bool = False


@dataclass(frozen=True, slots=True)
class Stack:
    """A real stack: ``stems[i]`` is part ``i + 1``; the first is the item."""

    base: str
    stems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Version:
    """One version of a movie: ``label`` is ``""`` for the plain name.

    ``stem`` is the version's file (its first part when stacked);
    ``parts`` are the stems of its later parts, in order.
    """

    stem: str
    label: str
    parts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VersionGroup:
    """Versions of one movie; ``versions[0]`` is the primary."""

    base: str
    versions: tuple[Version, ...]

    @property
    def primary(self) -> Version:
        return self.versions[0]

    @property
    def member_count(self) -> int:
        """The reference's ``versionMemberCount``: versions besides the primary."""
        return len(self.versions) - 1


def stack_part(stem: str) -> StackPart | None:
    """The multi-part marker of ``stem``, or None.

    Numbered: ``cd1``, ``dvd1``, ``part1``, ``pt1``, ``disc1``, ``disk1``
    (any of `` ._-`` around them, or in brackets ``(Disc 01)``, or right
    after a bracket ``[1080p]part1``; any case, parts 1 to 99). Lettered:
    the same words with ``a``-``d``, or a trailing ``-a`` ... ``-d``.
    A marker must stand apart (``Partyland1`` has none). Whether the file
    really is part of a stack is decided by :func:`group_stacks`.
    """
    if not _may_be_stacked(stem):
        return None
    match = _STACK_NUMBER_RE.fullmatch(stem)
    if match is not None:
        part = int(match.group("part"))
        if 1 <= part <= MAX_PART:
            return StackPart(_join(match.group("pre"), match.group("post")), part)
        return None
    match = _STACK_WORD_LETTER_RE.fullmatch(stem) or _STACK_DASH_LETTER_RE.fullmatch(stem)
    if match is None:
        return None
    part = ord(match.group("part").lower()) - ord("a") + 1
    return StackPart(_join(match.group("pre"), match.group("post")), part, lettered=True)


def group_stacks(stems: Sequence[str]) -> list[Stack]:
    """The real stacks among the stems of one folder, sorted by base.

    A stack is 2+ files with the same base (case-insensitive) and the same
    kind of marker (numbers or letters) whose parts run 1, 2, 3...
    without a gap; parts after a gap stay separate items. A group where a
    part number appears twice (``Movie-cd1.mkv`` and ``Movie-cd1.avi``
    given as the same stem twice) is ambiguous and not stacked. Stems
    without a marker are not in any stack.
    """
    groups: dict[tuple[str, bool], list[tuple[int, str, str]]] = {}
    for stem in stems:
        found = stack_part(stem)
        if found is not None:
            key = (found.base.casefold(), found.lettered)
            groups.setdefault(key, []).append((found.part, stem, found.base))
    stacks = [stack for members in groups.values() if (stack := _stack_of(members)) is not None]
    stacks.sort(key=lambda stack: (stack.base.casefold(), stack.base, stack.stems))
    return stacks


def split_version(stem: str, base_title: str) -> str | None:
    """The version label of ``stem`` within a movie named ``base_title``.

    ``""`` when ``stem`` is ``base_title`` itself (the plain version);
    the label for ``Movie (2010) - 1080p``, ``Movie (2010) [4K]``,
    ``Movie (2010) [Final Cut]``, ``Movie (2010) (Extended)``, Plex's
    ``Movie (2010) {edition-Director's Cut}``, or quality words after a
    space, ``_`` or ``.`` (``Movie (2020)_4K``, ``Movie.UHD``,
    ``Movie (2010) 1080p HDR``); None
    when ``stem`` is not a version of ``base_title``, or the label is a lone
    letter (``Iron Man - B (2006)`` is another film). Case-insensitive.
    Call it with main-feature stems only (extras and stack parts are
    decided first).
    """
    size = len(base_title)
    if not base_title or stem[:size].casefold() != base_title.casefold():
        return None
    rest = stem[size:]
    if not rest.strip():
        return ""
    match = _VERSION_REST_RE.fullmatch(rest)
    if match is None:
        return None
    glued = match.group("glued")
    if glued is not None:
        # `Movie_4K`, `Movie.UHD`, `Movie 1080p HDR`: only quality words may
        # follow without a dash or brackets (else it is another title).
        return glued.strip() if _all_quality_words(glued) else None
    label = next(g for g in match.group("dash", "bracket", "edition", "paren") if g is not None).strip()
    if label[:1] + label[-1:] in ("[]", "()"):
        label = label[1:-1].strip()  # `Movie - [1080p]`
    if not label or _LETTER_LABEL_RE.fullmatch(label) is not None:
        return None
    if match.group("paren") is not None and label.isdigit():
        return None  # `Movie (2010) (2011)`: a year, not a version
    return label


def _all_quality_words(text: str) -> bool:
    found = _LABEL_WORDS_RE.findall(text)
    return bool(found) and all(resolution_rank(w) or is_junk(w) or layout_3d(w) for w in found)


def group_versions(stems: Sequence[str], folder_name: str | None = None) -> list[VersionGroup]:
    """Versions of one movie among the main-feature stems of one folder.

    Stacks are found first (:func:`group_stacks`): a stack is one version,
    labelled by its base (``Movie (2010) - 1080p - cd1`` and ``- cd2`` are
    the version ``1080p`` in two parts). With ``folder_name`` (the movie's
    own folder) every file or stack named the folder name, or the folder
    name plus `` - label`` / `` [label]``, is a version. Without it, names
    are grouped by their prefix up to the first ``(YYYY)``. Only groups of
    2+ versions are returned, sorted by base.

    The primary (``versions[0]``) is, in order: the plain name; else the
    highest resolution named in the label (8K/4320p > 4K/UHD/2160p >
    1440p > 1080p > 720p > 576p/480p/SD > none); else the label first in
    case-insensitive alphabetical order. Other versions follow the same
    order.
    """
    groups: dict[str, list[Version]] = {}
    bases: dict[str, str] = {}
    for name, first, later in _items(stems):
        base = folder_name if folder_name is not None else _inferred_base(name)
        label = split_version(name, base) if base else None
        if base and label is not None:
            key = base.casefold()
            bases.setdefault(key, base)
            groups.setdefault(key, []).append(Version(first, label, later))
    result = [
        VersionGroup(bases[key], tuple(sorted(members, key=version_order)))
        for key, members in groups.items()
        if len(members) >= 2
    ]
    result.sort(key=lambda group: (group.base.casefold(), group.base))
    return result


def _items(stems: Sequence[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(name to label, first stem, later part stems) per item, stacks merged."""
    stacks = group_stacks(stems)
    stacked = {stem for stack in stacks for stem in stack.stems}
    items = [(stack.base, stack.stems[0], stack.stems[1:]) for stack in stacks]
    items.extend((stem, stem, ()) for stem in stems if stem not in stacked)
    return items


def resolution_rank(label: str) -> int:
    """Vertical lines a version label names (``4K`` -> 2160), 0 if none."""
    for pattern, lines in _RESOLUTIONS:
        if pattern.search(label) is not None:
            return lines
    return 0


def version_order(version: Version) -> tuple[bool, int, str, str]:
    label = version.label
    return (label != "", -resolution_rank(label), label.casefold(), version.stem)


def _inferred_base(stem: str) -> str | None:
    match = _VERSION_BASE_RE.fullmatch(stem)
    return match.group("base") if match is not None else None


def _may_be_stacked(stem: str) -> bool:
    """Cheap test before the regular expressions: a part word or a ``-x`` end."""
    folded = stem.casefold()
    return "-" in folded[-4:] or any(word in folded for word in _PART_WORD_LIST)


def _join(pre: str, post: str | None) -> str:
    post = post or ""
    if post[:1] in (")", "]"):
        post = post[1:]  # the bracket the marker stood in
    return pre.rstrip(" ._-") + post


def _stack_of(members: list[tuple[int, str, str]]) -> Stack | None:
    members.sort()
    numbers = [part for part, _, _ in members]
    if len(set(numbers)) != len(numbers):
        return None
    run = 0
    while run < len(numbers) and numbers[run] == run + 1:
        run += 1
    if run < 2:
        return None
    return Stack(members[0][2], tuple(stem for _, stem, _ in members[:run]))
