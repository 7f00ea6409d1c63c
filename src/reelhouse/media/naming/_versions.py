"""Versions of one episode: the same episode in two qualities or cuts.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over file stems.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from reelhouse.media.naming._episodes import parse_episode
from reelhouse.media.naming._groups import Version, VersionGroup, split_version, version_order

# Where a shared prefix may end: before a label's `` - `` or `[`.
_LABEL_STARTS = (" - ", " [", "[", "-", "_", ".")

_EpisodeKey = tuple[int | None, int | None, int | None, int | None, datetime.date | None]


def group_episode_versions(stems: Sequence[str]) -> list[VersionGroup]:
    """Versions of one episode among the episode stems of one folder.

    ``Show - S01E01 - 1080p`` and ``Show - S01E01 - 720p`` (or the plain
    ``Show - S01E01 - Pilot`` and ``Show - S01E01 - Pilot [4K]``) are one
    episode in two versions: the stems name the same episode and differ
    only by a version label after their shared name, as movie versions do
    (:func:`split_version`). Stems that differ otherwise (``Show S01E01
    Pilot`` and ``Show S01E01 Other``) are not grouped. The primary is
    chosen as for movies; only groups of 2+ are returned, sorted by base.
    """
    by_key: dict[_EpisodeKey, list[str]] = {}
    for stem in stems:
        parsed = parse_episode(stem)
        if parsed is None or (parsed.episode is None and parsed.absolute is None and parsed.air_date is None):
            continue
        key = (parsed.season, parsed.episode, parsed.episode_end, parsed.absolute, parsed.air_date)
        by_key.setdefault(key, []).append(stem)
    groups = [group for members in by_key.values() if len(members) > 1 and (group := _group(members))]
    groups.sort(key=lambda group: (group.base.casefold(), group.base))
    return groups


def _group(members: list[str]) -> VersionGroup | None:
    base = _shared_base(members)
    if not base:
        return None
    versions: list[Version] = []
    for stem in members:
        label = split_version(stem, base)
        if label is None:
            return None
        versions.append(Version(stem, label))
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
