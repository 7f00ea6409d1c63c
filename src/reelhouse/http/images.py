"""GET /images/items/{id}: an item's image, as stored or resized, with HTTP caching.

Choices the reference leaves open:

- ``kind`` (ImageKind, default ``primary``) and ``index`` (default 0) pick
  the image; unknown values are 400 ``field_invalid``.
- Without size parameters the stored file is served byte for byte with
  its own content type (sniffed from its first bytes); with any of them, a
  JPEG rendition, or WebP when Accept names ``image/webp`` (those
  responses carry ``Vary: Accept``).
- ``tag`` equal to the image's current tag: ``Cache-Control: public,
  max-age=31536000, immutable``.  Any other ``tag`` (a stale URL) is served
  the current image with ``Cache-Control: no-cache``, as is a request
  without ``tag``: a stale link still shows the picture, and a client never
  pins the new bytes to the old URL.
- ``ETag`` is strong: the image tag for the stored file, the tag plus the
  size parameters and format for a rendition.  ``Last-Modified`` is the
  file's modification time.  Conditional and range requests follow
  :mod:`reelhouse.http.conditional`; 304, 412 and 416 carry ``ETag``,
  ``Last-Modified`` and ``Accept-Ranges`` too, 412 and 416 the error body
  (code ``bad_request``), 416 also ``Content-Range: bytes */length``.
  Preconditions are decided before any rendering: a 304 never renders.
- 404 ``not_found``: unknown item, no image of that kind and index, the
  file gone from disk, a file that resolves outside its library's roots
  (checked on the opened file: a symbolic link swapped after the scan is
  not followed out; an image a provider gave must resolve inside the
  server's provider image store, ``<data_dir>/metadata``, instead), or a file that is not an image (its first bytes are
  no JPEG, PNG, WebP, GIF or BMP: a non-image is never served as one).  500 ``internal_error`` (with the error body): a
  file that does not decode or is too large to render (the item claims an
  image the server cannot produce; 404 would tell the client it does not
  exist).  503 ``service_unavailable`` with ``Retry-After`` when rendering
  exceeds :data:`RENDER_TIMEOUT_SECONDS`.

The stored file a request names is found by
:class:`reelhouse.http.image_sources.ImageSources`, which remembers it
briefly (until the next write of the catalogue; the file is looked at again
every 10 s, and an original found not of the remembered size is looked up
anew).
Renditions are cached on disk (:mod:`reelhouse.storage.image_cache`) under
``<data_dir>/cache/images`` within ``settings.image_cache_max_bytes``, the
most used of them in memory too: a repeated request for a rendition needs
no thread at all.
Decoding and encoding run in worker threads, at most
:data:`RENDER_CONCURRENCY` at once.  Stats and file reads run on
:data:`FILE_CONCURRENCY` dedicated file threads
(:class:`reelhouse.thread_pool.ThreadPool`: a hop costs a third of
``trio.to_thread``'s); a stored image under 256 KiB is opened, sniffed,
read and closed in one hop.  The limiter, the file threads and the cache
live on the app from the start of serving to its end.  A request cancelled
while rendering abandons the thread, which finishes in the background
holding its slot.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeVar

import trio
from pydantic import Field
from quart import Blueprint, Response, current_app, request
from quart_schema import document_querystring

from reelhouse.errors import Invalid, NotFound, Unavailable
from reelhouse.media.local_images import SNIFF_BYTES, ImageKind, sniff_image_type
from reelhouse.media.renditions import (
    CONTENT_TYPES,
    MAX_SIZE,
    BrokenImage,
    ImageTooLarge,
    negotiate_format,
    render,
    validate_size,
)
from reelhouse.storage.confined_files import OutsideRoots, open_confined, read_confined
from reelhouse.storage.image_cache import IMAGE_CACHE_DIR, ImageCache, RenditionKey
from reelhouse.thread_pool import ThreadPool

from .conditional import (
    NOT_MODIFIED,
    PARTIAL_CONTENT,
    PRECONDITION_FAILED,
    RANGE_NOT_SATISFIABLE,
    Decision,
    evaluate,
)
from .context import app_context
from .openapi import may_answer, raw_response
from .errors import error_response
from .library_access import require_item_visible
from .image_sources import (
    RETRY_AFTER_SECONDS,
    SOURCE_TIMEOUT_SECONDS,
    ImageSources,
    SourceImage,
    SourceChanged,
    source_file_call,
)
from .schema import ApiModel

log = logging.getLogger(__name__)
T = TypeVar("T")

blueprint = Blueprint("images", __name__)

RENDER_CONCURRENCY = 2
"""Renders at once (CPU-bound, Pillow releases the GIL while resampling)."""
FILE_CONCURRENCY = 8
"""File threads: stats, reads and cache files at once."""
FILES_CLOSE_TIMEOUT_SECONDS = 5.0
RENDER_TIMEOUT_SECONDS = 30.0
"""Reading plus rendering one image; beyond it the request gets 503."""
MAX_SOURCE_BYTES = 128 * 1024 * 1024
"""Larger stored files are not loaded to be rendered (served as is, they stream)."""
READ_CHUNK_BYTES = 256 * 1024
MAX_INDEX = 10_000
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
SIZE_PARAMETERS = ("maxWidth", "maxHeight", "fillWidth", "fillHeight")
_EXTENSION_KEY = "reelhouse.images"
_PLAIN_TAG = re.compile(r"[A-Za-z0-9._-]{1,64}")
_KINDS = {kind.value for kind in ImageKind}


class ImageQuery(ApiModel):
    tag: str | None = Field(None, description="The image tag from the item: makes the response immutable.")
    max_width: int | None = Field(None, description=f"Scale down to fit, keeping aspect; 1 to {MAX_SIZE}.")
    max_height: int | None = Field(None, description=f"Scale down to fit, keeping aspect; 1 to {MAX_SIZE}.")
    fill_width: int | None = Field(None, description=f"Scale and centre-crop to fill; 1 to {MAX_SIZE}.")
    fill_height: int | None = Field(None, description=f"Scale and centre-crop to fill; 1 to {MAX_SIZE}.")
    kind: str | None = Field(None, description="ImageKind; default primary.")
    index: int | None = Field(None, description="Index among the item's images of that kind; default 0.")


@dataclass(frozen=True, slots=True)
class ImageRequest:
    kind: str
    index: int
    tag: str | None
    max_width: int | None
    max_height: int | None
    fill_width: int | None
    fill_height: int | None

    @property
    def sized(self) -> bool:
        return any(v is not None for v in (self.max_width, self.max_height, self.fill_width, self.fill_height))


@dataclass(frozen=True, slots=True)
class _Service:
    sources: ImageSources
    cache: ImageCache
    render_limiter: trio.CapacityLimiter
    files: ThreadPool[None]


class _CannotRender(Exception):
    """The stored file cannot be made into a rendition (answered 500)."""


class _NotAnImage(NotFound):
    """The stored file is no image the server knows (answered 404, never its bytes)."""

    def __init__(self) -> None:
        super().__init__("The image file is not an image.")


@blueprint.get("/images/items/<item_id>")
@document_querystring(ImageQuery)
@raw_response(200, "image/*", "The image: the stored file, or a JPEG or WebP rendition.")
@raw_response(206, "image/*", "The requested byte range of the image.")
@raw_response(304, None, "Not modified (If-None-Match, If-Modified-Since).")
@may_answer(
    (412, "A precondition failed (If-Match, If-Unmodified-Since)."), (416, "The range cannot be satisfied.")
)
async def item_image(item_id: str) -> Response:
    """An item's image: the stored file, or a resized JPEG/WebP rendition.

    Extra query parameters (beyond the reference): kind (ImageKind: primary,
    backdrop, logo, thumb, banner, art, disc, photo, still; default primary)
    and index (0 and up, default 0) pick which of the item's images.

    Without maxWidth, maxHeight, fillWidth or fillHeight the stored file is
    served as it is. maxWidth/maxHeight scale down keeping the aspect ratio;
    fillWidth and fillHeight together scale and centre-crop to exactly that
    size (never upscaled). Renditions are JPEG, or WebP when Accept lists
    image/webp (responses then vary on Accept). Sizes are 1 to 10000, else
    400 field_invalid naming the parameter.

    Every image response has a strong ETag, Last-Modified and
    Accept-Ranges: bytes. With tag equal to the image's current tag the
    response is Cache-Control: public, max-age=31536000, immutable; with
    any other or no tag the current image is served with no-cache.
    If-None-Match / If-Modified-Since give 304; If-Match /
    If-Unmodified-Since failures 412; one bytes Range gives 206 with
    Content-Range (If-Range honoured), an unsatisfiable one 416.

    404 not_found: unknown item, no such image, or its file is gone. 500
    internal_error: the file cannot be decoded. 503: rendering timed out.
    """
    wanted = parse_image_request(request.args)
    await require_item_visible(item_id)
    sources = _service().sources
    source = await sources.find(item_id, wanted.kind, wanted.index)
    if not wanted.sized:
        try:
            return await _original(source, wanted)
        except SourceChanged:  # remembered stale: look again, once (a second change is 503)
            sources.forget(item_id, wanted.kind, wanted.index)
            return await _original(await sources.find(item_id, wanted.kind, wanted.index), wanted)
    try:
        return await _rendition(source, wanted)
    except _CannotRender as exc:
        log.warning("image of item %s (%s) cannot be rendered: %s", item_id, source.path, exc)
        return error_response(500, "internal_error", "The stored image cannot be rendered.")


def parse_image_request(args: Mapping[str, str]) -> ImageRequest:
    """The request's parameters; Invalid naming the first bad one."""
    kind = args.get("kind", "primary").lower()  # an empty kind is invalid, not the default
    if kind not in _KINDS:
        raise Invalid(f"kind must be one of {', '.join(sorted(_KINDS))}.", field="kind")
    index = _integer(args, "index", default=0)
    if index is None or not 0 <= index <= MAX_INDEX:
        raise Invalid(f"index must be an integer from 0 to {MAX_INDEX}.", field="index")
    sizes = [validate_size(name, _integer(args, name, default=None)) for name in SIZE_PARAMETERS]
    return ImageRequest(kind, index, args.get("tag"), *sizes)


