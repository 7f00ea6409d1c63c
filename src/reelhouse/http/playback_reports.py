"""What players report about playback (api-decisions.md, "Outside the reference").

``POST /sessions/playing`` starts a session (one PlaybackActor, see
``actors/playback``) and answers its id; ``/sessions/playing/progress`` and
``/sessions/playing/stopped`` report on it.  Device tokens only: a session
belongs to the member and device that started it, and another device's
report about it is 404 as for a session that never was.  A report that is
refused (an item the member cannot see, an unknown session, a negative or
absurd position, an unknown ``delivery``) changes nothing.  Unknown body
fields are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field
from quart import Blueprint, Response, request
from quart_schema import document_request, document_response, validate_request

from reelhouse import errors
from reelhouse.actors.playback.messages import EndSession, FindSession, MarkedPlayed, SessionStart, StartSession
from reelhouse.actors.playback.session import Progress
from reelhouse.media.playback_session import check_delivery, check_position
from reelhouse.runtime import ActorRef, ActorStopped, AskTimeout
from reelhouse.storage.devices import DeviceSignIn
from reelhouse.storage.playback_items import playback_item, player_facts

from .asks import ask
from .context import app_context, ask_timeout
from .device_auth import signed_in_member
from .library_access import require_item_visible
from .openapi import may_answer, raw_response
from .parental_time import require_playing_time
from .schema import ApiModel

blueprint = Blueprint("playback_reports", __name__)

_NOT_A_PLAYER = "A player's device token is required (POST /auth/login); an API key has no device."


class PlayingReport(ApiModel):
    item_id: str = Field(max_length=256)
    play_session_id: str | None = Field(None, max_length=256, description="The player's own id for this playback.")
    position_sec: float | None = None
    paused: bool | None = None
    delivery: str | None = Field(None, description="PlayDelivery; direct_play when omitted.")


class SessionReport(ApiModel):
    session_id: str = Field(max_length=256)
    position_sec: float | None = None
    paused: bool | None = None


class PlayingAnswer(ApiModel):
    session_id: str


@blueprint.post("/sessions/playing")
@validate_request(PlayingReport)
@document_request(PlayingReport)
@document_response(PlayingAnswer, 200)
@may_answer(
    (400, "field_invalid: a negative or absurd positionSec, an unknown delivery, an item that is not playable."),
    (403, "An API key: only a player's device token reports playback."),
    (404, "No such item, or one in a library the member cannot see."),
    503,
)
async def playing(data: PlayingReport) -> dict[str, Any]:
    """Playback began: starts a session (or finds the live one with this playSessionId) and answers its id."""
    member = _player()
    report = PlayReport(data.item_id, data.play_session_id, data.position_sec, bool(data.paused), data.delivery)
    return {"sessionId": await start_playback(member, report)}


@dataclass(frozen=True, slots=True)
class PlayReport:
    """A player's report that playback began, whichever surface it came by."""

    item_id: str
    play_session_id: str | None
    position_sec: float | None
    paused: bool
    delivery: str | None = None


async def start_playback(member: DeviceSignIn, report: PlayReport) -> str:
    """Start a session for ``member``'s device (or find the live one with this playSessionId); its id.

    404 for an item the member cannot see; 400 for one that is not
    playable, an unknown delivery or a position out of range.
    """
    await require_item_visible(report.item_id)
    limit = await require_playing_time(member)
    store = app_context().store
    item = await playback_item(store, report.item_id)
    if item is None:
        raise errors.NotFound(f"No item {report.item_id}.", params={"itemId": report.item_id})
    if item.kind is None:
        raise errors.Invalid(f"A {item.type} is not playable; report one of its videos.", field="itemId")
    delivery = check_delivery(report.delivery)
    check_position(report.position_sec, item.duration_sec)
    player = await player_facts(store, member.device_id)
    start = SessionStart(
        item=item, member_id=member.user_id, member_name=member.user_name, device_id=member.device_id,
        device_name=player.device_name, player=player.client, delivery=delivery, ip=request.remote_addr,
        position=report.position_sec or 0.0, paused=report.paused, play_session_id=report.play_session_id,
        limit=limit,
    )  # fmt: skip
    return await ask(registry_ref(), StartSession(start))


async def report_progress(member: DeviceSignIn, session_id: str, position_sec: float | None,
                          paused: bool | None) -> None:  # fmt: skip
    """Where ``member``'s device is in its live session ``session_id``; 404 when it has none of that id."""
    session = await ask(registry_ref(), FindSession(session_id, member.device_id))
    await _ask_session(session, session_id, Progress(position_sec, paused))


async def end_playback(member: DeviceSignIn, session_id: str, position_sec: float | None, paused: bool | None) -> None:
    """``member``'s device stopped: its session ends and becomes a PlayRecord of the history."""
    await ask(registry_ref(), EndSession(session_id, member.device_id, position_sec, paused))


async def settle_playback(member_id: str, item_id: str) -> None:
    """Before a mark as played: the member's live sessions on the item keep no resume point from now on.

    A player may still report (a progress tick in flight, a late ``stopped``):
    its history is kept, but the mark stays the last word on the position.
    """
    registry = app_context().actors.playback
    if registry is not None:  # no playback running: no session to settle
        await ask(registry, MarkedPlayed(member_id, item_id))


@blueprint.post("/sessions/playing/progress")
@validate_request(SessionReport)
@document_request(SessionReport)
@raw_response(204, None, "The report is taken.")
@may_answer(
    (400, "field_invalid: a negative or absurd positionSec."),
    (403, "An API key: only a player's device token reports playback."),
    (404, "No live session of this device with that id."),
    503,
)
async def progress(data: SessionReport) -> Response:
    """Where the player is and whether it is paused; keeps the session alive."""
    await report_progress(_player(), data.session_id, data.position_sec, data.paused)
    return Response(b"", status=204)


@blueprint.post("/sessions/playing/stopped")
@validate_request(SessionReport)
@document_request(SessionReport)
@raw_response(204, None, "The session ended; its PlayRecord is written.")
@may_answer(
    (400, "field_invalid: a negative or absurd positionSec."),
    (403, "An API key: only a player's device token reports playback."),
    (404, "No live session of this device with that id."),
    503,
)
async def stopped(data: SessionReport) -> Response:
    """Playback ended: the session ends and becomes a PlayRecord of the history."""
    await end_playback(_player(), data.session_id, data.position_sec, data.paused)
    return Response(b"", status=204)


def _player() -> DeviceSignIn:
    member = signed_in_member()
    if member is None:
        raise errors.Forbidden(_NOT_A_PLAYER)
    return member


def registry_ref() -> ActorRef:
    registry = app_context().actors.playback
    if registry is None:
        raise errors.Unavailable("Playback is not running.", params={"retryAfterSeconds": 5})
    return registry


async def _ask_session(session: ActorRef, session_id: str, msg: object) -> object:
    try:
        return await session.ask(msg, timeout=ask_timeout())
    except ActorStopped:  # it ended between finding it and this report
        raise errors.NotFound(f"No playback session {session_id}.", params={"sessionId": session_id}) from None
    except AskTimeout:
        raise errors.Unavailable("The server is busy; try again shortly.", params={"retryAfterSeconds": 5}) from None
