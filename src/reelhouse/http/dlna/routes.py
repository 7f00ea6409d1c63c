"""The DLNA MediaServer's HTTP routes, outside /api/v1 and without a key (docs/dlna.md).

``/dlna/description.xml`` (the device), ``/dlna/<service>.xml`` (SCPDs),
``POST /dlna/control/<service>`` (SOAP actions), ``SUBSCRIBE`` /
``UNSUBSCRIBE /dlna/events/<service>`` (GENA eventing), ``/dlna/media/<id>`` (the
item's file, through the native stream route: confined to its library's
folders, ranges, conditional requests) and ``/dlna/art/<id>`` (the poster
as a JPEG thumbnail, through the native image route).  Every route runs as
the DLNA member (:mod:`.access`) and is 404 while ``[dlna] enabled`` is false.
"""

from __future__ import annotations

from quart import Blueprint, Response, request
from quart_schema import hide

from reelhouse import errors
from reelhouse.media.dlna import descriptions
from reelhouse.media.dlna.soap import SoapError, action_response, fault, parse_action

from ..auth import DLNA_BLUEPRINT
from ..context import app_context
from ..images import ImageRequest, serve_item_image
from ..video_stream import stream_video
from . import events
from .access import admit_dlna_request
from .content_directory import perform
from .objects import SUBTITLE_KINDS as SUBTITLE_TYPES
from .plays import count_play
from .resources import resource_facts, subtitle_file

blueprint = Blueprint(DLNA_BLUEPRINT, __name__)
blueprint.before_request(admit_dlna_request)

XML = "text/xml; charset=utf-8"
SERVICES = {
    "contentdirectory": (descriptions.CONTENT_DIRECTORY, descriptions.CONTENT_DIRECTORY_ACTIONS,
                         descriptions.CONTENT_DIRECTORY_VARIABLES),
    "connectionmanager": (descriptions.CONNECTION_MANAGER, descriptions.CONNECTION_MANAGER_ACTIONS,
                          descriptions.CONNECTION_MANAGER_VARIABLES),
}  # fmt: skip
# DLNA's JPEG_TN: a JPEG within 160x160 (a rendition; WebP only for clients that ask, which televisions do not).
THUMBNAIL = ImageRequest("primary", 0, None, max_width=160, max_height=160, fill_width=None, fill_height=None)


@blueprint.get("/dlna/description.xml")
@hide
async def description() -> Response:
    ctx = app_context()
    udn = descriptions.device_udn(ctx.server_id)
    body = descriptions.device_description(ctx.settings.effective_server_name, udn, ctx.version)
    return Response(body, content_type=XML)


@blueprint.get("/dlna/<service>.xml")
@hide
async def service_description(service: str) -> Response:
    if service not in SERVICES:
        raise errors.NotFound("No such service.")
    _, actions, variables = SERVICES[service]
    return Response(descriptions.scpd(actions, variables), content_type=XML)


@blueprint.post("/dlna/control/<service>")
@hide
async def control(service: str) -> Response:
    if service not in SERVICES:
        raise errors.NotFound("No such service.")
    service_type = SERVICES[service][0]
    try:
        # Read whole (the app caps a body at 1 MiB, 413): answering before a large body is read would
        # reset the connection under the client still sending it; parse_action refuses over MAX_BODY_BYTES.
        raw = await request.get_data(cache=False, as_text=False)
        action = parse_action(raw if isinstance(raw, bytes) else raw.encode())
        out = await perform(service_type, action, request.host_url.rstrip("/"))
    except SoapError as exc:
        return Response(fault(exc), status=500, content_type=XML)
    return Response(action_response(service_type, action.name, out), content_type=XML)


@blueprint.route("/dlna/events/<service>", methods=["SUBSCRIBE", "UNSUBSCRIBE"])
@hide
async def service_events(service: str) -> Response:
    """GENA eventing of the service (:mod:`.events`)."""
    if service not in SERVICES:
        raise errors.NotFound("No such service.")
    if request.method == "UNSUBSCRIBE":
        return await events.unsubscribe()
    return await events.subscribe(SERVICES[service][0])


@blueprint.route("/dlna/media/<item_id>", methods=["GET", "HEAD"])
@hide
async def media(item_id: str) -> Response:
    """The file as it is; a time-seek request is refused (406), as DLNA asks of a byte-seek-only server.

    A GET counts toward the renderer's playback session (:mod:`.plays`).
    """
    if "TimeSeekRange.dlna.org" in request.headers:
        return Response(b"", status=406)
    answer = await stream_video(item_id)  # 404 unless the member may see it
    facts = await resource_facts(item_id, request.host_url.rstrip("/"))
    if answer.status_code < 300:
        await count_play(item_id, facts.size)
    answer.headers["transferMode.dlna.org"] = "Streaming"
    if request.headers.get("getcontentFeatures.dlna.org") == "1":
        answer.headers["contentFeatures.dlna.org"] = facts.content_features
    if request.headers.get("getCaptionInfo.sec") == "1" and facts.caption_url is not None:
        answer.headers["CaptionInfo.sec"] = facts.caption_url
    return answer


@blueprint.route("/dlna/subtitles/<item_id>/<int:index>.<ext>", methods=["GET", "HEAD"])
@hide
async def subtitles(item_id: str, index: int, ext: str) -> Response:
    """An external subtitle of the item, as it is (``text/srt``... by its extension)."""
    kind = next((mime for kind, mime in SUBTITLE_TYPES.values() if kind == ext.lower()), None)
    if kind is None:
        raise errors.NotFound("No such subtitle format.")
    return Response(await subtitle_file(item_id, index), content_type=f"{kind}; charset=utf-8")


@blueprint.route("/dlna/art/<item_id>", methods=["GET", "HEAD"])
@hide
async def art(item_id: str) -> Response:
    answer = await serve_item_image(item_id, THUMBNAIL)
    answer.headers["transferMode.dlna.org"] = "Interactive"
    return answer