def _integer(args: Mapping[str, str], name: str, *, default: int | None) -> int | None:
    raw = args.get(name)
    if raw is None:
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise Invalid(f"{name} must be an integer.", field=name) from None


# -- answers ----------------------------------------------------------------------


def _headers(source: SourceImage, etag: str, wanted: ImageRequest) -> dict[str, str]:
    return {
        "ETag": etag,
        "Last-Modified": source.last_modified,
        "Accept-Ranges": "bytes",
        "Cache-Control": IMMUTABLE if wanted.tag is not None and wanted.tag == source.tag else REVALIDATE,
    }


def _short_answer(decision: Decision, headers: dict[str, str]) -> Response | None:
    """The answer without a body (304) or with the error body (412, 416); None for 200/206."""
    if decision.status == NOT_MODIFIED:
        return Response(b"", status=NOT_MODIFIED, headers=headers)
    if decision.status == PRECONDITION_FAILED:
        return error_response(412, "bad_request", "A precondition of the request failed.", headers=headers)
    if decision.status == RANGE_NOT_SATISFIABLE:
        assert decision.content_range is not None
        answer_headers = {**headers, "Content-Range": decision.content_range}
        return error_response(416, "bad_request", "The range cannot be satisfied.", headers=answer_headers)
    return None


