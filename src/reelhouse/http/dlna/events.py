"""GENA SUBSCRIBE and UNSUBSCRIBE at ``/dlna/events/<service>`` (UPnP Device Architecture 1.0, 4.1).

The subscriptions themselves and the NOTIFYs are the ``dlna_events``
actor's (``actors/dlna_events.py``); this module reads the headers
(:mod:`reelhouse.media.dlna.gena`) and answers: 200 with ``SID`` and
``TIMEOUT``; 412 for a missing or foreign ``CALLBACK``, a wrong ``NT``,
an unknown ``SID``; 400 for ``SID`` together with ``CALLBACK`` or ``NT``;
503 when the server holds too many subscriptions.
"""

from __future__ import annotations

from email.utils import formatdate

from quart import Response, request

from reelhouse import errors
from reelhouse.actors.dlna_events import Renew, Subscribe, Unsubscribe
from reelhouse.media.dlna import gena
from reelhouse.media.dlna.descriptions import CONNECTION_MANAGER
from reelhouse.runtime import ActorRef

from ..asks import ask
from ..context import app_context
from .content_directory import source_protocol_info


async def subscribe(service_type: str) -> Response:
    sid = request.headers.get("SID")
    seconds = gena.timeout_seconds(request.headers.get("TIMEOUT"))
    if sid is not None:
        if "CALLBACK" in request.headers or "NT" in request.headers:
            return _plain(400)
        try:
            await ask(_events(), Renew(sid, seconds))
        except errors.NotFound:
            return _plain(412)
        return _subscribed(sid, seconds)
    if request.headers.get("NT") != "upnp:event":
        return _plain(412)
    try:
        callbacks = gena.callbacks(request.headers.get("CALLBACK", ""), request.remote_addr)
    except gena.BadSubscription:
        return _plain(412)
    initial = (
        (("SourceProtocolInfo", await source_protocol_info()), ("SinkProtocolInfo", ""), ("CurrentConnectionIDs", "0"))
        if service_type == CONNECTION_MANAGER
        else ()
    )
    sid = await ask(_events(), Subscribe(service_type, callbacks, seconds, initial))
    return _subscribed(sid, seconds)


async def unsubscribe() -> Response:
    sid = request.headers.get("SID")
    if sid is None:
        return _plain(412)
    try:
        await ask(_events(), Unsubscribe(sid))
    except errors.NotFound:
        return _plain(412)
    return _plain(200)


def _events() -> ActorRef:
    actors = app_context().actors
    ref = None if actors is None else actors.dlna_events
    if ref is None:
        raise errors.Unavailable("DLNA eventing is not running.", params={"retryAfterSeconds": 5})
    return ref


def _subscribed(sid: str, seconds: int) -> Response:
    answer = _plain(200)
    answer.headers["SID"] = sid
    answer.headers["TIMEOUT"] = f"Second-{seconds}"
    answer.headers["DATE"] = formatdate(usegmt=True)
    answer.headers["SERVER"] = "Linux/1.0 UPnP/1.0 Reelhouse"
    return answer


def _plain(status: int) -> Response:
    return Response(b"", status=status)
