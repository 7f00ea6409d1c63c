"""GET /scans/events: the scan progress stream (server-sent events).

Contract (api-decisions.md): every event has ``id: N``, the global sequence
number; ``data:`` is one line of JSON, the library's ScanStatus. Without
``Last-Event-ID`` the stream starts with one ``scan.snapshot`` per library;
with it, every kept event after N is replayed, or, when N is older than
what is kept, the snapshots are sent instead. A ``: keep-alive`` comment
goes out at least every 15 seconds. A client that falls too far behind is
dropped: its connection is closed at once, even while a write waits for
it to read (``abortable_streams.py``), so it sees end of file, reconnects and
resumes; shutdown ends every stream.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, cast

import trio
from quart import Blueprint, Response, request
from quart_schema import document_headers, document_querystring

from reelhouse import errors
from reelhouse.runtime import Event, Gap, SubscriberDropped

from .abortable_streams import ABORT_KEY
from .context import AppContext, app_context
from .openapi import raw_response
from .rendered_models import ScanEventsHeaders, ScanEventsQuery
from .scans import all_scan_statuses

blueprint = Blueprint("events", __name__)

KEEPALIVE_SECONDS = 15.0
# How often a waiting stream looks at the shutdown flag.
SHUTDOWN_POLL_SECONDS = 1.0
_EVENT_ID = re.compile(r"[0-9]{1,18}")


@blueprint.get("/scans/events")
@document_headers(ScanEventsHeaders)
@document_querystring(ScanEventsQuery)
@raw_response(200, "text/event-stream", "Server-sent events: id, event (scan.*), data (one line of ScanStatus JSON).",
              {"type": "string"})  # fmt: skip
async def scan_events() -> Response:
    after = _last_event_id()
    # The body is produced after the handler returned, outside the request
    # and app contexts: everything it needs is passed in now.
    abort = cast("Callable[[], None] | None", request.scope.get(ABORT_KEY))  # set by AbortableStreams
    response = Response(_stream(after, app_context(), abort), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    response.timeout = None  # a stream lives as long as the client stays
    return response


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("lastEventId")
    if raw is None or raw == "":
        return None
    # ASCII digits only (str.isdigit also takes "²", which int() refuses),
    # and few enough to fit the stores' 64-bit sequence column.
    if not _EVENT_ID.fullmatch(raw):
        raise errors.Invalid("Last-Event-ID must be a decimal event id.", field="Last-Event-ID")
    return int(raw)


async def _stream(after: int | None, ctx: AppContext, abort: Callable[[], None] | None) -> AsyncIterator[bytes]:
    bus = ctx.actors.bus
    # Subscribing at the bus's last seq replays nothing; what follows is live.
    start = bus.last_seq if after is None else after
    async with bus.subscribe(after=start) as subscription:
        if abort is not None:
            subscription.on_drop(abort)  # ends the response even while a write waits on the client
        yield b": stream open\n\n"  # headers go out now, not at the first event
        if after is None:
            async for chunk in _snapshots(ctx, bus.last_seq):
                yield chunk
        events = subscription.__aiter__()
        idle = 0.0
        while not ctx.shutting_down.is_set():
            item: Event | Gap | None = None
            with trio.move_on_after(SHUTDOWN_POLL_SECONDS):
                try:
                    item = await events.__anext__()
                except (StopAsyncIteration, SubscriberDropped):
                    return
            if item is None:
                idle += SHUTDOWN_POLL_SECONDS
                if idle >= KEEPALIVE_SECONDS:
                    idle = 0.0
                    yield b": keep-alive\n\n"
                continue
            idle = 0.0
            if isinstance(item, Gap):
                async for chunk in _snapshots(ctx, item.live_after):
                    yield chunk
            else:
                yield _format(item.seq, item.kind, item.data)


async def _snapshots(ctx: AppContext, seq: int) -> AsyncIterator[bytes]:
    for status in await all_scan_statuses(ctx.actors.libraries, ctx.settings.http.ask_timeout_seconds):
        yield _format(seq, "scan.snapshot", status.to_json())


def _format(seq: int, kind: str, data: Mapping[str, Any]) -> bytes:
    payload = json.dumps(data, separators=(",", ":"), default=_plain)
    return f"id: {seq}\nevent: {kind}\ndata: {payload}\n\n".encode()


def _plain(value: object) -> object:
    # Published event data is frozen (a mappingproxy); JSON wants a dict.
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
