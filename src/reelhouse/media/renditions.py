"""Resized renditions of stored images (GET /images/items/{id} size parameters).

Pure and synchronous: bytes in, bytes out, no files. Decoding is CPU work,
so the caller runs :func:`render` in a worker thread bounded by a
CapacityLimiter; it holds no locks and touches no shared state, so threads
need no coordination. It cannot be cancelled midway: a cancelled caller
abandons the thread's result.

Geometry (all sizes in pixels, after EXIF orientation is applied):

- ``max_width``/``max_height``: scale down to fit inside, keeping aspect.
- ``fill_width`` and ``fill_height``: centre-crop to that aspect ratio and
  scale to exactly that size.
- only one of ``fill_width``/``fill_height``: scale so that dimension is the
  given one, keeping aspect (no crop), like the matching ``max_`` parameter.
- both kinds: fill first (it decides the shape), then ``max_`` caps the
  result, keeping the fill's aspect ratio.
- Every output side is at most :data:`MAX_OUTPUT_SIDE` (scaled down,
  keeping aspect): only an extreme panorama ever meets it.
- Nothing is ever scaled up: a fill larger than the source gives the
  largest centre crop of the fill's aspect ratio at the source's own scale.
  Upscaling adds no detail, and a 10,000 x 10,000 fill of a thumbnail would
  be a cheap way to make the server allocate hundreds of megabytes.

Output: JPEG (alpha composited over white) or WebP (alpha kept); EXIF is
dropped (its orientation is already applied), an RGB ICC profile is kept.
The first frame of an animation is used.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from PIL import Image

from reelhouse.errors import Invalid

ImageFormat = Literal["jpeg", "webp"]

MAX_PIXELS = 64_000_000
"""Largest source image decoded (width x height); larger ones are refused."""
MAX_SIZE = 10_000
"""Largest value of a size parameter."""
MAX_SOURCE_BYTES = 128 * 1024 * 1024
"""Larger stored files are not loaded to be rendered (served as they are, they stream)."""
MAX_OUTPUT_SIDE = 16_383
"""Longest output side: WebP's limit (JPEG's is 65,535). Applies like a max bound."""
DECODABLE_FORMATS = ("JPEG", "PNG", "WEBP", "GIF", "BMP")
"""Only these decoders see stored bytes: fewer parsers, less attack surface."""
JPEG_QUALITY = 85
WEBP_QUALITY = 80
WEBP_METHOD = 4  # libwebp's default speed/size trade-off
DRAFT_REDUCING_GAP = 2.0
"""JPEG DCT downscaling stops at this multiple of the needed size, for quality."""
RESIZE_REDUCING_GAP = 3.0
BACKGROUND = (255, 255, 255)

CONTENT_TYPES: Mapping[str, str] = {"jpeg": "image/jpeg", "webp": "image/webp"}
_PIL_FORMATS: Mapping[str, str] = {"jpeg": "JPEG", "webp": "WEBP"}
_ORIENTATION_TAG = 0x0112
_TRANSPOSES: Mapping[int, Image.Transpose] = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_SWAPS_AXES = frozenset({5, 6, 7, 8})
_ALPHA_MODES = frozenset({"RGBA", "LA", "PA", "RGBa", "La"})
_WIDE_GRAY_MODES = frozenset({"I", "I;16", "I;16B", "I;16L", "I;16N"})

# Pillow's own guard agrees with ours: it warns above MAX_PIXELS and raises
# DecompressionBombError above twice that, before any pixel is decoded.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS


class ImageTooLarge(Exception):
    """The source image has more than :data:`MAX_PIXELS` pixels."""


class BrokenImage(Exception):
    """The bytes are not a decodable image (truncated, corrupt, other format)."""


@dataclass(frozen=True, slots=True)
class Rendition:
    """An encoded image: ``data`` is the whole body, ``content_type`` its media type."""

    data: bytes
    width: int
    height: int
    content_type: str


@dataclass(frozen=True, slots=True)
class _Sizes:
    """The requested size parameters (None when absent)."""

    max_width: int | None
    max_height: int | None
    fill_width: int | None
    fill_height: int | None


@dataclass(frozen=True, slots=True)
class _Plan:
    """Crop box as fractions of the oriented source, and the output size."""

    box: tuple[float, float, float, float]
    width: int
    height: int


def validate_size(name: str, value: int | None) -> int | None:
    """``value`` if it is absent or 1..MAX_SIZE; else Invalid(field=name)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_SIZE:
        raise Invalid(f"{name} must be between 1 and {MAX_SIZE}", field=name)
    return value


