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
  exceeds :data:`~reelhouse.http.image_service.RENDER_TIMEOUT_SECONDS`.

The stored file a request names is found by
:class:`reelhouse.http.image_sources.ImageSources`, which remembers it
briefly (until the next write of the catalogue; the file is looked at again
every 10 s, and an original found not of the remembered size is looked up
anew).  The stored file is streamed by :mod:`reelhouse.http.file_body`
(a stored image under 256 KiB is opened, sniffed, read and closed in one
hop to a file thread); renditions come from
:mod:`reelhouse.http.image_service` (cache, render threads, time limit).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import BinaryIO

from pydantic import Field
from quart import Blueprint, Response, request
from quart_schema import document_querystring

from reelhouse.errors import Invalid, NotFound
from reelhouse.media.local_images import SNIFF_BYTES, ImageKind
from reelhouse.media.renditions import CONTENT_TYPES, MAX_SIZE, negotiate_format, validate_size
from reelhouse.storage.confined_files import OutsideRoots
from reelhouse.storage.image_cache import RenditionKey

from . import image_sources
from .conditional import PARTIAL_CONTENT, evaluate
from .errors import error_response
from .file_body import FileRange, SourceChanged, file_chunks, short_answer
from .image_service import (
    CannotRender,
    image_content_type,
    image_service,
    rendition_bytes,
    start_image_service,
    stop_image_service,
)
from .image_sources import SourceImage, source_file_call
from .library_access import require_item_visible
from .openapi import BINARY, may_answer, raw_response
from .query_args import bounded_int
from .schema import ApiModel

log = logging.getLogger(__name__)

# The stored files a scan accepts, and the renditions (JPEG, WebP).
IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/gif", "image/bmp")
blueprint = Blueprint("images", __name__)
blueprint.before_app_serving(start_image_service)
blueprint.after_app_serving(stop_image_service)

MAX_INDEX = 10_000
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
SIZE_PARAMETERS = ("maxWidth", "maxHeight", "fillWidth", "fillHeight")
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


@blueprint.get("/images/items/<item_id>")
@document_querystring(ImageQuery)
@raw_response(200, IMAGE_TYPES, "The image: the stored file, or a JPEG or WebP rendition.", BINARY)
@raw_response(206, IMAGE_TYPES, "The requested byte range of the image.", BINARY)
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
    return await serve_item_image(item_id, parse_image_request(request.args))


async def serve_item_image(item_id: str, wanted: ImageRequest) -> Response:
    """The image ``wanted`` of an item the request may see (every image surface's answer)."""
    await require_item_visible(item_id)
    sources = image_service().sources
    source = await sources.find(item_id, wanted.kind, wanted.index)
    if not wanted.sized:
        try:
            return await _original(source, wanted)
        except SourceChanged:  # remembered stale: look again, once (a second change is 503)
            sources.forget(item_id, wanted.kind, wanted.index)
            return await _original(await sources.find(item_id, wanted.kind, wanted.index), wanted)
    try:
        return await _rendition(source, wanted)
    except CannotRender as exc:
        log.warning("image of item %s (%s) cannot be rendered: %s", item_id, source.path, exc)
        return error_response(500, "internal_error", "The stored image cannot be rendered.")


async def serve_source_image(source: SourceImage, wanted: ImageRequest, what: str) -> Response:
    """A stored image found elsewhere (a person's picture) answered as an item's is; ``what`` names it in logs."""
    if not wanted.sized:
        return await _original(source, wanted)
    try:
        return await _rendition(source, wanted)
    except CannotRender as exc:
        log.warning("image of %s (%s) cannot be rendered: %s", what, source.path, exc)
        return error_response(500, "internal_error", "The stored image cannot be rendered.")


def parse_image_request(args: Mapping[str, str]) -> ImageRequest:
    """The request's parameters; Invalid naming the first bad one."""
    kind = args.get("kind", "primary").lower()  # an empty kind is invalid, not the default
    if kind not in _KINDS:
        raise Invalid(f"kind must be one of {', '.join(sorted(_KINDS))}.", field="kind")
    index = bounded_int(args.get("index"), "index", low=0, high=MAX_INDEX, default=0)
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


def _etag_token(tag: str) -> str:
    """The tag itself when it is plain text, else a hash of it (an ETag holds no quotes)."""
    if _PLAIN_TAG.fullmatch(tag):
        return tag
    return hashlib.sha256(tag.encode()).hexdigest()[:16]


async def _original(source: SourceImage, wanted: ImageRequest) -> Response:
    headers = _headers(source, f'"{_etag_token(source.tag)}"', wanted)
    decision = evaluate(request.headers, headers["ETag"], source.modified, source.size, request.method)
    short = short_answer(decision, headers)
    if short is not None:
        return short
    start, length = 0, source.size
    if decision.status == PARTIAL_CONTENT:
        assert decision.start is not None and decision.length is not None and decision.content_range
        start, length = decision.start, decision.length
        headers["Content-Range"] = decision.content_range
    reader = FileRange(source.path, source.within, source.size, start, length)
    files = image_service().files
    with_body = request.method != "HEAD"
    try:
        opening = functools.partial(reader.open, _sniff_head, with_body=with_body)
        content_type, first = await source_file_call(files, opening)
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound("The image file is missing from disk.") from None
    except OutsideRoots:
        raise NotFound("The image file is not inside the library's folders.") from None
    chunks = file_chunks(reader, first, files, image_sources.SOURCE_TIMEOUT_SECONDS)
    response = Response(chunks, status=decision.status, headers=headers)
    assert content_type is not None  # sniffed
    response.content_type = content_type
    response.headers["Content-Length"] = str(length)
    return response


def _sniff_head(file: BinaryIO) -> str:
    return image_content_type(file.read(SNIFF_BYTES))


async def _rendition(source: SourceImage, wanted: ImageRequest) -> Response:
    fmt = negotiate_format(request.headers.get("Accept"))
    key = RenditionKey(source.tag, wanted.max_width, wanted.max_height, wanted.fill_width, wanted.fill_height, fmt)
    sizes = "-".join(str(v or 0) for v in (key.max_width, key.max_height, key.fill_width, key.fill_height))
    headers = _headers(source, f'"{_etag_token(source.tag)}-{sizes}-{fmt}"', wanted)
    headers["Vary"] = "Accept"
    # Preconditions first, on an empty stand-in: a 304 or 412 never renders.
    short = short_answer(evaluate(request.headers, headers["ETag"], source.modified, 0, request.method), headers)
    if short is not None:
        return short
    data = await rendition_bytes(source, key)
    decision = evaluate(request.headers, headers["ETag"], source.modified, len(data), request.method)
    short = short_answer(decision, headers)
    if short is not None:
        return short
    body = data
    if decision.status == PARTIAL_CONTENT:
        assert decision.start is not None and decision.end is not None and decision.content_range
        body = data[decision.start : decision.end + 1]
        headers["Content-Range"] = decision.content_range
    return Response(body, status=decision.status, headers=headers, content_type=CONTENT_TYPES[fmt])
