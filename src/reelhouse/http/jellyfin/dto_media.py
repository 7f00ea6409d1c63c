"""MediaSourceInfo and MediaStream: what a client plays, from our media sources and probe.

Direct play and direct stream only: ``SupportsTranscoding`` is false on
every source (this server never transcodes), and the file is served as it
is by the stream route (ranges and conditional requests).  A remote
(``.strm``) source is ``Protocol: Http``.  Stream indexes are the probe's;
an external subtitle file the scan found is a stream with
``IsExternal`` and a ``DeliveryUrl`` to the subtitle route, which carries
the file's signed capability (``tag``, :func:`.image_tags.subtitle_tag`):
a player fetches it with no header, and the URL holds no token to leak.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from . import ids
from .image_tags import TagSigner, subtitle_tag

TEXT_SUBTITLES = frozenset({"subrip", "srt", "ass", "ssa", "webvtt", "vtt", "mov_text", "text"})
SUBTITLE_EXTENSIONS = {"subrip": "srt", "webvtt": "vtt", "ass": "ass", "ssa": "ssa"}


def media_source(source: Mapping[str, Any], item: Mapping[str, Any], tags: TagSigner) -> dict[str, Any]:
    """A MediaSourceInfo of one native media source of ``item`` (``tags`` signs its subtitles' URLs)."""
    streams = media_streams(source, tags)
    remote = str(source.get("path", "")).startswith(("http://", "https://"))
    info: dict[str, Any] = {
        "Protocol": "Http" if remote else "File",
        "Id": ids.item_guid(source["id"]),
        "Type": "Default",
        "Container": source.get("container"),
        "Size": source.get("size"),
        "Name": source.get("name") or item.get("name"),
        "IsRemote": remote,
        "RunTimeTicks": item.get("runtimeTicks"),
        "Bitrate": source.get("bitrate"),
        "SupportsTranscoding": False,
        "SupportsDirectStream": True,
        "SupportsDirectPlay": True,
        "SupportsProbing": True,
        "IsInfiniteStream": False,
        "RequiresOpening": False,
        "RequiresClosing": False,
        "RequiresLooping": False,
        "ReadAtNativeFramerate": False,
        "VideoType": "VideoFile",
        "MediaStreams": streams,
        "MediaAttachments": [],
        "Formats": [],
        "RequiredHttpHeaders": {},
        "TranscodingSubProtocol": "http",
        "HasSegments": False,
    }
    audio = [s["Index"] for s in streams if s["Type"] == "Audio"]
    if audio:
        defaults = [s["Index"] for s in streams if s["Type"] == "Audio" and s["IsDefault"]]
        info["DefaultAudioStreamIndex"] = (defaults or audio)[0]
    return {key: value for key, value in info.items() if value is not None}


def media_streams(source: Mapping[str, Any], tags: TagSigner) -> list[dict[str, Any]]:
    item_id = source.get("itemId", "")
    return [_stream(stream, item_id, source["id"], tags) for stream in source.get("streams", [])]


def _stream(stream: Mapping[str, Any], item_id: str, source_id: str, tags: TagSigner) -> dict[str, Any]:
    kind, codec = stream["type"], stream.get("codec") or ""
    external = bool(stream.get("isExternal"))
    dto: dict[str, Any] = {
        "Codec": codec,
        "Language": stream.get("language"),
        "Title": stream.get("title"),
        "DisplayTitle": _display_title(stream),
        "IsDefault": bool(stream.get("isDefault")),
        "IsForced": bool(stream.get("isForced")),
        "IsExternal": external,
        "IsInterlaced": False,
        "Type": kind,
        "Index": stream["index"],
        "Height": stream.get("height"),
        "Width": stream.get("width"),
        "BitRate": stream.get("bitrate"),
        "Channels": stream.get("channels"),
        "ChannelLayout": stream.get("channelLayout"),
        "SampleRate": stream.get("sampleRate"),
        "IsTextSubtitleStream": kind == "Subtitle" and codec.lower() in TEXT_SUBTITLES,
        "SupportsExternalStream": kind == "Subtitle" and codec.lower() in TEXT_SUBTITLES,
    }
    if kind == "Video":
        dto["VideoRange"] = "SDR"
        dto["VideoRangeType"] = "SDR"
    if kind == "Subtitle":
        dto["DeliveryMethod"] = "External" if external else "Embed"
        if external:
            extension = SUBTITLE_EXTENSIONS.get(codec.lower(), codec.lower() or "srt")
            tag = subtitle_tag(tags, item_id, source_id, stream["index"], str(stream.get("externalPath") or ""))
            dto["DeliveryUrl"] = (
                f"/Videos/{ids.item_guid(item_id)}/{ids.item_guid(source_id)}/Subtitles/{stream['index']}/0/"
                f"Stream.{extension}?tag={quote(tag)}"
            )
    return {key: value for key, value in dto.items() if value is not None}


def _display_title(stream: Mapping[str, Any]) -> str:
    parts = [str(p) for p in (stream.get("title") or stream.get("language"), stream.get("resolutionName"),
                              (stream.get("codec") or "").upper()) if p]  # fmt: skip
    return " - ".join(parts) or stream["type"]
