"""Episode versions and theme songs in a directory's drafts.

Private to ``reelhouse.media.assembly`` (which documents the rules). Pure.
"""

from __future__ import annotations

from dataclasses import replace

from reelhouse.media.assembly._model import ItemDraft
from reelhouse.media.naming import THEME_AUDIO_EXTENSIONS, group_episode_stacks, group_episode_versions


def is_theme_audio(extension: str) -> bool:
    """Whether an audio file may be a theme song (``classify`` decides)."""
    return extension in THEME_AUDIO_EXTENSIONS


def _stem(name: str) -> str:
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def episode_versions(drafts: list[ItemDraft]) -> list[ItemDraft]:
    """Members of an episode's version group point to its primary; the later
    parts of an episode in several files (``S01E01 - part1``, ``- part2``)
    become its ``AdditionalPart`` videos, as a movie's do."""
    by_stem = {_stem(d.file.name): d for d in drafts if d.file is not None}
    part_of: dict[str, tuple[ItemDraft, int]] = {}
    for stack in group_episode_stacks(list(by_stem)):
        first = by_stem[stack.stems[0]]
        part_of.update((by_stem[s].id, (first, n)) for n, s in enumerate(stack.stems[1:], start=2))
    primary_of: dict[str, str] = {}
    for group in group_episode_versions(list(by_stem)):
        primary = by_stem[group.primary.stem].id
        primary_of.update((by_stem[v.stem].id, primary) for v in group.versions[1:])
    if not primary_of and not part_of:
        return drafts
    # Primaries first, parts last: an item comes after the items it points to.
    return (
        [d for d in drafts if d.id not in primary_of and d.id not in part_of]
        + [replace(d, version_of=primary_of[d.id]) for d in drafts if d.id in primary_of]
        + [_part(d, *part_of[d.id]) for d in drafts if d.id in part_of]
    )


def _part(draft: ItemDraft, episode: ItemDraft, number: int) -> ItemDraft:
    """A later part of ``episode``: a Video it owns, like a movie's parts."""
    return replace(
        draft, type="Video", name=episode.name, sort_name=episode.sort_name, extra_type="AdditionalPart",
        part_number=number, index_number=number, index_number_end=None, parent_index_number=None,
        premiere_date_ms=None, parent_id=None, series_id=None, season_id=None, owner_id=episode.id,
        nfo=None, nfo_kind=None, images=(),
    )
