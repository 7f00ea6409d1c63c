"""Local artwork next to media: which image a file is, its tag, its size.

Kodi/Jellyfin naming, compared case-insensitively (base names, video stem
and extension):

===========================  ============================================
``poster folder cover``      primary (also ``default``)
``fanart backdrop``          backdrop; a number gives the index:
``background``               ``fanart1``, ``backdrop-2`` (plain = index 0)
``logo clearlogo``           logo
``thumb landscape``          thumb
``banner``                   banner
``disc discart cdart``       disc
``clearart art``             art
===========================  ============================================

Movie and episode contexts also accept ``<video stem>-<name>`` (so
``Arrival (2016)-poster.jpg``, ``S01E01-thumb.jpg``) and the bare video
stem (``Arrival (2016).jpg``) as primary. An episode shares its folder
with its season, so for episodes only stem-based names count. In a series
folder ``season01-poster.jpg``, ``season1.jpg`` (primary),
``season-specials-fanart.png`` (season 0) name a season's images; the
``season-all-*`` images Kodi uses are not supported. Extensions:
:data:`IMAGE_EXTENSIONS` (Kodi's ``.tbn`` is not read).

Everything here is pure: the caller reads the bytes (in a worker thread)
and passes them in.
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import zlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from PIL import Image

ImageContext = Literal["movie", "series", "season", "episode"]

IMAGE_EXTENSIONS = frozenset({"jpg", "jpeg", "png", "webp", "gif", "bmp"})
IMAGE_TAG_LENGTH = 16
SNIFF_BYTES = 32
"""How much of a file :func:`sniff_image_type` needs."""
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
# BMP's magic is two letters; its DIB header size must be a known one too.
_BMP_HEADER_SIZES = frozenset({12, 40, 52, 56, 64, 108, 124})
# How much of a file read_image_size looks at: enough for a JPEG whose size
# follows a few full-size segments (EXIF, an ICC profile, XMP).
SIZE_HEADER_BYTES = 256 * 1024
_PILLOW_FORMATS = ("JPEG", "PNG", "WEBP", "GIF", "BMP")
# What Pillow's format plugins raise on a damaged or cut header (it
# documents OSError; the plugins' parsers also let these through).
_UNREADABLE = (OSError, ValueError, SyntaxError, EOFError, IndexError, struct.error, Image.DecompressionBombError)


class ImageKind(StrEnum):
    """The reference's ImageKind."""

    PRIMARY = "primary"
    BACKDROP = "backdrop"
    LOGO = "logo"
    THUMB = "thumb"
    BANNER = "banner"
    ART = "art"
    DISC = "disc"
    PHOTO = "photo"
    STILL = "still"


@dataclass(frozen=True, slots=True)
class ImageRef:
    """What an image file is: its kind and index, and for a season image
    found in the series folder, the season number (0 for specials)."""

    kind: ImageKind
    index: int = 0
    season: int | None = None


_NAMES: dict[str, ImageKind] = {
    **dict.fromkeys(("poster", "folder", "cover", "default"), ImageKind.PRIMARY),
    **dict.fromkeys(("fanart", "backdrop", "background"), ImageKind.BACKDROP),
    **dict.fromkeys(("logo", "clearlogo"), ImageKind.LOGO),
    **dict.fromkeys(("thumb", "landscape"), ImageKind.THUMB),
    "banner": ImageKind.BANNER,
    **dict.fromkeys(("disc", "discart", "cdart"), ImageKind.DISC),
    **dict.fromkeys(("clearart", "art"), ImageKind.ART),
}
_NAMED = re.compile(r"(?P<name>[a-z]+?)(?:-?(?P<index>\d{1,3}))?")
_SEASON = re.compile(r"season(?:(?P<number>\d{1,4})|-specials)(?:-(?P<rest>.+))?")


def classify_image(
    file_name: str, *, video_stem: str | None, context: ImageContext
) -> ImageRef | None:
    """What the image ``file_name`` is for a ``context`` item, or None.

    ``video_stem`` is the stem of the item's video (None for series, seasons
    and folder-based items without one). None when the extension is not an
    image one or the name follows none of the conventions above.
    """
    stem, dot, extension = file_name.rpartition(".")
    if not dot or extension.lower() not in IMAGE_EXTENSIONS:
        return None
    lowered = stem.lower()
    if video_stem and context in ("movie", "episode"):
        by_stem = _by_video_stem(lowered, video_stem.lower())
        if by_stem is not None or context == "episode":
            return by_stem
    if context == "episode":
        return None
    if context == "series" and lowered.startswith("season"):
        return _season_image(lowered)
    return _named(lowered)


def image_tag(content_hash_input: bytes) -> str:
    """A short content hash naming one version of an image (16 hex digits
    of its SHA-256); the same bytes always give the same tag."""
    return hashlib.sha256(content_hash_input).hexdigest()[:IMAGE_TAG_LENGTH]


