"""Writing an ended session's PlayRecord: the one step both the registry and a session take.

The registry records the sessions it ends (a player's ``stopped``, the
server stopping); a session that ends by itself (idle, or a remote stop
left unanswered) records itself, so its record never depends on a message
reaching a registry that may be stopping at that very moment.  Each write
is bounded (:data:`RECORD_TIMEOUT_SECONDS`, and the shutdown deadline) and
shielded, so a stopping server still writes it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from reelhouse.media.play_record import EndedPlayback
from reelhouse.shutdown import bounded_shield

Recorder = Callable[[EndedPlayback], Awaitable[object]]

# One history write; a stopping server cuts it at its own deadline too.
RECORD_TIMEOUT_SECONDS = 5.0

log = logging.getLogger(__name__)


async def record_ended(record: Recorder, ended: EndedPlayback) -> None:
    """``record(ended)`` within its bound; a failure is logged, never raised."""
    with bounded_shield(RECORD_TIMEOUT_SECONDS) as shield:
        try:
            await record(ended)
        except Exception:
            log.exception("playback session %s: the play record could not be written", ended.session_id)
    if shield.cancelled_caught:
        log.error("playback session %s: writing its play record took too long; given up", ended.session_id)