def negotiate_format(accept_header: str | None) -> ImageFormat:
    """``"webp"`` when Accept names ``image/webp`` with q > 0, else ``"jpeg"``.

    Wildcards (``image/*``, ``*/*``) do not select WebP: clients that cannot
    decode it send them too. The first ``image/webp`` entry decides; a
    malformed q counts as 0. Responses must carry ``Vary: Accept``.
    """
    for entry in (accept_header or "").split(","):
        media_type, _, params = entry.partition(";")
        if media_type.strip().lower() == "image/webp":
            return "webp" if _quality(params) > 0 else "jpeg"
    return "jpeg"


def render(
    data: bytes,
    *,
    max_width: int | None = None,
    max_height: int | None = None,
    fill_width: int | None = None,
    fill_height: int | None = None,
    fmt: ImageFormat = "jpeg",
) -> Rendition:
    """Decode, orient, crop/scale (see the module doc) and encode ``data``.

    Raises Invalid (field = the parameter's API name) for a size out of
    range, ValueError for an unknown ``fmt``, ImageTooLarge above
    :data:`MAX_PIXELS`, BrokenImage for anything that does not decode;
    never another exception for any input bytes.
    """
    for name, value in (
        ("maxWidth", max_width),
        ("maxHeight", max_height),
        ("fillWidth", fill_width),
        ("fillHeight", fill_height),
    ):
        validate_size(name, value)
    if fmt not in _PIL_FORMATS:
        raise ValueError(f"unknown image format {fmt!r}")
    sizes = _Sizes(max_width, max_height, fill_width, fill_height)
    image, plan = _decode(data, sizes, keep_alpha=fmt == "webp")
    image = _resize(image, plan)
    return Rendition(_encode(image, fmt), image.width, image.height, CONTENT_TYPES[fmt])


def _decode(data: bytes, sizes: _Sizes, *, keep_alpha: bool) -> tuple[Image.Image, _Plan]:
    """The oriented, RGB(A) image and its plan; ImageTooLarge or BrokenImage."""
    try:
        image: Image.Image = Image.open(io.BytesIO(data), formats=DECODABLE_FORMATS)
        source_size = image.size
        if source_size[0] * source_size[1] > MAX_PIXELS:
            raise ImageTooLarge(f"{source_size[0]}x{source_size[1]} is over {MAX_PIXELS} pixels")
        if image.format == "JPEG":
            _draft(image, sizes)
        image.load()
        # Read after load: a PNG may carry its EXIF after the pixel data.
        orientation = _orientation(image)
        icc_profile = image.info.get("icc_profile") if image.mode in ("RGB", "RGBA") else None
        if orientation in _TRANSPOSES:
            image = image.transpose(_TRANSPOSES[orientation])
        image = _to_rgb(image, keep_alpha=keep_alpha)
    except (ImageTooLarge, BrokenImage):
        raise
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(str(exc)) from exc
    except Exception as exc:  # Pillow's decoders raise many undocumented types on bad input
        raise BrokenImage(f"not a decodable image: {exc}") from exc
    if icc_profile:
        image.info["icc_profile"] = icc_profile
    return image, _plan(_oriented(source_size, orientation), sizes)


def _draft(image: Image.Image, sizes: _Sizes) -> None:
    """Let the JPEG decoder downscale by 1/2, 1/4 or 1/8 while decoding: far cheaper."""
    orientation = _orientation(image)
    plan = _plan(_oriented(image.size, orientation), sizes)
    left, top, right, bottom = plan.box
    needed = (
        math.ceil(plan.width / (right - left) * DRAFT_REDUCING_GAP),
        math.ceil(plan.height / (bottom - top) * DRAFT_REDUCING_GAP),
    )
    image.draft(image.mode, _oriented(needed, orientation))