def sniff_image_type(head: bytes) -> str | None:
    """The content type of an image from its first bytes (:data:`SNIFF_BYTES`
    suffice): JPEG, PNG, WebP, GIF or BMP, the formats the server decodes;
    None for anything else, whatever the file's name says."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    for magic, content_type in _MAGIC:
        if head.startswith(magic):
            return content_type
    if head[:2] == b"BM" and len(head) >= 18 and int.from_bytes(head[14:18], "little") in _BMP_HEADER_SIZES:
        return "image/bmp"
    return None


def read_image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG, JPEG, WebP, GIF or BMP, from its header.

    ``data`` is the file, or its start: of a JPEG, PNG, GIF or BMP no more
    than :data:`SIZE_HEADER_BYTES` is looked at (enough for nearly every
    JPEG). A WebP is the exception: libwebp's demuxer wants the whole file,
    so a WebP cut short has no size. None when the format is not one of
    those five, the header is damaged or too short, a size is 0, or the
    image is past Pillow's decompression-bomb limit. EXIF orientation is not
    applied: the size is the stored one. Never raises.

    A plain PNG or JPEG header is read here (:func:`_plain_png_size`,
    :func:`_plain_jpeg_size`): Pillow's lazy open of a poster cost about
    25 us, most of a scan's image work (issue #29); anything else, or
    anything unusual in those headers, is Pillow's. A file damaged past its
    frame header (a bad quantisation table) gets its size and fails when
    decoded, as a file damaged in its pixel data always did.
    """
    content_type = sniff_image_type(data[:SNIFF_BYTES])
    if content_type is None:
        return None
    header = data if content_type == "image/webp" else data[:SIZE_HEADER_BYTES]
    plain = _plain_png_size(header) if content_type == "image/png" else None
    if plain is None and content_type == "image/jpeg":
        plain = _plain_jpeg_size(header)
    if plain is not None:
        return plain if plain[0] > 0 and plain[1] > 0 and not _past_bomb_limit(*plain) else None
    try:
        with Image.open(io.BytesIO(header), formats=_PILLOW_FORMATS) as image:
            width, height = image.size
    except _UNREADABLE:
        return None
    return (width, height) if width > 0 and height > 0 else None


_PNG_IHDR = struct.Struct(">I4sIIBBBBBI")  # length, type, width, height, depth, colour, ..., CRC
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_JPEG_FRAMES = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
_JPEG_SCAN = 0xDA


def _plain_png_size(data: bytes) -> tuple[int, int] | None:
    """A PNG's size from an IHDR whose CRC, depth and colour type check; else None (Pillow decides)."""
    if len(data) < 8 + _PNG_IHDR.size:
        return None
    length, kind, width, height, depth, colour, _, _, _, crc = _PNG_IHDR.unpack_from(data, 8)
    if length != 13 or kind != b"IHDR" or zlib.crc32(data[12:29]) != crc or depth not in _PNG_DEPTHS.get(colour, ()):
        return None
    return width, height


def _plain_jpeg_size(data: bytes) -> tuple[int, int] | None:
    """A JPEG's size from its frame header, found walking the segments up to
    the first scan (as Pillow does); None at anything unusual (Pillow decides)."""
    at, size = 2, None
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # a fill byte
            at += 1
            continue
        if marker == _JPEG_SCAN:
            return size
        if marker == 0x01 or 0xD0 <= marker <= 0xD9:  # markers without a length: rare in a header
            return None
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if length < 2:
            return None
        if marker in _JPEG_FRAMES:
            if size is not None or length < 8 or at + 10 > len(data) or data[at + 9] not in (1, 3, 4):
                return None
            size = (int.from_bytes(data[at + 7 : at + 9], "big"), int.from_bytes(data[at + 5 : at + 7], "big"))
        at += 2 + length
    return None


def _past_bomb_limit(width: int, height: int) -> bool:
    """Pillow's refusal (DecompressionBombError) of what it would not open."""
    limit = Image.MAX_IMAGE_PIXELS
    return limit is not None and width * height > 2 * limit


def _by_video_stem(lowered: str, video_stem: str) -> ImageRef | None:
    if lowered == video_stem:
        return ImageRef(ImageKind.PRIMARY)
    if lowered.startswith(video_stem + "-"):
        return _named(lowered[len(video_stem) + 1 :])
    return None


def _named(name: str) -> ImageRef | None:
    match = _NAMED.fullmatch(name)
    if match is None or match["name"] not in _NAMES:
        return None
    kind = _NAMES[match["name"]]
    if match["index"] is None:
        return ImageRef(kind)
    # Only backdrops come in numbered series.
    return ImageRef(kind, int(match["index"])) if kind is ImageKind.BACKDROP else None


def _season_image(name: str) -> ImageRef | None:
    match = _SEASON.fullmatch(name)
    if match is None:
        return None
    season = int(match["number"]) if match["number"] is not None else 0
    rest = match["rest"]
    image = _named(rest) if rest is not None else ImageRef(ImageKind.PRIMARY)
    if image is None:
        return None
    return ImageRef(image.kind, image.index, season)
