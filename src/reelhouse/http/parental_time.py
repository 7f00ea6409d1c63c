"""Parental time rules at the start of playback: outside every window, or past the daily limit, 403 parental_time.

The day and the windows are in the server time zone (``time_zone``
setting, else the process's zone); the limit counts the member's play
history of that date across devices.
"""

from __future__ import annotations

from datetime import datetime

from reelhouse import errors
from reelhouse.media.parental import inside_windows, parental_of
from reelhouse.server_time_zone import server_time_zone
from reelhouse.storage.devices import DeviceSignIn
from reelhouse.storage.parental_time import watched_seconds_since

from .context import app_context


async def require_playing_time(member: DeviceSignIn, now: datetime | None = None) -> None:
    controls = None if member.is_admin else parental_of(member.policy)
    if controls is None:
        return
    ctx = app_context()
    local = (now or datetime.now()).astimezone(server_time_zone(ctx.settings.time_zone))
    if not inside_windows(controls.windows, local):
        raise errors.Forbidden(
            "Playback is outside this member's allowed times.", code="parental_time", params={"reason": "window"}
        )
    if controls.daily_limit_minutes:
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        watched = await watched_seconds_since(ctx.store, member.user_id, int(midnight.timestamp() * 1000))
        if watched >= controls.daily_limit_minutes * 60:
            raise errors.Forbidden(
                "This member's playing time for today is used up.",
                code="parental_time",
                params={"reason": "dailyLimit", "limitMinutes": controls.daily_limit_minutes},
            )