def _etag_token(tag: str) -> str:
    """The tag itself when it is plain text, else a hash of it (an ETag holds no quotes)."""
    if _PLAIN_TAG.fullmatch(tag):
        return tag
    return hashlib.sha256(tag.encode()).hexdigest()[:16]


async def _original(source: SourceImage, wanted: ImageRequest) -> Response:
    headers = _headers(source, f'"{_etag_token(source.tag)}"', wanted)
    decision = evaluate(request.headers, headers["ETag"], source.modified, source.size, request.method)
    short = _short_answer(decision, headers)
    if short is not None:
        return short
    start, length = 0, source.size
    if decision.status == PARTIAL_CONTENT:
        assert decision.start is not None and decision.length is not None and decision.content_range
        start, length = decision.start, decision.length
        headers["Content-Range"] = decision.content_range
    reader = _FileRange(source, start, length)
    files = _service().files
    with_body = request.method != "HEAD"
    try:
        content_type, first = await source_file_call(files, functools.partial(reader.open, with_body=with_body))
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound("The image file is missing from disk.") from None
    except OutsideRoots:
        raise NotFound("The image file is not inside the library's folders.") from None
    response = Response(_chunks(reader, first, files), status=decision.status, headers=headers)
    response.content_type = content_type
    response.headers["Content-Length"] = str(length)
    return response


