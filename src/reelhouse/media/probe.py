"""Media info: what a probe of one file gives, and the rules that derive it.

A probe reads a file's container and streams with libavformat
(``probe_av``, in the scan's probe worker processes) and hands them to
:func:`probe_result` as a *document*: a mapping shaped like ffprobe's JSON
(``format`` and ``streams`` sections, the same field names), so the rules
here (containers, tiers, dynamic range, languages, fallbacks for bitrate
and duration) are written once. ``probe_ffprobe`` builds the same document
from ffprobe's output; it is kept as the reference the tests compare with.

Every function is pure, synchronous and fast. :func:`classify_probe_failure`
turns libavformat's error text into a ProbeFailure.

Language codes of streams are normalised to ISO 639-2/B (the reference's
MediaStream ``language``) by :func:`normalize_language`, shared with
``companions``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ._languages import NO_LANGUAGE_CODES, normalize_language

__all__ = [
    "NO_LANGUAGE_CODES",
    "DynamicRange",
    "MediaStreamInfo",
    "ProbeError",
    "ProbeFailure",
    "ProbeResult",
    "StreamType",
    "classify_probe_failure",
    "container_name",
    "dynamic_range",
    "normalize_language",
    "probe_result",
    "resolution_name",
]

TICKS_PER_SECOND = 10_000_000

# (name, min width, min height), highest first: a tier is reached when
# either dimension reaches it.
RESOLUTION_TIERS: tuple[tuple[str, int, int], ...] = (
    ("8K", 7680, 4320),
    ("4K", 3840, 2160),
    ("1440p", 2560, 1440),
    ("1080p", 1920, 1080),
    ("720p", 1280, 720),
)

# Demuxers that open files which are not audio/video (a picture or a
# text file renamed to .mkv still "probes").
NOT_MEDIA_FORMATS = frozenset({"image2", "tty", "webvtt", "srt", "ass", "subviewer"})
DOLBY_VISION_CODEC_TAGS = frozenset({"dvhe", "dvh1", "dvav", "dva1", "dav1"})

# Lower-case fragments of libavformat's error text (strerror texts in the C
# locale and demuxer messages), checked in classify_probe_failure's order.
PERMISSION_MARKERS = ("permission denied", "operation not permitted")
GONE_MARKERS = ("no such file or directory",)
UNREACHABLE_MARKERS = (
    "input/output error",
    "stale file handle",
    "transport endpoint is not connected",
    "host is down",
    "no route to host",
    "network is unreachable",
    "connection timed out",
    "connection refused",
    "no such device",
)
DAMAGED_MARKERS = (
    "moov atom not found",
    "file ended prematurely",
    "truncated",
    "corrupt",
    "error reading header",
)
NOT_MEDIA_MARKERS = (
    "invalid data found when processing input",
)


class StreamType(StrEnum):
    """The reference's StreamType."""

    VIDEO = "Video"
    AUDIO = "Audio"
    SUBTITLE = "Subtitle"


class ProbeFailure(StrEnum):
    """The reference's ProbeFailure: why a file has no media info."""

    PERMISSION_DENIED = "permission_denied"
    UNREACHABLE = "unreachable"
    TIMEOUT = "timeout"
    INVALID = "invalid"
    LINK_GONE = "link_gone"
    NOT_MEDIA = "not_media"
    UNKNOWN = "unknown"


class DynamicRange(StrEnum):
    SDR = "sdr"
    HDR10 = "hdr10"
    HLG = "hlg"
    DOLBY_VISION = "dolbyVision"


class ProbeError(ValueError):
    """The probe gave no media info; ``failure`` says why."""

    def __init__(self, failure: ProbeFailure, message: str) -> None:
        super().__init__(message)
        self.failure = failure
        self.message = message


@dataclass(frozen=True, slots=True)
class MediaStreamInfo:
    """One embedded stream. ``index`` is the container's stream index (ffprobe's)."""

    index: int
    type: StreamType
    codec: str
    bitrate: int | None = None
    channels: int | None = None
    channel_layout: str | None = None
    sample_rate: int | None = None
    width: int | None = None
    height: int | None = None
    language: str | None = None
    title: str | None = None
    is_default: bool = False
    is_forced: bool = False
    is_hearing_impaired: bool = False
    resolution_name: str | None = None
    color_transfer: str | None = None
    dynamic_range: DynamicRange | None = None


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """Media info of one file; ``runtime_ticks`` counts 100 ns ticks."""

    container: str
    format_name: str
    size: int | None
    bitrate: int | None
    runtime_ticks: int | None
    streams: tuple[MediaStreamInfo, ...]


