"""Media info read in-process with libavformat, through PyAV (``av``).

:func:`read_media_info` opens one local file as ffprobe does (the
``file`` protocol only, ``avformat_find_stream_info``), lays out what it
found as ffprobe's JSON would (see ``probe``: the same fields, the same
text for numbers) and derives the ProbeResult with the shared rules, so a
file probes to the same result either way (a test compares them on real
media). PyAV's wheels carry FFmpeg's libraries: no ffmpeg install needed.

Blocking, and a malformed file can crash a C library: the server calls it
only in its probe worker processes (``probe_worker``), never in its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import av
import av.logging

from .probe import ProbeError, ProbeFailure, ProbeResult, classify_probe_failure, probe_result

# libavutil's names of AVColorTransferCharacteristic (the values are
# ITU-T H.273's, fixed by the ABI); 2 (unspecified) has none, as in ffprobe.
COLOR_TRANSFER_NAMES = {
    0: "reserved", 1: "bt709", 3: "reserved", 4: "bt470m", 5: "bt470bg", 6: "smpte170m",
    7: "smpte240m", 8: "linear", 9: "log100", 10: "log316", 11: "iec61966-2-4",
    12: "bt1361e", 13: "iec61966-2-1", 14: "bt2020-10", 15: "bt2020-12",
    16: "smpte2084", 17: "smpte428", 18: "arib-std-b67",
}  # fmt: skip
OPEN_OPTIONS = {"protocol_whitelist": "file"}
# Dolby Vision base layers whose configuration record is looked for in the
# side data: HEVC and AV1 at 10 bits or more (profiles 4, 5, 7, 8, 10). AVC
# (profile 9, rare outside streaming services) is known by its codec tag only:
# listing side data costs ~0.1 ms, a quarter of a small file's probe.
DOLBY_VISION_BASE_CODECS = frozenset({"hevc", "av1"})
_EIGHT_BIT = re.compile(r"^(yuvj?4[0-4][0-4]p|nv12|nv21|gbrp|gray|yuva4[0-4][0-4]p)$")
# The dispositions the rules read, as plain ints (IntFlag arithmetic is slow).
_DISPOSITIONS = tuple(
    (name, int(getattr(av.stream.Disposition, name)))
    for name in ("default", "forced", "hearing_impaired", "attached_pic")
)
_DUMP_STREAM = re.compile(r"^\s*Stream #\d+:(\d+)")
_UNSPECIFIED_LAYOUT = re.compile(r"^\d+ channels$")


def library_versions() -> dict[str, str]:
    """PyAV's and FFmpeg's versions (``av``, ``ffmpeg``, ``libavformat``...)."""
    versions = {"av": av.__version__, "ffmpeg": str(av.ffmpeg_version_info)}
    for name in ("libavformat", "libavcodec", "libavutil"):
        numbers = av.library_versions.get(name)
        if numbers:
            versions[name] = ".".join(str(n) for n in numbers)
    return versions


def quiet_logging() -> None:
    """Only errors reach PyAV's log callback (they are captured per probe)."""
    av.logging.set_level(av.logging.ERROR)


def read_media_info(path: str) -> ProbeResult:
    """Media info of the local file ``path``; raises :class:`ProbeError`.

    Blocking. Errors are classified as ffprobe's were (by libavformat's
    error text): a vanished file ``link_gone``, ``permission_denied``, I/O
    errors ``unreachable``, a damaged file ``invalid``, data no demuxer
    knows ``not_media``.
    """
    if av.logging.get_level() is None:  # errors must reach the capture to be classified
        quiet_logging()
    with av.logging.Capture(local=True) as logs:
        try:
            container = _open(path)
        except (av.FFmpegError, OSError, UnicodeError) as exc:
            raise _probe_error(path, exc, logs) from None
    try:
        document = probe_document(container)
    finally:
        container.close()
    return probe_result(document, path_container_hint=path)


def _open(path: str) -> Any:
    # "file:" so that a name starting with a protocol ("http:...") is a file.
    # Tags that are not UTF-8 keep their readable part instead of failing the file.
    return av.open(f"file:{path}", container_options=OPEN_OPTIONS, metadata_errors="replace")


