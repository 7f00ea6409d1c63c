"""GET /videos/{itemId}/stream: direct play of an item's primary version (api-decisions.md).

Who may call it: a device token (a player; the endpoint is in
``PLAYER_ENDPOINTS``) within its member's libraries (another library's
item is 404 as if absent, :mod:`reelhouse.http.library_access`), and an
API key (an administrator's credential: it already reads every item, its
paths and images, so streaming reveals nothing more, and scripts and the
benchmarks check playback with it).  Only a device's bytes are counted
for its playback session (:mod:`reelhouse.http.stream_meter`).

A local file is served as it is (:mod:`reelhouse.http.file_body`, shared
with the image route): ``Accept-Ranges: bytes``, one ``Range`` -> 206 with
``Content-Range``, unsatisfiable -> 416 with ``Content-Range: bytes
*/size``; a strong ``ETag`` (size and modification time), ``Last-Modified``,
``If-Range``, ``If-None-Match`` / ``If-Modified-Since`` -> 304,
``If-Match`` / ``If-Unmodified-Since`` -> 412 (:mod:`.conditional`).
``Content-Type`` from the file's extension (:mod:`reelhouse.media.video_types`).
The file is opened only through
:func:`~reelhouse.storage.confined_files.open_confined`: one that resolves
outside its library's roots (a symbolic link out, swapped in after the
scan included) is 404 and never a byte of it is sent.  Stats and the open
run on :data:`FILE_THREADS` dedicated threads, each within
:data:`READ_TIMEOUT_SECONDS`: a hung mount is 503 before the body started.
The body is sent by the server from that opened descriptor with
``os.sendfile`` (:mod:`reelhouse.http.zero_copy`, the edge's
:mod:`~reelhouse.http.edge.file_send`), :data:`SLICE_BYTES` a message,
each sendfile within :data:`READ_TIMEOUT_SECONDS` (a hung mount mid-body
cuts the body short); under a server without that extension (the app's
test client) it is read on the file threads :data:`CHUNK_BYTES` at a
time.  The response has no overall time limit (a film takes hours), but
a client that takes no byte for :data:`STALL_SECONDS` is cut off.

A remote (``.strm``) source is delivered as ``delivery`` asks
(:mod:`reelhouse.http.remote_stream`): ``redirect`` (the default: the
player fetches the source itself and the server carries no traffic) or
``proxy``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

import httpx
import trio
from pydantic import Field
from quart import Blueprint, Response, current_app, request
from quart_schema import document_querystring
from werkzeug.http import http_date

from reelhouse.errors import Invalid, NotFound
from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.media.file_names import to_fs
from reelhouse.media.video_types import SERVED_VIDEO_TYPES, video_content_type
from reelhouse.storage.confined_files import OutsideRoots
from reelhouse.storage.stream_sources import ItemWithoutSource, StreamSource, find_stream_source

from . import remote_stream
from .conditional import PARTIAL_CONTENT, evaluate
from .context import app_context
from .device_auth import signed_in_member
from .file_body import (
    READ_CHUNK_BYTES,
    FileRange,
    file_call,
    file_chunks,
    file_slices,
    short_answer,
    stat_confined,
)
from .library_access import require_item_visible, visible
from .openapi import BINARY, may_answer, raw_response
from .schema import ApiModel
from .stream_meter import Meter, StreamMeter
from .zero_copy import FileSlice, offered

log = logging.getLogger(__name__)

blueprint = Blueprint("stream", __name__)

FILE_THREADS = 8
"""Stats and reads of video files at once (a hung mount holds one until it answers)."""
CHUNK_BYTES = READ_CHUNK_BYTES
"""Bytes per read and per write of a local file when the server cannot send it from the file
(the app's test client), and at most this much in memory per stream.  Each write is copied
to the socket on the event loop's thread, so it is what one stream's turn costs every other
request: measured with benchmarks/playback_load.py (20 players,
200 sessions), 1 MiB gave the same MB/s as 256 KiB but session reports about 5 times
slower (p50 ~200 ms against ~30 ms); 64-128 KiB cost a third of the MB/s."""
SLICE_BYTES = 64 * 1024 * 1024
"""Bytes of a body sent from the file per message.  Each message costs the event loop a pass
through the app, h11 and the edge and a hop to a sendfile thread and back (about 0.25 ms of the
loop's CPU measured under eight streams), time every other request waits behind: at 4 MiB that
was about 1,200 passes a second at 4.7 GiB/s, at 64 MiB it is 16 a GiB.  The session's byte count
still moves as the kernel takes the bytes (the edge calls the slice's ``on_sent``), not once a
slice is sent."""
READ_TIMEOUT_SECONDS = 10.0
"""One stat or read of a video file, or one read from a proxied source."""
CLOSE_TIMEOUT_SECONDS = 5.0
STALL_SECONDS = 300.0
"""A client that takes no byte of its stream for this long is cut off (http/streams.StalledWrites):
a paused player whose buffer is full asks again with a Range when it plays on."""
_EXTENSION_KEY = "reelhouse.stream"
_GONE = (FileNotFoundError, NotADirectoryError, PermissionError)  # gone, or not the server's to read


class Delivery(StrEnum):
    REDIRECT = "redirect"
    PROXY = "proxy"


class StreamQuery(ApiModel):
    delivery: str | None = Field(
        None,
        description="For a remote (.strm) source: redirect (default; 302 to the source) or proxy "
        "(the server fetches it). Ignored for a local file.",
    )


@dataclass(frozen=True, slots=True)
class _Service:
    files: ThreadPool[None]
    upstream: httpx.AsyncClient


@blueprint.get("/videos/<item_id>/stream")
@document_querystring(StreamQuery)
@raw_response(200, SERVED_VIDEO_TYPES, "The whole file (Content-Type by its container).", BINARY)
@raw_response(206, SERVED_VIDEO_TYPES, "The requested byte range (Content-Range).", BINARY)
@raw_response(302, None, "A remote source delivered by redirect: Location is the source.")
@raw_response(304, None, "Not modified (If-None-Match, If-Modified-Since).")
@may_answer(
    (403, "The remote source's host is not allowed by the library's remoteAllowedHosts."),
    (404, "No such item, not visible to the member, no file (a series), or the file is gone."),
    (412, "A precondition failed (If-Match, If-Unmodified-Since)."),
    (416, "The range cannot be satisfied (Content-Range: bytes */size)."),
    (502, "A proxied remote source cannot be reached or answered an error."),
    (503, "The file did not answer in time (a hung mount)."),
)
async def stream_video(item_id: str) -> Response:
    """Direct play of the item's primary version, for players (device token) and API keys.

    A local file is served as it is: Accept-Ranges: bytes; one bytes Range
    gives 206 with Content-Range (If-Range honoured), an unsatisfiable one
    416 with Content-Range: bytes */size; strong ETag and Last-Modified;
    If-None-Match / If-Modified-Since give 304. Content-Type follows the
    container (mp4 video/mp4, mkv video/x-matroska, webm video/webm, avi
    video/x-msvideo, ts video/mp2t...).

    A remote (.strm) source: delivery=redirect (default) answers 302 to
    the source; delivery=proxy has the server fetch it (Range and the
    conditional headers forwarded, the answer relayed). Both are refused
    (403 forbidden) unless the library's remoteAllowedHosts allows the
    host: when the list is empty, any host except loopback, link-local and
    unspecified addresses; when set, only those hosts. A proxy checks
    every redirect hop again (at most 5 hops). Another delivery value is
    400 field_invalid.

    404 not_found: unknown item, an item of a library the member may not
    see, an item without a file (a series), a file gone from disk or
    resolving outside the library's folders. 503: the file did not answer
    in time; a read that stalls mid-body cuts the response short.

    The response has no overall time limit, but a client that takes no
    byte for 5 minutes is cut off (a paused player asks again with a
    Range). The bytes sent to a device token count toward its playback
    session's bandwidthKbps (a redirect sends none).
    """
    delivery = _delivery(request.args.get("delivery"))
    found = await find_stream_source(app_context().store, item_id)
    if not visible(found.library_id):
        raise NotFound(f"No item {item_id}.")
    await require_item_visible(item_id)  # parental controls
    if isinstance(found, ItemWithoutSource):
        raise NotFound("The item has no file to stream.")
    meter = _meter(item_id)
    if not found.remote:
        return await _local(found, meter)
    if delivery is Delivery.REDIRECT:
        await remote_stream.check_target(found.path, found.allowed_hosts)
        return remote_stream.redirect(found.path)
    upstream = _service().upstream
    return await remote_stream.proxy(
        upstream, found.path, found.allowed_hosts, request.headers, request.method, meter, READ_TIMEOUT_SECONDS
    )


def _delivery(value: str | None) -> Delivery:
    if value is None:
        return Delivery.REDIRECT
    try:
        return Delivery(value.strip().lower())
    except ValueError:
        raise Invalid("delivery must be redirect or proxy.", field="delivery") from None


def _meter(item_id: str) -> Meter:
    """The request's byte counter: a device's counts for its session; an API key's counts nothing."""
    member = signed_in_member()
    if member is None:
        return Meter()
    actors = app_context().actors
    return StreamMeter(actors.playback if actors is not None else None, member.device_id, item_id)


async def _local(source: StreamSource, meter: Meter) -> Response:
    path = Path(to_fs(source.path))
    files = _service().files
    data_dir = app_context().settings.data_dir
    try:
        size, mtime, within = await file_call(files, READ_TIMEOUT_SECONDS, stat_confined, path, source.roots, data_dir)
    except _GONE:
        raise NotFound("The video file is missing from disk or cannot be read.") from None
    except OutsideRoots:
        raise NotFound("The video file is not inside the library's folders.") from None
    modified = datetime.fromtimestamp(mtime, UTC)
    headers = {
        "ETag": f'"{size:x}-{int(mtime * 1_000_000):x}"',
        "Last-Modified": http_date(modified),
        "Accept-Ranges": "bytes",
    }
    decision = evaluate(request.headers, headers["ETag"], modified, size, request.method)
    short = short_answer(decision, headers)
    if short is not None:
        return short
    start, length = 0, size
    if decision.status == PARTIAL_CONTENT:
        assert decision.start is not None and decision.length is not None and decision.content_range
        start, length = decision.start, decision.length
        headers["Content-Range"] = decision.content_range
    reader = FileRange(path, within, size, start, length, CHUNK_BYTES)
    zero_copy = offered(request.scope)
    opening = functools.partial(reader.open, _no_inspection, with_body=request.method != "HEAD",
                                read_first=not zero_copy)  # fmt: skip
    try:
        _, first = await file_call(files, READ_TIMEOUT_SECONDS, opening)
    except _GONE:
        raise NotFound("The video file is missing from disk or cannot be read.") from None
    except OutsideRoots:
        raise NotFound("The video file is not inside the library's folders.") from None
    body: AsyncIterator[bytes] | AsyncIterator[FileSlice]
    if zero_copy and reader.is_open:
        body = file_slices(reader, files, SLICE_BYTES, READ_TIMEOUT_SECONDS, meter.add, meter.flush)
    else:
        body = file_chunks(reader, first, files, READ_TIMEOUT_SECONDS, meter.add, meter.flush)
    response = Response(body, status=decision.status, headers=headers)
    response.content_type = video_content_type(path.name)
    response.headers["Content-Length"] = str(length)
    response.timeout = None  # a film takes longer than Quart's default response time
    return response


def stall_seconds() -> float:
    """:data:`STALL_SECONDS`, read when a request starts (tests shorten it)."""
    return STALL_SECONDS


def _no_inspection(_file: BinaryIO) -> None:
    return None


# -- the app's stream service ----------------------------------------------------------


@blueprint.before_app_serving
async def _start_service() -> None:
    files: ThreadPool[None] = ThreadPool([None] * FILE_THREADS, name="stream-files")
    # In a worker thread: the first client in the process loads the CA bundle (tens of ms of CPU).
    upstream = await trio.to_thread.run_sync(remote_stream.upstream_client, READ_TIMEOUT_SECONDS)
    current_app.extensions[_EXTENSION_KEY] = _Service(files, upstream)


@blueprint.after_app_serving
async def _stop_service() -> None:
    service = current_app.extensions.pop(_EXTENSION_KEY, None)
    if service is None:
        return
    await service.upstream.aclose()
    if not await service.files.aclose(CLOSE_TIMEOUT_SECONDS):
        log.warning("stream file threads still busy after %.0f s (a hung mount?); left behind", CLOSE_TIMEOUT_SECONDS)


def _service() -> _Service:
    return current_app.extensions[_EXTENSION_KEY]
