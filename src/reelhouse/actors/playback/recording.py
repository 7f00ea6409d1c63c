"""Writing an ended session's PlayRecord: the one step both the registry and a session take.

The registry records the sessions it ends (a player's ``stopped``, the
server stopping); a session that ends by itself (idle, or a remote stop
left unanswered) records itself, so its record never depends on a message
reaching a registry that may be stopping at that very moment.  Each write
is bounded (:data:`RECORD_TIMEOUT_SECONDS`, and the shutdown deadline) and
shielded, so a stopping server still writes it.

A live session also saves its last known state (:class:`LiveState`,
``storage/live_sessions.py`` in production) so that a process killed
before any of that still loses no play: the next start records what was
saved, ended by a crash.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from reelhouse.media.play_record import EndedPlayback
from reelhouse.shutdown import bounded_shield

Recorder = Callable[[EndedPlayback], Awaitable[object]]
Saver = Callable[[EndedPlayback], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class LiveState:
    """Where live sessions keep their last known state, and how often they save it."""

    save: Saver  # keep one session's state (as it would end at its last report)
    left_behind: Callable[[], Awaitable[list[EndedPlayback]]]  # states a dead process left, marked crash
    interval_seconds: float = 10.0  # at most one save per session this often; 0 = at every report
    # A cluster: look again this often for the states of nodes that died since (0 = at start only).
    sweep_seconds: float = 0.0


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


async def save_state(save: Saver, state: EndedPlayback) -> None:
    """``save(state)`` within :data:`RECORD_TIMEOUT_SECONDS`; a failure is logged, never raised.

    Shielded: a session ending while it saves lets the statement finish
    rather than cancel it in the database (on PostgreSQL a cancel costs a
    connection of its own), just before its record deletes the row.
    """
    with bounded_shield(RECORD_TIMEOUT_SECONDS) as scope:
        try:
            await save(state)
        except Exception:
            log.warning("playback session %s: its state could not be saved", state.session_id, exc_info=True)
    if scope.cancelled_caught:
        log.warning("playback session %s: saving its state took too long; given up", state.session_id)


async def record_left_behind(record: Recorder, states: list[EndedPlayback]) -> None:
    """Record the sessions a dead process left (read at start, before any new session saved)."""
    for state in states:
        log.warning("playback session %s was live when the server died; recorded as ended by a crash",
                    state.session_id)
        await record_ended(record, state)