def _probe_error(path: str, exc: BaseException, logs: Iterable[tuple[int, str, str]]) -> ProbeError:
    # strerror, not str(exc): PyAV appends the process's last error log,
    # which may be another file's.
    reason = getattr(exc, "strerror", None) or str(exc)
    text = "\n".join([*(message for _level, _name, message in logs), reason])
    failure = classify_probe_failure(
        None, text, timed_out=False, exists=os.path.exists(path), permission=isinstance(exc, PermissionError)
    )
    if failure is ProbeFailure.UNKNOWN and isinstance(exc, UnicodeError):
        failure = ProbeFailure.INVALID
    return ProbeError(failure, text.strip()[:500])


def probe_document(container: Any) -> dict[str, Any]:
    """ffprobe's ``-show_format -show_streams`` JSON, as a dict, for an open container."""
    streams = [_stream_entry(stream) for stream in container.streams]
    dovi = _dolby_vision_streams(container, streams)
    for entry in streams:
        if entry["index"] in dovi:
            entry["side_data_list"] = [{"side_data_type": "DOVI configuration record"}]
    fmt: dict[str, Any] = {"format_name": container.format.name}
    if container.duration is not None:
        fmt["duration"] = _seconds(container.duration, Fraction(1, av.time_base))
    if container.bit_rate and container.bit_rate > 0:
        fmt["bit_rate"] = str(container.bit_rate)
    if container.size is not None and container.size >= 0:
        fmt["size"] = str(container.size)
    return {"format": fmt, "streams": streams}


def _stream_entry(stream: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": stream.index, "codec_type": stream.type}
    context = stream.codec_context
    if context is not None:
        entry["codec_name"] = context.codec.canonical_name
        entry["codec_tag_string"] = _codec_tag(context)
        if context.bit_rate and context.bit_rate > 0:
            entry["bit_rate"] = str(context.bit_rate)
        if stream.type == "video":
            _video_fields(entry, context)
        elif stream.type == "audio":
            _audio_fields(entry, context)
    disposition = int(stream.disposition)
    entry["disposition"] = {name: int(bool(disposition & flag)) for name, flag in _DISPOSITIONS}
    if stream.metadata:
        entry["tags"] = dict(stream.metadata)
    if stream.duration is not None and stream.time_base:
        entry["duration"] = _seconds(stream.duration, stream.time_base)
    return entry


def _codec_tag(context: Any) -> str:
    try:
        return str(context.codec_tag)
    except UnicodeDecodeError:  # a binary tag (MPEG-TS stream types): not a fourcc
        return ""


def _video_fields(entry: dict[str, Any], context: Any) -> None:
    pix_fmt = context.pix_fmt
    if pix_fmt and _EIGHT_BIT.match(pix_fmt):
        entry["eight_bit"] = True  # not ffprobe's: no Dolby Vision to look for
    if context.width:
        entry["width"] = context.width
    if context.height:
        entry["height"] = context.height
    transfer = COLOR_TRANSFER_NAMES.get(context.color_trc)
    if transfer is not None:
        entry["color_transfer"] = transfer


def _audio_fields(entry: dict[str, Any], context: Any) -> None:
    if context.sample_rate:
        entry["sample_rate"] = str(context.sample_rate)
    channels = context.channels
    if channels:
        entry["channels"] = channels
        layout = context.layout.name
        # ffprobe names no layout when only the count is known.
        if layout and not _UNSPECIFIED_LAYOUT.match(layout):
            entry["channel_layout"] = layout


def _dolby_vision_streams(container: Any, streams: list[dict[str, Any]]) -> set[int]:
    """Indexes of streams with a Dolby Vision configuration record.

    PyAV does not expose a stream's side data, but ``av_dump_format`` lists
    it under each stream; asked only when a stream's codec could carry it.
    """
    if not any(s.get("codec_name") in DOLBY_VISION_BASE_CODECS and not s.get("eight_bit") for s in streams):
        return set()
    found: set[int] = set()
    current: int | None = None
    for line in _dump(container).splitlines():
        stream = _DUMP_STREAM.match(line)
        if stream is not None:
            current = int(stream.group(1))
        elif current is not None and "dovi configuration record" in line.lower():
            found.add(current)
    return found


def _dump(container: Any) -> str:
    # av_dump_format logs at INFO: below the level probes run at, so raise it meanwhile.
    level = av.logging.get_level()
    av.logging.set_level(av.logging.INFO)
    try:
        return str(container.dumps_format())
    finally:
        av.logging.set_level(level)


def _seconds(duration: int, time_base: Fraction) -> str:
    # As ffprobe prints a time: the double product, with six decimals.
    return f"{duration * (time_base.numerator / time_base.denominator):f}"
