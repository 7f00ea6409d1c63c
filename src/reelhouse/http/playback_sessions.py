"""GET /admin/playback/sessions and POST /admin/playback/sessions/{id}/stop (reference, Playback).

Live sessions exist only in memory: the list asks the PlaybackRegistry
(which gathers a view from each session, see ``actors/playback``; on a
cluster, every node's, see ``actors/cluster/playback.py``); the store is read only
to tell which items are gone (``itemDeleted``, then no ``title``).  A stop
sends ``stop`` down the player's remote-control socket and answers 204 once
the socket took it; the session then ends when the player reports
``stopped``, or after ``[playback] stop_wait_seconds``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from quart import Blueprint, Response
from quart_schema import document_response

from reelhouse.actors.playback.messages import ListSessions, SessionView, StopSession
from reelhouse.storage.playback_items import unreadable_items
from reelhouse.timefmt import rfc3339_ms

from .activity_recording import log_activity
from .asks import ask
from .context import app_context
from .openapi import may_answer, raw_response
from .playback_reports import registry_ref
from .schema import ApiModel

blueprint = Blueprint("playback_sessions", __name__)


class PlaybackSession(ApiModel):
    id: str
    item_id: str
    member_id: str
    member: str = Field(description="The member's display name.")
    device: str
    player: str
    started_at: str
    position_sec: float
    duration_sec: float
    progress: float = Field(description="0 to 1; 0 when the duration is unknown.")
    paused: bool
    bandwidth_kbps: int = Field(description="Real traffic through the server; 0 for redirects.")
    stoppable: bool = Field(description="The player holds its remote-control socket.")
    bitrate_kbps: int | None = None
    episode: str | None = None
    item_deleted: bool | None = None
    season_id: str | None = None
    series_id: str | None = None
    title: str | None = Field(None, description="For an episode, the series name.")


@blueprint.get("/admin/playback/sessions")
@document_response(list[PlaybackSession], 200)
@may_answer((403, "A device token: this is the administrative API."), 503)
async def list_sessions() -> list[dict[str, Any]]:
    """Every live playback session, oldest first (on a cluster, every node's)."""
    views: list[SessionView] = await ask(registry_ref(), ListSessions())
    gone = await unreadable_items(app_context().store, {view.item.id for view in views})
    return [session_json(view, view.item.id in gone) for view in views]


@blueprint.post("/admin/playback/sessions/<session_id>/stop")
@raw_response(204, None, "stop went down the player's socket; the session ends on its stopped report or soon after.")
@may_answer(
    (403, "A device token: this is the administrative API."),
    (404, "No live session with that id."),
    (409, "session_not_stoppable: the player holds no remote-control socket."),
    503,
)
async def stop_session(session_id: str) -> Response:
    """Ask the player to stop (204 once the socket took the message); on a cluster, sent to any node."""
    await ask(registry_ref(), StopSession(session_id))
    await log_activity("session.stop", "security", "", session_id)
    return Response(b"", status=204)


def session_json(view: SessionView, item_deleted: bool) -> dict[str, Any]:
    item, start = view.item, view.start
    duration = item.duration_sec
    body: dict[str, Any] = {
        "id": view.id,
        "itemId": item.id,
        "memberId": start.member_id,
        "member": start.member_name,
        "device": start.device_name,
        "player": start.player,
        "startedAt": rfc3339_ms(view.started_at_ms),
        "positionSec": round(view.position, 3),
        "durationSec": round(duration, 3),
        "progress": round(min(view.position / duration, 1.0), 4) if duration > 0 else 0.0,
        "paused": view.paused,
        "bandwidthKbps": view.bandwidth_kbps,
        "stoppable": view.stoppable,
    }
    optional = {"bitrateKbps": item.bitrate_kbps, "episode": item.episode,
                "seasonId": item.season_id, "seriesId": item.series_id}  # fmt: skip
    body.update({name: value for name, value in optional.items() if value is not None})
    if item_deleted:
        body["itemDeleted"] = True
    else:
        body["title"] = item.title
    return body
