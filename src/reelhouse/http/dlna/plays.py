"""A renderer's plays counted as playback sessions, as a player's are.

A renderer reports nothing: its requests for the resource are its reports.
The first ``GET`` of an item starts a session of the DLNA member on the
renderer's device (:mod:`.access`: its address and user agent; the device
name is the user agent, the player ``DLNA``), with the play session id
``dlna:<item>`` so that every later request of the same item by the same
renderer finds that session again and reports a position: the byte
offset asked for as a share of the runtime.  The stream's bytes count
toward the session's bandwidth (the stream meter), and the session ends
as a player's that goes quiet does (``idle_end_seconds`` after the last
request), becoming a PlayRecord of the history.  ``HEAD`` counts nothing.

The member's parental time rules apply: outside its allowed times, or
with its daily time used up, the stream is refused (403).  A playback
registry that is busy or stopped does not hold the stream up: the play is
not counted (logged).
"""

from __future__ import annotations

import logging
import re

from quart import request

from reelhouse import errors
from reelhouse.actors.playback.messages import SessionStart, StartSession
from reelhouse.media.playback_session import check_delivery
from reelhouse.storage.devices import DeviceSignIn
from reelhouse.storage.playback_items import PlaybackItem, playback_item

from ..asks import ask
from ..context import app_context
from ..device_auth import signed_in_member
from ..parental_time import require_playing_time
from ..playback_reports import registry_ref, report_progress
from .access import user_agent

log = logging.getLogger(__name__)

PLAYER = "DLNA"
_RANGE_START = re.compile(r"^\s*bytes\s*=\s*(\d+)-")


async def count_play(item_id: str, size: int | None) -> None:
    """Start (or continue) the renderer's session on ``item_id``; 403 outside the member's playing time."""
    member = signed_in_member()
    if member is None or request.method != "GET":
        return
    await require_playing_time(member)
    item = await playback_item(app_context().store, item_id)
    if item is None or item.kind is None:
        return
    position = _position(request.headers.get("Range", ""), size, item.duration_sec)
    try:
        session_id = await ask(registry_ref(), StartSession(_start(member, item, position)))
        await report_progress(member, session_id, position, False)
    except (errors.Unavailable, errors.NotFound, errors.Invalid) as exc:
        log.warning("DLNA: the play of %s on %s is not counted (%s)", item_id, member.device_id, exc)


def _start(member: DeviceSignIn, item: PlaybackItem, position: float) -> SessionStart:
    return SessionStart(
        item=item, member_id=member.user_id, member_name=member.user_name, device_id=member.device_id,
        device_name=user_agent() or f"DLNA renderer {request.remote_addr}", player=PLAYER,
        delivery=check_delivery(None), ip=request.remote_addr, position=position, paused=False,
        play_session_id=f"dlna:{member.device_id}:{item.id}",
    )  # fmt: skip


def _position(range_header: str, size: int | None, duration: float) -> float:
    """Where in the runtime (seconds) the asked-for byte offset falls; 0 without a range, size or runtime."""
    found = _RANGE_START.match(range_header)
    if found is None or not size or duration <= 0:
        return 0.0
    return min(duration, int(found.group(1)) / size * duration)
