"""Versions of one episode: the same episode in two qualities or cuts.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over file stems.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence

from reelhouse.media.naming._episodes import EpisodeName, parse_episode
from reelhouse.media.naming._groups import (
    Stack,
    StackPart,
    Version,
    VersionGroup,
    group_stacks,
    split_version,
    stack_part,
    version_order,
)

# Where a shared prefix may end: before a label's `` - `` or `[`.
_LABEL_STARTS = (" - ", " [", "[", "-", "_", ".")

# A part marker ending an episode's title: `part1` / `pt1` glued to their
# number (`Pilot - part1`, `Pilot.part1.720p`), or a disc word (`Pilot-cd2`,
# `Pilot cd 2`). A title's spaced `Part 2` (`The Flood Part 2`, `The Flood -
# Part 2`) stays the title's.
_TITLE_PART_RE = re.compile(r"[\s._-]+(?:(?:cd|dvd|dis[ck])[\s._-]?|part|pt)\d{1,2}$", re.IGNORECASE)

_EpisodeKey = tuple[int | None, int | None, int | None, int | None, datetime.date | None]


def group_episode_versions(stems: Sequence[str]) -> list[VersionGroup]:
    """Versions of one episode among the episode stems of one folder.

    ``Show - S01E01 - 1080p`` and ``Show - S01E01 - 720p`` (or the plain
    ``Show - S01E01 - Pilot`` and ``Show - S01E01 - Pilot [4K]``) are one
    episode in two versions: the stems name the same episode and differ
    only by a version label after their shared name, as movie versions do
    (:func:`split_version`). Stems that differ otherwise (``Show S01E01
    Pilot`` and ``Show S01E01 Other``) are not grouped. A stack of parts
    (:func:`group_episode_stacks`) is one version, named by its first part,
    its later parts in ``parts``. The primary is chosen as for movies; only
    groups of 2+ are returned, sorted by base.
    """
    items: dict[str, tuple[str, tuple[str, ...]]] = {}
    stacked: set[str] = set()
    for stack in group_episode_stacks(stems):
        items[stack.base] = (stack.stems[0], stack.stems[1:])
        stacked.update(stack.stems)
    items.update((stem, (stem, ())) for stem in stems if stem not in stacked)
    by_key: dict[_EpisodeKey, list[str]] = {}
    for name in items:
        parsed = parse_episode(name)
        if parsed is None or (parsed.episode is None and parsed.absolute is None and parsed.air_date is None):
            continue
        key = (parsed.season, parsed.episode, parsed.episode_end, parsed.absolute, parsed.air_date)
        by_key.setdefault(key, []).append(name)
    groups = [group for members in by_key.values() if len(members) > 1 and (group := _group(members, items))]
    groups.sort(key=lambda group: (group.base.casefold(), group.base))
    return groups


def group_episode_stacks(stems: Sequence[str]) -> list[Stack]:
    """Episodes in several files: ``S01E01 - 1080p part1`` and ``part2``,
    ``S01E01-cd1`` and ``-cd2`` (numbered parts right after the episode's
    number or version label, as :func:`episode_stack` reads them), sorted
    by base. Parts run 1, 2, 3... as movie stacks do."""
    candidates = [stem for stem in stems if (parsed := parse_episode(stem)) and episode_stack(stem, parsed)]
    return group_stacks(candidates) if len(candidates) > 1 else []


def episode_stack(stem: str, parsed: EpisodeName) -> StackPart | None:
    """A numbered part marker right after the episode's number, version
    label or title (``S01E01 - 1080p part1``, ``S01E01-cd2``, ``S01E01 -
    Pilot - part1``); a title's spaced ``Part 2`` (``S01E05 - The Reckoning
    Part 2``) and letters (``- A``, a title's) are not parts."""
    found = stack_part(stem)
    if found is None or found.lettered:
        return None
    if parsed.title is None or title_before_part(parsed.title) is not None:
        return found
    return None


def title_before_part(title: str | None) -> str | None:
    """The episode title before its part marker (``Pilot - part1`` ->
    ``Pilot``, ``cd2`` -> ``""``); None when ``title`` ends with none."""
    if title is None:
        return None
    in_title = stack_part(title)
    if in_title is not None and not in_title.lettered and not in_title.base.strip(" ._-"):
        return ""
    match = _TITLE_PART_RE.search(title)
    return title[: match.start()].rstrip(" ._-") if match is not None else None


def _group(members: list[str], items: dict[str, tuple[str, tuple[str, ...]]]) -> VersionGroup | None:
    base = _shared_base(members)
    if not base:
        return None
    versions: list[Version] = []
    for name in members:
        label = split_version(name, base)
        if label is None:
            return None
        first, parts = items[name]
        versions.append(Version(first, label, parts))
    return VersionGroup(base, tuple(sorted(versions, key=version_order)))


def _shared_base(members: list[str]) -> str:
    """The longest shared start of ``members`` that ends where a label may begin."""
    first = min(members, key=len)
    size = len(first)
    folded = [m.casefold() for m in members]
    while size and any(m[:size] != folded[0][:size] for m in folded):
        size -= 1
    if all(len(m) == size or m[size:].startswith(_LABEL_STARTS) for m in members):
        return first[:size].rstrip(" -_.[")
    cut = max(first.rfind(sep, 0, size) for sep in _LABEL_STARTS)
    return first[:cut].rstrip(" -_.[") if cut > 0 else ""