def _sniff(head: bytes) -> str:
    content_type = sniff_image_type(head)
    if content_type is None:
        raise _NotAnImage()
    return content_type


class _FileRange:
    """``length`` bytes of a file from ``start``, read a chunk at a time.

    Its methods block: they run on the file threads, one at a time.  The
    file is closed as soon as the range is read or the file turns out
    shorter, else by :meth:`close`.  A small image is opened, sniffed, read
    and closed in one call of :meth:`open`: one hop to a thread.
    """

    def __init__(self, source: SourceImage, start: int, length: int) -> None:
        self.path = source.path
        self._within = source.within
        self._expected_size = source.size
        self._start = start
        self._remaining = length
        self._file: BinaryIO | None = None

    @property
    def is_open(self) -> bool:
        return self._file is not None

    def open(self, *, with_body: bool = True) -> tuple[str, bytes]:
        """The file's content type (from its first bytes) and the first chunk of the range.

        Without the body (a HEAD request) the file is closed once sniffed.
        Raises SourceChanged when the file is not of the expected size (the
        range and Content-Length were computed from it), OutsideRoots when
        it resolves outside its library, _NotAnImage when it is no image.
        """
        self._file = os.fdopen(open_confined(self.path, self._within), "rb")
        try:
            if os.fstat(self._file.fileno()).st_size != self._expected_size:
                raise SourceChanged()
            content_type = _sniff(self._file.read(SNIFF_BYTES))
            if not with_body:
                self.close()
                return content_type, b""
            self._file.seek(self._start)
            return content_type, self.read()
        except BaseException:
            self.close()
            raise

    def read(self) -> bytes:
        """The next chunk; b"" once the range is read."""
        if self._file is None:
            return b""
        chunk = self._file.read(min(READ_CHUNK_BYTES, self._remaining))
        self._remaining -= len(chunk)
        if not chunk or self._remaining <= 0:
            self.close()  # read, or the file shrank meanwhile: the response ends short
        return chunk

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


async def _chunks(reader: _FileRange, first: bytes, files: ThreadPool[None]) -> AsyncIterator[bytes]:
    """``first``, then the rest of the range from the file threads.

    Iterated after the handler returned (outside the app context), so it is
    given the threads.  The file is closed however the iteration ends, except
    while a read is abandoned (timed out, or the client left): that read
    still holds the file, which closes when the read returns and drops it.
    """
    reading = False
    try:
        chunk = first
        while chunk:
            yield chunk
            if not reader.is_open:
                return  # the whole range was read
            reading = True
            chunk = await source_file_call(files, reader.read)
            reading = False
    except Unavailable:
        log.warning("a read of %s took over %.0f s (a hung mount?): response cut short", reader.path, SOURCE_TIMEOUT_SECONDS)
        raise
    finally:
        if reader.is_open and not reading:
            with trio.CancelScope(shield=True):
                await files.call(reader.close)


