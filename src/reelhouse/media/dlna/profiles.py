"""The DLNA media format profile (``DLNA.ORG_PN``) of a file, where one applies.

DLNA names profiles for MPEG-2 in program and transport streams and for
H.264 in MP4 and transport streams (DLNA Guidelines, Media Formats); a
television that finds one in ``protocolInfo`` knows it can play the file
without probing it.  Matroska, AVI, WebM and the rest have none: for them
the field is left out (as minidlna and gerbera do), never guessed.  The
resolution classes are the profiles': SD up to 720x576, HD up to
1920x1080; anything larger has no profile.  Frame rates are not known
here, so the MPEG-2 transport profiles are the 60 Hz (NA) ones.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

SD_WIDTH, SD_HEIGHT = 720, 576
HD_WIDTH, HD_HEIGHT = 1920, 1080
TRANSPORT = frozenset({"ts", "m2ts", "mts"})
PROGRAM = frozenset({"mpg", "mpeg", "vob"})
MP4 = frozenset({"mp4", "m4v"})


@dataclass(frozen=True, slots=True)
class Format:
    extension: str  # the file's, lower case, without the dot
    video_codec: str | None  # ffprobe's name: h264, mpeg2video...
    audio_codec: str | None  # aac, ac3, mp2...
    width: int | None
    height: int | None


@functools.lru_cache(maxsize=256)  # a page of 50 films has a handful of distinct formats
def profile(media: Format) -> str | None:
    """The ``DLNA.ORG_PN`` value of ``media``; None when DLNA defines none for it."""
    size = _size_class(media.width, media.height)
    if size is None or media.video_codec is None:
        return None
    video, audio = media.video_codec.lower(), (media.audio_codec or "").lower()
    if media.extension in PROGRAM:
        return _program(video, media.height or 0)
    if media.extension in TRANSPORT:
        return _transport(video, audio, size)
    if media.extension in MP4 and video == "h264":
        return _mp4_avc(audio, media.width or 0, media.height or 0)
    return None


def _size_class(width: int | None, height: int | None) -> str | None:
    if not width or not height:
        return None
    if width <= SD_WIDTH and height <= SD_HEIGHT:
        return "SD"
    if width <= HD_WIDTH and height <= HD_HEIGHT:
        return "HD"
    return None


def _program(video: str, height: int) -> str | None:
    if video == "mpeg1video":
        return "MPEG1"
    if video == "mpeg2video" and height <= SD_HEIGHT:
        return "MPEG_PS_NTSC" if height <= 480 else "MPEG_PS_PAL"
    return None


def _transport(video: str, audio: str, size: str) -> str | None:
    if video == "mpeg2video":
        return f"MPEG_TS_{size}_NA_ISO"
    if video == "h264" and audio == "aac":
        return f"AVC_TS_MP_{size}_AAC_MULT5_ISO"
    if video == "h264" and audio == "ac3":
        return f"AVC_TS_MP_{size}_AC3_ISO"
    return None


def _mp4_avc(audio: str, width: int, height: int) -> str | None:
    if audio not in ("aac", ""):
        return "AVC_MP4_MP_SD_AC3" if audio == "ac3" and width <= SD_WIDTH and height <= SD_HEIGHT else None
    if width <= SD_WIDTH and height <= SD_HEIGHT:
        return "AVC_MP4_MP_SD_AAC_MULT5"
    if width <= 1280 and height <= 720:
        return "AVC_MP4_MP_HD_720p_AAC"
    return "AVC_MP4_MP_HD_1080i_AAC"
