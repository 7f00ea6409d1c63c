"""Play reports, marks and the sessions list: Jellyfin's Playstate and Session routes.

A play report is the native one (``http/playback_reports``): the same
PlaybackActor session, so it appears in ``GET /admin/playback/sessions``
and in the history, and its positions reach the member's watch state.
Jellyfin's clients name a playback by their own ``PlaySessionId`` (and
the item), never by our session id: progress and stop reports find the
device's live session with that ``PlaySessionId`` (else on that item).  A
progress report for no live session starts one (as Jellyfin does); a stop
report for none changes nothing.  Only a member's device reports playback
(an API key has no device: 403, as natively).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from quart import Response, request

from reelhouse import errors
from reelhouse.actors.playback.messages import ListSessions, SessionView
from reelhouse.storage.devices import DeviceSignIn

from ..asks import ask
from ..device_auth import signed_in_member
from ..library_access import require_item_visible
from ..playback_reports import PlayReport, end_playback, registry_ref, report_progress, start_playback
from . import ids
from .access import admin
from .catalogue import member_id, names_of, server_guid
from .dto_users import play_state
from .surface import json, new_blueprint, no_content, route
from .user_data import mark, state_dto

blueprint = new_blueprint("playback")
TICKS_PER_SECOND = 10_000_000
MAX_PLAY_SESSION_ID = 256  # as the native report's playSessionId
MAX_TICKS = 2**63 - 1  # .NET's long: a larger integer is no position (and no float either)


@route(blueprint, "/Sessions/Playing", ("POST",))
async def playing() -> Response:
    member, body = _player(), await _body()
    with _in_ticks():
        await start_playback(member, _report(body))
    return no_content()


@route(blueprint, "/Sessions/Playing/Progress", ("POST",))
async def progress() -> Response:
    member, body = _player(), await _body()
    report = _report(body)
    session_id = await _live_session(member, report)
    with _in_ticks():
        if session_id is None:
            await start_playback(member, report)
        else:
            await report_progress(member, session_id, report.position_sec, report.paused)
    return no_content()


@route(blueprint, "/Sessions/Playing/Stopped", ("POST",))
async def stopped() -> Response:
    member, body = _player(), await _body()
    report = _report(body)
    session_id = await _live_session(member, report)
    if session_id is not None:
        with _in_ticks():
            await end_playback(member, session_id, report.position_sec, None)
    return no_content()


@contextmanager
def _in_ticks() -> Iterator[None]:
    """The native refusal of a position (in seconds, ``positionSec``) told in the client's field, PositionTicks."""
    try:
        yield
    except errors.Invalid as error:
        if error.params.get("field") != "positionSec":
            raise
        detail = error.message.replace("positionSec", "PositionTicks").replace("seconds", "ticks (100 ns)")
        raise errors.Invalid(detail, field="PositionTicks") from None


@route(blueprint, "/Sessions/Playing/Ping", ("POST",))
async def ping() -> Response:
    member = _player()
    args = {k.lower(): v for k, v in request.args.items()}
    wanted = args.get("playsessionid")
    for view in await ask(registry_ref(), ListSessions()):
        if view.start.device_id == member.device_id and (wanted is None or view.start.play_session_id == wanted):
            await report_progress(member, view.id, None, None)
    return no_content()


@route(blueprint, "/Sessions/Capabilities", ("POST",))
@route(blueprint, "/Sessions/Capabilities/Full", ("POST",))
async def capabilities() -> Response:
    """Taken and not kept: what a client can be remote-controlled with is its socket (``/socket``)."""
    return no_content()


@route(blueprint, "/UserPlayedItems/<item_id>", ("POST", "DELETE"))
@route(blueprint, "/Users/<user_id>/PlayedItems/<item_id>", ("POST", "DELETE"))
async def played(item_id: str, user_id: str | None = None) -> Response:
    native_id = ids.item_id(item_id)
    await require_item_visible(native_id)
    state = await mark(member_id(), native_id, played=request.method == "POST")
    return json(state_dto(native_id, state))


