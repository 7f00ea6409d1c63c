"""What a player fetches: images, PlaybackInfo, the stream, downloads and external subtitles.

Images are the native image route's answer (:func:`..images.serve_item_image`, a person's
picture :func:`..people.serve_person_image`:
the same renditions, cache, conditional requests and confinement), the
stream the native stream route's (:func:`..stream.stream_video`: ranges,
conditional requests, confinement, the byte meter of a device's session).
``PlaybackInfo`` offers direct play and direct stream only: this server
never transcodes, and says so (``SupportsTranscoding: false``).
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from pathlib import Path

import trio
from quart import Response, request

from reelhouse import errors
from reelhouse.media.file_names import to_fs
from reelhouse.media.member_policy import MemberFacts, allow_download
from reelhouse.storage.confined_files import OutsideRoots, confinement_for, read_confined
from reelhouse.storage.item_detail import item_detail
from reelhouse.storage.people import find_person_image
from reelhouse.storage.stream_sources import ItemWithoutSource, find_stream_source

from ..context import app_context
from ..device_auth import signed_in_member
from ..image_service import image_service
from ..images import ImageRequest, parse_image_request, serve_item_image
from ..library_access import require_item_visible
from ..people import serve_person_image
from ..video_stream import stream_video
from . import ids
from .access import claims, token_optional
from .catalogue import one_item
from .dto_media import media_source
from .image_tags import tag_signer
from .item_query import lowered_args
from .surface import json, new_blueprint, route

blueprint = new_blueprint("media")

# Jellyfin's ImageType -> our image kind.
IMAGE_KINDS = {"primary": "primary", "backdrop": "backdrop", "logo": "logo", "thumb": "thumb", "banner": "banner",
               "art": "art", "disc": "disc", "screenshot": "still", "box": "primary"}  # fmt: skip
SIZE_NAMES = {"maxwidth": "maxWidth", "maxheight": "maxHeight", "fillwidth": "fillWidth", "fillheight": "fillHeight",
              "width": "maxWidth", "height": "maxHeight"}  # fmt: skip
SUBTITLE_MAX_BYTES = 16 * 1024 * 1024
SUBTITLE_READ_SECONDS = 10.0
SUBTITLE_TYPES = {"srt": "application/x-subrip", "vtt": "text/vtt", "ass": "text/x-ssa", "ssa": "text/x-ssa"}


@route(blueprint, "/Items/<item_id>/Images/<image_type>", ("GET", "HEAD"))
@route(blueprint, "/Items/<item_id>/Images/<image_type>/<int:index>", ("GET", "HEAD"))
@token_optional
async def item_image(item_id: str, image_type: str, index: int = 0) -> Response:
    """An item's (or a cast member's) image.  With a token: checked as every route (the library rules).
    Without one (an ``<img>`` tag): only with the ``tag`` this server handed out for that very image
    (:mod:`.image_tags`), else 401, whether or not the item or image exists."""
    tokenless = not claims().token
    kind = IMAGE_KINDS.get(image_type.lower())
    args = lowered_args(request.args.items(multi=True))
    native = {"kind": kind or "primary", "index": str(index)}
    native.update({ours: args[theirs] for theirs, ours in SIZE_NAMES.items() if args.get(theirs)})
    wanted: ImageRequest = parse_image_request(native)  # a bad size is 400 before anything is looked up
    native_id, tag = ids.item_id(item_id), args.get("tag")
    found = await _image_version(native_id, kind, index) if kind is not None else None
    current = found is not None and kind is not None and tag_signer().admits(tag, native_id, kind, index, found[0])
    if tokenless and not current:
        raise errors.Unauthorized("A token, or the image's tag as this server gave it, is required.")
    if kind is None or found is None:
        raise errors.NotFound(f"No {image_type} image.")
    if tag:  # the native route's tag: its own version when ours is current (served immutable)
        wanted = replace(wanted, tag=found[0] if current else tag)
    if found[1]:
        return await serve_person_image(native_id, wanted)
    return await serve_item_image(native_id, wanted)


async def _image_version(native_id: str, kind: str, index: int) -> tuple[str, bool] | None:
    """The current version (native tag) of the item's image, and whether it is a person's picture
    (a cast member's PrimaryImageTag names one); None when there is no such image."""
    try:
        return (await image_service().sources.find(native_id, kind, index)).tag, False
    except errors.NotFound:
        if kind != "primary" or index != 0:
            return None
    try:
        return (await find_person_image(app_context().store, native_id)).tag, True
    except errors.NotFound:
        return None


@route(blueprint, "/Items/<item_id>/PlaybackInfo", ("GET", "POST"))
async def playback_info(item_id: str) -> Response:
    native_id = ids.item_id(item_id)
    await require_item_visible(native_id)
    detail = await item_detail(app_context().store, native_id)
    tags = tag_signer()
    sources = [media_source(s, detail, tags) for s in detail.get("mediaSources", []) if not s.get("missing")]
    if not sources:
        return json({"MediaSources": [], "PlaySessionId": None, "ErrorCode": "NoCompatibleStream"})
    return json({"MediaSources": sources, "PlaySessionId": uuid.uuid4().hex})


@route(blueprint, "/Videos/<item_id>/stream", ("GET", "HEAD"))
@route(blueprint, "/Videos/<item_id>/stream.<container>", ("GET", "HEAD"))
async def video_stream(item_id: str, container: str | None = None) -> Response:
    """The primary version as it is (``static=true`` or not: there is nothing else to send)."""
    return await stream_video(ids.item_id(item_id))


@route(blueprint, "/Items/<item_id>/Download", ("GET", "HEAD"))
async def download(item_id: str) -> Response:
    member = signed_in_member()
    if member is not None:
        facts = MemberFacts(member.is_admin, member.disabled, False, member.policy, member.granted_libraries)
        if not allow_download(facts):
            raise errors.Forbidden("Downloads are not allowed for this member.")
    answer = await stream_video(ids.item_id(item_id))
    answer.headers["Content-Disposition"] = "attachment"
    return answer


@route(blueprint, "/Videos/<item_id>/<source_id>/Subtitles/<int:index>/Stream.<fmt>")
@route(blueprint, "/Videos/<item_id>/<source_id>/Subtitles/<int:index>/<int:ticks>/Stream.<fmt>")
@token_optional
async def subtitle(item_id: str, source_id: str, index: int, fmt: str, ticks: int = 0) -> Response:
    """An external subtitle file the scan found beside the video, as it is (confined to the library's folders).

    Without a token (a player handed the ``DeliveryUrl``): only with the ``tag`` that URL carries, the
    file's signed capability (:func:`.image_tags.subtitle_tag`), else 401 whatever exists."""
    native_id, wanted = ids.item_id(item_id), ids.item_id(source_id)
    store = app_context().store
    tokenless = not claims().token
    if not tokenless:
        await require_item_visible(native_id)
    path = await _subtitle_path(native_id, wanted, index, tokenless=tokenless)
    tag = lowered_args(request.args.items(multi=True)).get("tag")
    if tokenless and not tag_signer().admits(tag, native_id, f"subtitle:{wanted}", index, path or ""):
        raise errors.Unauthorized("A token, or the subtitle's tag as this server gave it, is required.")
    found = await find_stream_source(store, native_id)
    if not path or isinstance(found, ItemWithoutSource):
        raise errors.NotFound("No such external subtitle.")
    data = await _read_subtitle(Path(to_fs(path)), found.roots)
    return Response(data, content_type=SUBTITLE_TYPES.get(fmt.lower(), "text/plain") + "; charset=utf-8")


async def _subtitle_path(native_id: str, source_id: str, index: int, *, tokenless: bool) -> str | None:
    """The external subtitle file's path the catalogue holds (None: no such subtitle); an unknown
    item is 404, or 401 to a tokenless request (told nothing)."""
    try:
        detail = await item_detail(app_context().store, native_id)
    except errors.NotFound:
        if not tokenless:
            raise
        raise errors.Unauthorized("A token, or the subtitle's tag as this server gave it, is required.") from None
    return next((st.get("externalPath") for s in detail.get("mediaSources", []) if s["id"] == source_id
                 for st in s.get("streams", []) if st["index"] == index and st.get("isExternal")), None)  # fmt: skip


async def _read_subtitle(path: Path, roots: tuple[str, ...]) -> bytes:
    within = confinement_for(roots, app_context().settings.data_dir)
    try:
        with trio.fail_after(SUBTITLE_READ_SECONDS):
            return await trio.to_thread.run_sync(
                read_confined, path, within, SUBTITLE_MAX_BYTES, abandon_on_cancel=True
            )
    except (FileNotFoundError, NotADirectoryError, PermissionError, OutsideRoots):
        raise errors.NotFound("The subtitle file is missing or not inside the library's folders.") from None
    except trio.TooSlowError:
        raise errors.Unavailable("The subtitle file did not answer in time.", params={"retryAfterSeconds": 5}) from None


@route(blueprint, "/Items/<item_id>/Similar")
async def similar(item_id: str) -> Response:
    """No recommendations here: an empty list, so an app's detail page still loads."""
    await one_item(item_id)
    return json({"Items": [], "TotalRecordCount": 0, "StartIndex": 0})
