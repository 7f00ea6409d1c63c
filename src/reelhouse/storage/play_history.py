"""The watch history: PlayRecords written when sessions end, and read by the admin.

Interface fixed first so the playback actors and the history can be built
side by side; the history work fills it in.
"""

from __future__ import annotations

from reelhouse.media.play_record import EndedPlayback

from ._store import Store


async def record_playback(store: Store, ended: EndedPlayback) -> str:
    """Write ``ended`` as a PlayRecord, or merge it into the member's previous
    record of the same item on the same device when it started within
    ``MERGE_WINDOW_SECONDS`` of that record's end; return the record's id."""
    raise NotImplementedError("built by the playback history work (issue 14)")
