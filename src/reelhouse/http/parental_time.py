"""Parental time rules at the start of playback: outside every window, or past the daily limit, 403 parental_time.

The day and the windows are in the server time zone (``time_zone``
setting, else the process's zone); the limit counts the member's play
history of that date across devices, and the sessions still playing
(their last saved state). A session that starts gets its
:class:`~reelhouse.actors.playback.messages.PlayLimit`: the play time
left today and the time until its window closes; the PlaybackActor ends
it there (``parentalTime``).
"""

from __future__ import annotations

from datetime import datetime

from reelhouse import errors
from reelhouse.actors.playback.messages import PlayLimit
from reelhouse.media.parental import inside_windows, parental_of, window_seconds_left
from reelhouse.server_time_zone import server_time_zone
from reelhouse.storage.devices import DeviceSignIn
from reelhouse.storage.parental_time import live_watched_seconds_since, watched_seconds_since

from .context import app_context


async def require_playing_time(member: DeviceSignIn, now: datetime | None = None) -> PlayLimit | None:
    """Refuse playback outside the member's windows or past the daily limit; else the session's limit (None: none)."""
    controls = None if member.is_admin else parental_of(member.policy)
    if controls is None:
        return None
    ctx = app_context()
    local = (now or datetime.now()).astimezone(server_time_zone(ctx.settings.time_zone))
    if not inside_windows(controls.windows, local):
        raise errors.Forbidden(
            "Playback is outside this member's allowed times.", code="parental_time", params={"reason": "window"}
        )
    watch_left = None
    if controls.daily_limit_minutes:
        midnight = int(local.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)
        watched = await watched_seconds_since(ctx.store, member.user_id, midnight)
        watched += await live_watched_seconds_since(ctx.store, member.user_id, midnight)
        watch_left = controls.daily_limit_minutes * 60 - watched
        if watch_left <= 0:
            raise errors.Forbidden(
                "This member's playing time for today is used up.",
                code="parental_time",
                params={"reason": "dailyLimit", "limitMinutes": controls.daily_limit_minutes},
            )
    wall_left = window_seconds_left(controls.windows, local)
    if watch_left is None and wall_left is None:
        return None
    return PlayLimit(watch_seconds=watch_left, wall_seconds=wall_left)