def resolution_name(width: int | None, height: int | None) -> str | None:
    """SD, 720p, 1080p, 1440p, 4K or 8K; None when neither size is known.

    A tier is reached when either dimension reaches it, so a 1920x800
    scope movie is 1080p and a 1440x1080 one too.
    """
    if not width and not height:
        return None
    w, h = width or 0, height or 0
    for name, min_w, min_h in RESOLUTION_TIERS:
        if w >= min_w or h >= min_h:
            return name
    return "SD"


def container_name(format_name: str, path_hint: str) -> str:
    """The container name for a demuxer's ``format_name``.

    libavformat names a demuxer family, not a file type, so the extension of
    ``path_hint`` (a path or an extension, with or without the dot) picks the
    member: ``matroska,webm`` is ``webm`` for .webm files, else ``mkv``;
    ``mov,mp4,m4a,3gp,3g2,mj2`` is ``mov``, ``m4v``, ``m4a``, ``3gp`` or ``3g2``
    by extension, else ``mp4``; ``mpegts`` (also .m2ts/.mts) is ``mpegts``;
    ``mpeg`` is ``vob`` for .vob files. Anything else is the first name of
    the family (``avi``, ``asf``, ``flv``, ``ogg``...), or the extension
    when no format was named.
    """
    ext = path_hint.rsplit(".", 1)[-1].lower() if path_hint else ""
    family = format_name.split(",")
    if "matroska" in family:
        return "webm" if ext == "webm" else "mkv"
    if "mov" in family:
        return ext if ext in {"mov", "m4v", "m4a", "3gp", "3g2"} else "mp4"
    if family[0] == "mpeg" and ext == "vob":
        return "vob"
    return family[0] or ext


def probe_result(document: Mapping[str, Any], *, path_container_hint: str) -> ProbeResult:
    """Media info from a probe document (ffprobe's JSON shape, see the module).

    Raises :class:`ProbeError` with ``invalid`` when the document has no
    format section, and with ``not_media`` when the file has no audio or
    video stream or was opened by a picture or text demuxer. Data and
    attachment streams and attached pictures (cover art) are not listed.
    Never raises anything else.
    """
    if not isinstance(document, Mapping) or not isinstance(document.get("format"), Mapping):
        raise ProbeError(ProbeFailure.INVALID, "the probe found no format")
    fmt: Mapping[str, Any] = document["format"]
    format_name = _text(fmt.get("format_name")) or ""
    if format_name in NOT_MEDIA_FORMATS or format_name.endswith("_pipe"):
        raise ProbeError(ProbeFailure.NOT_MEDIA, f"not a media file ({format_name})")
    raw_streams = [s for s in _list(document.get("streams")) if isinstance(s, Mapping)]
    streams = tuple(
        info for info in (_stream(s) for s in raw_streams) if info is not None
    )
    if not any(s.type in (StreamType.VIDEO, StreamType.AUDIO) for s in streams):
        raise ProbeError(ProbeFailure.NOT_MEDIA, "no audio or video stream")
    size = _int(fmt.get("size"))
    runtime_ticks = _runtime_ticks(fmt, raw_streams)
    return ProbeResult(
        container=container_name(format_name, path_container_hint),
        format_name=format_name,
        size=size,
        bitrate=_int(fmt.get("bit_rate")) or _derived_bitrate(size, runtime_ticks),
        runtime_ticks=runtime_ticks,
        streams=streams,
    )


def dynamic_range(stream: Mapping[str, Any]) -> DynamicRange:
    """The dynamic range of a video stream from its document entry.

    Dolby Vision (a DOVI configuration record in the side data, or a Dolby
    Vision codec tag) wins over the transfer function of its base layer;
    ``smpte2084`` (PQ) is HDR10, ``arib-std-b67`` is HLG, anything else SDR.
    HDR10+ is reported as HDR10: telling them apart needs frame side data.
    """
    side_data = _list(stream.get("side_data_list"))
    if any(
        isinstance(d, Mapping) and "dovi" in str(d.get("side_data_type", "")).lower()
        for d in side_data
    ):
        return DynamicRange.DOLBY_VISION
    if str(stream.get("codec_tag_string", "")).lower() in DOLBY_VISION_CODEC_TAGS:
        return DynamicRange.DOLBY_VISION
    transfer = stream.get("color_transfer")
    if transfer == "smpte2084":
        return DynamicRange.HDR10
    if transfer == "arib-std-b67":
        return DynamicRange.HLG
    return DynamicRange.SDR


