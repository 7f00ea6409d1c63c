"""What a finished playback session leaves behind, and the rules that shape it.

A live session (an actor) ends by a `stopped` report, an idle end, a remote
stop or a shutdown (or, found at start-up, by the crash of the process that
held it: :data:`CRASH`); it then hands an :class:`EndedPlayback` to the history
store (``storage.play_history.record_playback``), which writes a PlayRecord
or merges it into the previous one (same member, item and device, starting
within :data:`MERGE_WINDOW_SECONDS` of that record's end).  Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

MERGE_WINDOW_SECONDS = 30 * 60  # api-decisions.md "Playback and sign-in"
FINISHED_PERCENT = 90.0  # the reference: `finished` at 90 % or more
DEFAULT_IP_RETENTION_DAYS = 90  # the reference's Limits: history address retention

# How a session ended (PlayRecord ``endReason``, outside the reference, which
# has no such field): the player's ``stopped``, no report for the idle time,
# a remote stop left unanswered, the server stopping, or the process dying
# (the value the reference uses for a plugin disabled by crashes).
STOPPED, IDLE, REMOTE_STOP, SHUTDOWN, CRASH = "stopped", "idle", "remoteStop", "shutdown", "crash"
PARENTAL_TIME = "parentalTime"  # parental controls: the daily limit reached, or the window closed
END_REASONS = frozenset({STOPPED, IDLE, REMOTE_STOP, SHUTDOWN, CRASH, PARENTAL_TIME})


@dataclass(frozen=True, slots=True)
class EndedPlayback:
    """One session as it ended; wall-clock times are epoch milliseconds (UTC)."""

    session_id: str
    item_id: str
    member_id: str
    member_name: str  # the member's display name at the time
    device_id: str  # the Device row's id (not the token)
    device_name: str
    player: str  # the client application, e.g. "Infuse"
    kind: str  # movie | episode | video
    title: str | None  # an episode's series name, else the item's name
    episode: str | None  # "S01E04" for an episode
    series_id: str | None
    season_id: str | None
    started_at_ms: int
    ended_at_ms: int
    duration_sec: float  # the media's duration; 0 when unknown
    watched_sec: float  # time played, pauses excluded
    furthest_sec: float  # furthest position reached
    delivery: str  # PlayDelivery
    ip: str | None  # the player's address
    end_reason: str = STOPPED  # one of END_REASONS


def percent_watched(furthest_sec: float, duration_sec: float) -> float:
    """Furthest position as a percent of the duration, 0 when the duration is unknown."""
    if duration_sec <= 0:
        return 0.0
    return round(min(max(furthest_sec / duration_sec, 0.0), 1.0) * 100.0, 1)


def is_finished(percent: float) -> bool:
    return percent >= FINISHED_PERCENT