@route(blueprint, "/UserFavoriteItems/<item_id>", ("POST", "DELETE"))
@route(blueprint, "/Users/<user_id>/FavoriteItems/<item_id>", ("POST", "DELETE"))
async def favorite(item_id: str, user_id: str | None = None) -> Response:
    native_id = ids.item_id(item_id)
    await require_item_visible(native_id)
    state = await mark(member_id(), native_id, favorite=request.method == "POST")
    return json(state_dto(native_id, state))


@route(blueprint, "/Sessions")
@admin
async def sessions() -> Response:
    """The live playback sessions, as Home Assistant and Jellystat poll them (administrators)."""
    views: list[SessionView] = await ask(registry_ref(), ListSessions())
    names = await names_of([view.item.id for view in views])  # a session's title is an episode's series
    return json([_session_dto(view, names.get(view.item.id, view.item.title)) for view in views])


def _session_dto(view: SessionView, name: str) -> dict[str, Any]:
    start, item = view.start, view.item
    now_playing: dict[str, Any] = {"Name": name, "Id": ids.item_guid(item.id), "Type": item.type,
                                   "ServerId": server_guid(), "MediaType": "Video",
                                   "RunTimeTicks": int(item.duration_sec * TICKS_PER_SECOND)}  # fmt: skip
    if item.series_id:
        now_playing["SeriesId"] = ids.item_guid(item.series_id)
        now_playing["SeriesName"] = item.title
    return {
        "Id": view.id, "UserId": ids.plain_guid(start.member_id), "UserName": start.member_name,
        "Client": start.player, "DeviceName": start.device_name, "DeviceId": start.device_id,
        "ApplicationVersion": "", "ServerId": server_guid(), "IsActive": True,
        "SupportsRemoteControl": view.stoppable, "SupportsMediaControl": view.stoppable,
        "PlayableMediaTypes": ["Video"], "SupportedCommands": [], "NowPlayingItem": now_playing,
        "PlayState": play_state(int(view.position * TICKS_PER_SECOND), view.paused),
        "RemoteEndPoint": None, "AdditionalUsers": [], "NowPlayingQueue": [], "NowPlayingQueueFullItems": [],
        "HasCustomDeviceName": False, "PlaySessionId": start.play_session_id,
    }  # fmt: skip


async def _live_session(member: DeviceSignIn, report: PlayReport) -> str | None:
    """This device's live session of ``report``: by its PlaySessionId, else by its item."""
    views: list[SessionView] = await ask(registry_ref(), ListSessions())
    mine = [v for v in views if v.start.device_id == member.device_id]
    if report.play_session_id is not None:
        match = [v for v in mine if v.start.play_session_id == report.play_session_id]
        if match:
            return match[0].id
    return next((v.id for v in mine if v.item.id == report.item_id), None)


def _player() -> DeviceSignIn:
    member = signed_in_member()
    if member is None:
        raise errors.Forbidden("A member's sign-in is required: an API key has no device.")
    return member


async def _body() -> dict[str, Any]:
    body = await request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        raise errors.Invalid("The body must be a JSON object.")
    return {str(k).lower(): v for k, v in body.items()}


def _report(body: dict[str, Any]) -> PlayReport:
    """The report's fields; 400 naming the field a player sent in a shape Jellyfin would refuse too.

    A position out of range (negative, not finite, far past the end) is
    refused further on, as natively (``check_position``).
    """
    item = body.get("itemid")
    if not isinstance(item, str) or not item.strip():
        raise errors.Invalid("ItemId is required: the GUID of the item playing.", field="ItemId")
    ticks = body.get("positionticks")
    if ticks is not None and (isinstance(ticks, bool) or not isinstance(ticks, (int, float)) or abs(ticks) > MAX_TICKS):
        raise errors.Invalid("PositionTicks must be a number of ticks (100 ns), 0 or more.", field="PositionTicks")
    session = body.get("playsessionid")
    if session is not None and not isinstance(session, str):
        raise errors.Invalid("PlaySessionId must be a string.", field="PlaySessionId")
    if session is not None and len(session) > MAX_PLAY_SESSION_ID:
        raise errors.Invalid(f"PlaySessionId is at most {MAX_PLAY_SESSION_ID} characters.", field="PlaySessionId")
    paused = body.get("ispaused") is True
    position = ticks / TICKS_PER_SECOND if ticks is not None else None
    return PlayReport(ids.item_id(item.strip()), session or None, position, paused)
