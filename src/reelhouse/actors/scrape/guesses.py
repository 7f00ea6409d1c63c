"""Works whose names are guesses: left to the identify step, never matched blind.

The naming rules give every parse a confidence (``media.naming``). A work
the scan queued whose name is below ``LOW_CONFIDENCE`` (an obfuscated file
with nothing above it to name it, a series named after the library root)
would be matched to whatever the provider's search returns first: the
queue marks it ``needsIdentify`` instead, where the user names the match.
Works that already carry a provider's id (from their NFO) are never guesses.
The confidence is read again from the item's path, so nothing new is stored.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from reelhouse.media.naming import (
    LOW_CONFIDENCE,
    MovieFile,
    classify,
    series_folder_confidence,
)
from reelhouse.storage.libraries import LibraryRecord
from reelhouse.storage.scrape_queue import PendingItem

_KINDS = {"movies": "movies", "tvshows": "tvshows"}  # anything else classifies as mixed


def is_guess(record: LibraryRecord, item: PendingItem) -> bool:
    """Whether ``item``'s name is too unsure to match without the user."""
    if item.provider_ids or item.path is None:
        return False  # an NFO's id; or a series named by its episodes, whose names were surer
    rel = _relative(record.paths, item.path)
    if rel is None:
        return False
    if item.type == "Series":
        return series_folder_confidence(rel) < LOW_CONFIDENCE
    found = classify(rel, _KINDS.get(record.collection_type, "mixed"))
    return isinstance(found, MovieFile) and found.confidence < LOW_CONFIDENCE


def _relative(roots: tuple[str, ...], path: str) -> str | None:
    """``path`` relative to the library root holding it (``""`` for the root)."""
    target = PurePosixPath(path)
    for root in roots:
        if target.is_relative_to(root):
            rel = target.relative_to(root).as_posix()
            return "" if rel == "." else rel
    return None
