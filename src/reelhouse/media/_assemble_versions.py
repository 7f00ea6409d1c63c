"""Episode versions and theme songs in a directory's drafts.

Private to ``reelhouse.media.assemble`` (which documents the rules). Pure.
"""

from __future__ import annotations

from dataclasses import replace

from reelhouse.media._assemble_model import ItemDraft
from reelhouse.media.naming import THEME_AUDIO_EXTENSIONS, group_episode_versions


def is_theme_audio(extension: str) -> bool:
    """Whether an audio file may be a theme song (``classify`` decides)."""
    return extension in THEME_AUDIO_EXTENSIONS


def _stem(name: str) -> str:
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def episode_versions(drafts: list[ItemDraft]) -> list[ItemDraft]:
    """Members of an episode's version group point to its primary."""
    by_stem = {_stem(d.file.name): d for d in drafts if d.file is not None}
    primary_of: dict[str, str] = {}
    for group in group_episode_versions(list(by_stem)):
        primary = by_stem[group.primary.stem].id
        primary_of.update((by_stem[v.stem].id, primary) for v in group.versions[1:])
    if not primary_of:
        return drafts
    # Primaries first: an item comes after the items it points to.
    return [d for d in drafts if d.id not in primary_of] + [
        replace(d, version_of=primary_of[d.id]) for d in drafts if d.id in primary_of
    ]
