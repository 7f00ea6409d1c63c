"""Messages the HTTP edge sends to the PlaybackRegistry."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StreamedBytes:
    """Bytes the stream route sent to ``device_id`` for ``item_id`` (told, in batches).

    The registry credits them to that device's live session on that item, if
    any; they make the session's ``bandwidthKbps`` (real traffic only).
    """

    device_id: str
    item_id: str
    nbytes: int
