"""The Content-Type of a video file, from its name (the stream route serves files as they are).

:mod:`mimetypes` knows most containers, but reads the system's tables too
(``/etc/mime.types``), which name ``.ts`` a Qt translation and ``.mts`` a
3D model, and lack ``.m2ts``; :data:`VIDEO_TYPES` wins for the containers
a library holds.  Anything else :mod:`mimetypes` names as audio or video
keeps that name; the rest is ``application/octet-stream``.
"""

from __future__ import annotations

import mimetypes
from pathlib import PurePath

FALLBACK = "application/octet-stream"

VIDEO_TYPES = {
    ".mp4": "video/mp4",
    ".m4v": "video/mp4",
    ".mkv": "video/x-matroska",
    ".mk3d": "video/x-matroska",
    ".webm": "video/webm",
    ".avi": "video/x-msvideo",
    ".ts": "video/mp2t",
    ".m2ts": "video/mp2t",
    ".mts": "video/mp2t",
    ".mov": "video/quicktime",
    ".wmv": "video/x-ms-wmv",
    ".flv": "video/x-flv",
    ".mpg": "video/mpeg",
    ".mpeg": "video/mpeg",
    ".ogv": "video/ogg",
    ".3gp": "video/3gpp",
    ".iso": "application/x-iso9660-image",
}

# What the stream route's answers are typed as in the OpenAPI document.
SERVED_VIDEO_TYPES = (*sorted(set(VIDEO_TYPES.values())), FALLBACK)


def video_content_type(name: str) -> str:
    """The media type to serve the file ``name`` (a path or a URL path) with."""
    suffix = PurePath(name).suffix.lower()
    known = VIDEO_TYPES.get(suffix)
    if known is not None:
        return known
    guessed, _encoding = mimetypes.guess_type(f"x{suffix}", strict=False)
    if guessed is not None and guessed.split("/", 1)[0] in ("video", "audio"):
        return guessed
    return FALLBACK