async def _rendition(source: SourceImage, wanted: ImageRequest) -> Response:
    fmt = negotiate_format(request.headers.get("Accept"))
    key = RenditionKey(source.tag, wanted.max_width, wanted.max_height, wanted.fill_width, wanted.fill_height, fmt)
    sizes = "-".join(str(v or 0) for v in (key.max_width, key.max_height, key.fill_width, key.fill_height))
    headers = _headers(source, f'"{_etag_token(source.tag)}-{sizes}-{fmt}"', wanted)
    headers["Vary"] = "Accept"
    # Preconditions first, on an empty stand-in: a 304 or 412 never renders.
    short = _short_answer(evaluate(request.headers, headers["ETag"], source.modified, 0, request.method), headers)
    if short is not None:
        return short
    data = await _rendition_bytes(source, key)
    decision = evaluate(request.headers, headers["ETag"], source.modified, len(data), request.method)
    short = _short_answer(decision, headers)
    if short is not None:
        return short
    body = data
    if decision.status == PARTIAL_CONTENT:
        assert decision.start is not None and decision.end is not None and decision.content_range
        body = data[decision.start : decision.end + 1]
        headers["Content-Range"] = decision.content_range
    return Response(body, status=decision.status, headers=headers, content_type=CONTENT_TYPES[fmt])


async def _rendition_bytes(source: SourceImage, key: RenditionKey) -> bytes:
    service = _service()
    cached = await service.cache.get(key)
    if cached is not None:
        return cached
    try:
        with trio.fail_after(RENDER_TIMEOUT_SECONDS):
            raw = await _in_file_thread(_read_source, source, abandon=True)
            make = functools.partial(
                render, raw, max_width=key.max_width, max_height=key.max_height,
                fill_width=key.fill_width, fill_height=key.fill_height, fmt=key.fmt,  # type: ignore[arg-type]
            )
            rendition = await trio.to_thread.run_sync(make, limiter=service.render_limiter, abandon_on_cancel=True)
    except trio.TooSlowError:
        raise Unavailable(
            "Rendering the image took too long.", params={"retryAfterSeconds": RETRY_AFTER_SECONDS}
        ) from None
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound("The image file is missing from disk.") from None
    except OutsideRoots:
        raise NotFound("The image file is not inside the library's folders.") from None
    except (BrokenImage, ImageTooLarge) as exc:
        raise _CannotRender(str(exc)) from exc
    await service.cache.put(key, rendition.data)
    return rendition.data


def _read_source(source: SourceImage) -> bytes:
    data = read_confined(source.path, source.within, MAX_SOURCE_BYTES)
    _sniff(data[:SNIFF_BYTES])  # a non-image is not handed to the decoders either
    if len(data) > MAX_SOURCE_BYTES:
        raise ImageTooLarge(f"the file is over {MAX_SOURCE_BYTES} bytes")
    return data


# -- the app's image service ----------------------------------------------------------


@blueprint.before_app_serving
async def _start_service() -> None:
    settings = app_context().settings
    files: ThreadPool[None] = ThreadPool([None] * FILE_CONCURRENCY, name="image-files")
    cache = ImageCache(settings.data_dir / IMAGE_CACHE_DIR, settings.image_cache_max_bytes, files)
    sources = ImageSources(app_context().store, files, data_dir=settings.data_dir)
    current_app.extensions[_EXTENSION_KEY] = _Service(sources, cache, trio.CapacityLimiter(RENDER_CONCURRENCY), files)


@blueprint.after_app_serving
async def _stop_service() -> None:
    service = current_app.extensions.pop(_EXTENSION_KEY, None)
    if service is not None and not await service.files.aclose(FILES_CLOSE_TIMEOUT_SECONDS):
        log.warning("image file threads still busy after %.0f s (a hung mount?); left behind", FILES_CLOSE_TIMEOUT_SECONDS)


def _service() -> _Service:
    return current_app.extensions[_EXTENSION_KEY]  # type: ignore[no-any-return]


async def _in_file_thread(fn: Callable[..., T], *args: Any, abandon: bool = False) -> T:
    return await _service().files.call(fn, *args, abandon_on_cancel=abandon)