def classify_probe_failure(
    returncode: int | None,
    stderr: str,
    *,
    timed_out: bool,
    exists: bool,
    permission: bool,
) -> ProbeFailure:
    """Why a probe gave no media info, from libavformat's error text.

    ``returncode`` is the ffprobe reference's exit status (None when it
    never finished, or for an in-process probe);
    ``exists`` is whether the path (following links) still exists and
    ``permission`` whether the caller already saw a permission error reading
    it. In order: a timeout is ``timeout``; a permission error (seen by the
    caller or in stderr) is ``permission_denied``; a vanished path or target
    is ``link_gone``; I/O and network errors in stderr are ``unreachable``;
    a recognised but damaged file (``moov atom not found``...) is
    ``invalid``; data no demuxer recognises is ``not_media``; anything else,
    including a crash, is ``unknown``.
    """
    if timed_out:
        return ProbeFailure.TIMEOUT
    text = stderr.lower()
    if permission or _mentions(text, PERMISSION_MARKERS):
        return ProbeFailure.PERMISSION_DENIED
    if not exists or _mentions(text, GONE_MARKERS):
        return ProbeFailure.LINK_GONE
    if _mentions(text, UNREACHABLE_MARKERS):
        return ProbeFailure.UNREACHABLE
    if _mentions(text, DAMAGED_MARKERS):
        return ProbeFailure.INVALID
    if _mentions(text, NOT_MEDIA_MARKERS):
        return ProbeFailure.NOT_MEDIA
    return ProbeFailure.UNKNOWN


def _mentions(text: str, markers: tuple[str, ...]) -> bool:
    return any(marker in text for marker in markers)


_STREAM_TYPES = {
    "video": StreamType.VIDEO,
    "audio": StreamType.AUDIO,
    "subtitle": StreamType.SUBTITLE,
}


def _stream(raw: Mapping[str, Any]) -> MediaStreamInfo | None:
    stream_type = _STREAM_TYPES.get(str(raw.get("codec_type")))
    index = _int(raw.get("index"))
    disposition = raw.get("disposition")
    flags = disposition if isinstance(disposition, Mapping) else {}
    if stream_type is None or index is None or flags.get("attached_pic") == 1:
        return None
    tags = _lower_keys(raw.get("tags"))
    title = _text(tags.get("title"))
    is_video = stream_type is StreamType.VIDEO
    width = _int(raw.get("width")) if is_video else None
    height = _int(raw.get("height")) if is_video else None
    return MediaStreamInfo(
        index=index,
        type=stream_type,
        codec=_text(raw.get("codec_name")) or "unknown",
        bitrate=_int(raw.get("bit_rate")) or _int(tags.get("bps") or tags.get("bps-eng")),
        channels=_int(raw.get("channels")),
        channel_layout=_text(raw.get("channel_layout")),
        sample_rate=_int(raw.get("sample_rate")),
        width=width,
        height=height,
        language=normalize_language(_text(tags.get("language"))),
        title=title,
        is_default=flags.get("default") == 1,
        is_forced=flags.get("forced") == 1 or _says_forced(stream_type, title),
        is_hearing_impaired=flags.get("hearing_impaired") == 1,
        resolution_name=resolution_name(width, height) if is_video else None,
        color_transfer=_text(raw.get("color_transfer")) if is_video else None,
        dynamic_range=dynamic_range(raw) if is_video else None,
    )


def _says_forced(stream_type: StreamType, title: str | None) -> bool:
    # Many muxers leave the forced flag unset and only title the track.
    return stream_type is StreamType.SUBTITLE and "forced" in (title or "").lower()


def _runtime_ticks(fmt: Mapping[str, Any], streams: list[Mapping[str, Any]]) -> int | None:
    seconds = _float(fmt.get("duration"))
    if seconds is None:
        per_stream = [_stream_seconds(s) for s in streams]
        seconds = max((s for s in per_stream if s is not None), default=None)
    if seconds is None or seconds < 0:
        return None
    return round(seconds * TICKS_PER_SECOND)


_CLOCK = re.compile(r"^(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$")


def _stream_seconds(stream: Mapping[str, Any]) -> float | None:
    seconds = _float(stream.get("duration"))
    if seconds is not None:
        return seconds
    # Matroska keeps stream durations only as an "HH:MM:SS.nnnnnnnnn" tag.
    match = _CLOCK.match(_text(_lower_keys(stream.get("tags")).get("duration")) or "")
    if match is None:
        return None
    hours, minutes, secs = match.groups()
    return int(hours) * 3600 + int(minutes) * 60 + float(secs)


def _derived_bitrate(size: int | None, runtime_ticks: int | None) -> int | None:
    if not size or not runtime_ticks:
        return None
    return round(size * 8 * TICKS_PER_SECOND / runtime_ticks)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    number = _float(value)
    return int(number) if number is not None else None


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _lower_keys(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        return {}
    return {str(key).lower(): item for key, item in value.items()}