def _oriented(size: tuple[int, int], orientation: int) -> tuple[int, int]:
    """``size`` as seen after applying ``orientation`` (and back: it is its own inverse)."""
    return (size[1], size[0]) if orientation in _SWAPS_AXES else size


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation, 1 when absent or unreadable (the pixels may be fine)."""
    try:
        value = image.getexif().get(_ORIENTATION_TAG, 1)
    except Exception:  # a corrupt EXIF block is not a corrupt image
        return 1
    return value if isinstance(value, int) else 1


def _plan(source: tuple[int, int], sizes: _Sizes) -> _Plan:
    src_w, src_h = source
    box = (0.0, 0.0, 1.0, 1.0)
    width, height = src_w, src_h
    if sizes.fill_width and sizes.fill_height:
        box = _centre_crop(src_w, src_h, sizes.fill_width / sizes.fill_height)
        crop_w = (box[2] - box[0]) * src_w
        crop_h = (box[3] - box[1]) * src_h
        if sizes.fill_width <= crop_w and sizes.fill_height <= crop_h:
            width, height = sizes.fill_width, sizes.fill_height
        else:
            width, height = max(1, round(crop_w)), max(1, round(crop_h))
    elif sizes.fill_width or sizes.fill_height:
        width, height = _fit(src_w, src_h, sizes.fill_width, sizes.fill_height)
    width, height = _fit(width, height, sizes.max_width, sizes.max_height)
    width, height = _fit(width, height, MAX_OUTPUT_SIDE, MAX_OUTPUT_SIDE)
    return _Plan(box, width, height)


def _centre_crop(src_w: int, src_h: int, aspect: float) -> tuple[float, float, float, float]:
    if src_w / src_h > aspect:
        keep = src_h * aspect / src_w
        return ((1 - keep) / 2, 0.0, (1 + keep) / 2, 1.0)
    keep = src_w / aspect / src_h
    return (0.0, (1 - keep) / 2, 1.0, (1 + keep) / 2)


def _fit(width: int, height: int, max_width: int | None, max_height: int | None) -> tuple[int, int]:
    """Scale down (never up) to fit the given bounds, keeping aspect."""
    by_width = max_width / width if max_width else 1.0
    by_height = max_height / height if max_height else 1.0
    if min(by_width, by_height) >= 1.0:
        return width, height
    if by_width <= by_height:
        return max_width or width, max(1, round(height * by_width))
    return max(1, round(width * by_height)), max_height or height


def _to_rgb(image: Image.Image, *, keep_alpha: bool) -> Image.Image:
    if image.mode in _WIDE_GRAY_MODES:
        image = image.point(lambda value: value / 257).convert("L")
    has_alpha = image.mode in _ALPHA_MODES or "transparency" in image.info
    if not has_alpha:
        return image if image.mode == "RGB" else image.convert("RGB")
    rgba = image.convert("RGBA")
    if keep_alpha:
        return rgba
    flat = Image.new("RGB", rgba.size, BACKGROUND)
    flat.paste(rgba, mask=rgba.getchannel("A"))
    return flat


def _resize(image: Image.Image, plan: _Plan) -> Image.Image:
    left, top, right, bottom = plan.box
    box = (left * image.width, top * image.height, right * image.width, bottom * image.height)
    if (plan.width, plan.height) == image.size and box == (0, 0, image.width, image.height):
        return image
    resized = image.resize(
        (plan.width, plan.height), Image.Resampling.LANCZOS,
        box=box, reducing_gap=RESIZE_REDUCING_GAP,
    )
    if "icc_profile" in image.info:
        resized.info["icc_profile"] = image.info["icc_profile"]
    return resized


def _encode(image: Image.Image, fmt: ImageFormat) -> bytes:
    buffer = io.BytesIO()
    options: dict[str, object] = {"quality": JPEG_QUALITY if fmt == "jpeg" else WEBP_QUALITY}
    if fmt == "webp":
        options["method"] = WEBP_METHOD
    if image.info.get("icc_profile"):
        options["icc_profile"] = image.info["icc_profile"]
    image.save(buffer, _PIL_FORMATS[fmt], **options)
    return buffer.getvalue()


def _quality(params: str) -> float:
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "q":
            try:
                quality = float(value.strip())
            except ValueError:
                return 0.0
            return quality if 0.0 <= quality <= 1.0 else 0.0
    return 1.0
