from __future__ import annotations

import io
import struct
import warnings
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from reelhouse.errors import Invalid
from reelhouse.media.renditions import (
    MAX_OUTPUT_SIDE,
    MAX_PIXELS,
    MAX_SIZE,
    BrokenImage,
    ImageTooLarge,
    Rendition,
    _draft,
    _Sizes,
    negotiate_format,
    render,
    validate_size,
)

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)


def _encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def _solid(size: tuple[int, int], color: tuple[int, ...] = RED, mode: str = "RGB") -> Image.Image:
    return Image.new(mode, size, color)


def _halves(size: tuple[int, int], left: tuple[int, int, int], right: tuple[int, int, int]) -> Image.Image:
    image = Image.new("RGB", size, left)
    image.paste(right, (size[0] // 2, 0, size[0], size[1]))
    return image


def _open(rendition: Rendition) -> Image.Image:
    image = Image.open(io.BytesIO(rendition.data))
    image.load()
    return image


def _close(actual: tuple[int, ...], expected: tuple[int, ...], tolerance: int = 24) -> bool:
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=True))


def _png_header_only(width: int, height: int, color_type: int = 2) -> bytes:
    """A PNG claiming the given size, with a few bytes of pixel data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


JPEG = _encode(_solid((400, 200)), "JPEG", quality=95)
PNG = _encode(_solid((400, 200), BLUE), "PNG")


# --- geometry -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ({}, (400, 200)),
        ({"max_width": 100}, (100, 50)),
        ({"max_height": 20}, (40, 20)),
        ({"max_width": 100, "max_height": 20}, (40, 20)),
        ({"max_width": 100, "max_height": 1000}, (100, 50)),
        ({"max_width": 1000, "max_height": 1000}, (400, 200)),  # never scaled up
        ({"max_width": 1}, (1, 1)),  # never below one pixel
        ({"fill_width": 100, "fill_height": 100}, (100, 100)),
        ({"fill_width": 300, "fill_height": 50}, (300, 50)),
        ({"fill_width": 90, "fill_height": 160}, (90, 160)),
        ({"fill_width": 1000, "fill_height": 1000}, (200, 200)),  # largest square crop, not upscaled
        ({"fill_width": 2000, "fill_height": 500}, (400, 100)),
        ({"fill_width": 100}, (100, 50)),  # one fill dimension: scale, keep aspect
        ({"fill_height": 50}, (100, 50)),
        ({"fill_height": 500}, (400, 200)),
        ({"fill_width": 200, "fill_height": 200, "max_width": 50}, (50, 50)),  # fill, then cap
        ({"fill_width": 160, "fill_height": 90, "max_height": 45}, (80, 45)),
        ({"fill_width": 100, "fill_height": 100, "max_width": 500}, (100, 100)),
    ],
)
@pytest.mark.parametrize("fmt", ["jpeg", "webp"])
def test_output_size_follows_the_documented_geometry(
    sizes: dict[str, int], expected: tuple[int, int], fmt: str
) -> None:
    for source in (JPEG, PNG):
        rendition = render(source, fmt=fmt, **sizes)  # type: ignore[arg-type]
        assert (rendition.width, rendition.height) == expected
        assert _open(rendition).size == expected


@pytest.mark.parametrize("fmt", ["jpeg", "webp"])
def test_an_extreme_panorama_is_capped_to_the_longest_encodable_side(fmt: str) -> None:
    data = _encode(_solid((20, 20_000), mode="L", color=(128,)), "PNG")
    rendition = render(data, max_width=100, fmt=fmt)  # type: ignore[arg-type]
    assert (rendition.width, rendition.height) == (16, MAX_OUTPUT_SIDE)
    assert _open(rendition).size == (16, MAX_OUTPUT_SIDE)


def test_fill_crops_around_the_centre() -> None:
    # 400x100: red | blue blue | green, in quarters; a square fill keeps the blue middle.
    image = Image.new("RGB", (400, 100), BLUE)
    image.paste(RED, (0, 0, 100, 100))
    image.paste(GREEN, (300, 0, 400, 100))
    result = _open(render(_encode(image, "PNG"), fill_width=50, fill_height=50, fmt="webp"))
    for corner in [(0, 0), (49, 0), (0, 49), (49, 49)]:
        assert _close(result.getpixel(corner), BLUE), corner  # type: ignore[arg-type]


def test_max_keeps_the_whole_picture() -> None:
    result = _open(render(_encode(_halves((400, 100), RED, GREEN), "PNG"), max_width=40, fmt="webp"))
    assert _close(result.getpixel((1, 5)), RED)  # type: ignore[arg-type]
    assert _close(result.getpixel((38, 5)), GREEN)  # type: ignore[arg-type]


# --- orientation, colour, formats --------------------------------------------


@pytest.mark.parametrize(
    ("orientation", "size", "top_left", "bottom_right"),
    [
        (1, (40, 20), RED, BLUE),
        (3, (40, 20), BLUE, RED),  # rotated 180
        (6, (20, 40), RED, BLUE),  # rotated 90 clockwise: the left half is on top
        (8, (20, 40), BLUE, RED),  # rotated 90 counter-clockwise: the right half is on top
    ],
)
def test_exif_orientation_is_applied(
    orientation: int, size: tuple[int, int], top_left: tuple[int, int, int], bottom_right: tuple[int, int, int]
) -> None:
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = _encode(_halves((40, 20), RED, BLUE), "JPEG", quality=95, exif=exif.tobytes())
    rendition = render(data, fmt="jpeg")
    result = _open(rendition)
    assert (rendition.width, rendition.height) == size == result.size
    assert _close(result.getpixel((2, 2)), top_left)  # type: ignore[arg-type]
    assert _close(result.getpixel((size[0] - 3, size[1] - 3)), bottom_right)  # type: ignore[arg-type]
    assert result.getexif().get(0x0112) is None  # applied, so not passed on


def test_orientation_is_applied_before_the_size_is_computed() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    data = _encode(_halves((400, 200), RED, BLUE), "JPEG", exif=exif.tobytes())
    rendition = render(data, max_width=100, fmt="jpeg")
    assert (rendition.width, rendition.height) == (100, 200)


def _half_transparent_png() -> bytes:
    image = Image.new("RGBA", (20, 10), (255, 0, 0, 255))
    image.paste((0, 0, 0, 0), (10, 0, 20, 10))
    return _encode(image, "PNG")


def test_alpha_becomes_a_white_background_in_jpeg() -> None:
    result = _open(render(_half_transparent_png(), fmt="jpeg"))
    assert result.mode == "RGB"
    assert _close(result.getpixel((2, 5)), RED)  # type: ignore[arg-type]
    assert _close(result.getpixel((17, 5)), WHITE)  # type: ignore[arg-type]


def test_alpha_is_kept_in_webp() -> None:
    result = _open(render(_half_transparent_png(), fmt="webp"))
    assert result.mode == "RGBA"
    assert result.getpixel((2, 5))[3] == 255  # type: ignore[index]
    assert result.getpixel((17, 5))[3] == 0  # type: ignore[index]


def test_palette_transparency_becomes_white_in_jpeg() -> None:
    image = Image.new("P", (10, 10), 1)
    image.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    image.paste(0, (5, 0, 10, 10))
    data = _encode(image, "GIF", transparency=0)
    result = _open(render(data, fmt="jpeg"))
    assert _close(result.getpixel((1, 5)), RED)  # type: ignore[arg-type]
    assert _close(result.getpixel((8, 5)), WHITE)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mode", "color", "expected"),
    [
        ("L", 128, (128, 128, 128)),
        ("LA", (128, 255), (128, 128, 128)),
        ("1", 1, WHITE),
        ("I;16", 40000, (156, 156, 156)),  # 16-bit grey scaled to 8 bits
        ("CMYK", (0, 255, 255, 0), RED),
    ],
)
def test_other_colour_modes_render_as_rgb(mode: str, color: object, expected: tuple[int, int, int]) -> None:
    fmt = "JPEG" if mode == "CMYK" else "PNG"
    data = _encode(Image.new(mode, (8, 8), color), fmt)  # type: ignore[arg-type]
    result = _open(render(data, fmt="jpeg"))
    assert result.mode == "RGB"
    assert _close(result.getpixel((4, 4)), expected)  # type: ignore[arg-type]


def test_sources_in_every_decodable_format_render() -> None:
    for fmt in ("JPEG", "PNG", "WEBP", "GIF", "BMP"):
        data = _encode(_solid((30, 20)), fmt)
        assert (render(data, max_width=15, fmt="jpeg").width, fmt) == (15, fmt)


def test_the_first_frame_of_an_animation_is_used() -> None:
    frames = [_solid((10, 10), RED), _solid((10, 10), BLUE)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:])
    result = _open(render(buffer.getvalue(), fmt="jpeg"))
    assert _close(result.getpixel((5, 5)), RED)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fmt", "content_type", "magic", "pil_format"),
    [("jpeg", "image/jpeg", b"\xff\xd8\xff", "JPEG"), ("webp", "image/webp", b"RIFF", "WEBP")],
)
def test_output_is_the_requested_format(fmt: str, content_type: str, magic: bytes, pil_format: str) -> None:
    rendition = render(PNG, max_width=50, fmt=fmt)  # type: ignore[arg-type]
    assert rendition.content_type == content_type
    assert rendition.data.startswith(magic)
    assert Image.open(io.BytesIO(rendition.data)).format == pil_format


def test_an_unknown_output_format_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        render(PNG, fmt="gif")  # type: ignore[arg-type]


# --- JPEG draft decoding --------------------------------------------------------


@pytest.mark.parametrize(
    ("orientation", "sizes", "minimum"),
    [
        (1, _Sizes(100, None, None, None), (200, 150)),
        (6, _Sizes(None, 100, None, None), (200, 150)),  # stored sideways: the height bound is the stored width
        (1, _Sizes(None, None, 100, 100), (266, 200)),
    ],
)
def test_jpeg_is_decoded_at_a_reduced_scale_with_headroom(
    orientation: int, sizes: _Sizes, minimum: tuple[int, int]
) -> None:
    exif = Image.Exif()
    exif[0x0112] = orientation
    image = Image.open(io.BytesIO(_encode(_solid((1600, 1200)), "JPEG", exif=exif.tobytes())))
    _draft(image, sizes)
    image.load()
    assert image.size[0] < 1600
    assert image.size[0] >= minimum[0] and image.size[1] >= minimum[1]


def test_jpeg_is_decoded_at_full_scale_when_no_reduction_is_asked() -> None:
    image = Image.open(io.BytesIO(_encode(_solid((1600, 1200)), "JPEG")))
    _draft(image, _Sizes(None, None, None, None))
    image.load()
    assert image.size == (1600, 1200)


# --- hostile input --------------------------------------------------------------


def test_a_decompression_bomb_header_is_refused_before_decoding() -> None:
    with pytest.raises(ImageTooLarge):
        render(_png_header_only(100_000, 100_000), max_width=10, fmt="jpeg")


def test_an_image_just_over_the_pixel_limit_is_refused() -> None:
    side = int(MAX_PIXELS**0.5) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        with pytest.raises(ImageTooLarge):
            render(_png_header_only(side, side), fmt="jpeg")


def test_an_image_at_the_pixel_limit_is_not_too_large() -> None:
    # Allowed by size; the pixel data is missing, so decoding it fails. Grey keeps it to 64 MB.
    with pytest.raises(BrokenImage):
        render(_png_header_only(MAX_PIXELS // 1000, 1000, color_type=0), fmt="jpeg")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello, world",
        JPEG[: len(JPEG) // 2],
        PNG[: len(PNG) // 2],
        PNG[:40],
        JPEG[:2],
        b"\x89PNG\r\n\x1a\n",
        _encode(_solid((10, 10)), "TIFF"),  # a real image in a format we do not decode
        _encode(_solid((10, 10)), "PPM"),
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
    ],
)
def test_broken_truncated_or_foreign_bytes_raise_broken_image(data: bytes) -> None:
    with pytest.raises(BrokenImage):
        render(data, max_width=10, fmt="jpeg")


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2048))
def test_arbitrary_bytes_never_raise_anything_else(data: bytes) -> None:
    with pytest.raises((BrokenImage, ImageTooLarge)):
        render(data, fmt="jpeg")


SMALL_SOURCES = [
    _encode(_halves((32, 24), RED, BLUE), "JPEG"),
    _encode(_halves((32, 24), RED, BLUE), "PNG"),
    _encode(_halves((32, 24), RED, BLUE), "WEBP"),
    _encode(_halves((32, 24), RED, BLUE), "GIF"),
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(SMALL_SOURCES), st.data())
def test_corrupted_or_truncated_images_render_or_raise_only_our_errors(
    source: bytes, data: st.DataObject
) -> None:
    position = data.draw(st.integers(min_value=0, max_value=len(source) - 1))
    corrupted = bytearray(source)
    corrupted[position] ^= data.draw(st.integers(min_value=1, max_value=255))
    for candidate in (bytes(corrupted), source[:position]):
        try:
            rendition = render(candidate, max_width=16, fmt="webp")
        except (BrokenImage, ImageTooLarge):
            continue
        assert rendition.width <= 16


# --- parameters ---------------------------------------------------------------


@pytest.mark.parametrize("value", [1, 640, MAX_SIZE, None])
def test_sizes_in_range_are_valid(value: int | None) -> None:
    assert validate_size("maxWidth", value) == value


@pytest.mark.parametrize("value", [0, -1, MAX_SIZE + 1, 10**9, True, 1.5, "100"])
def test_sizes_out_of_range_are_invalid_naming_the_field(value: object) -> None:
    with pytest.raises(Invalid) as caught:
        validate_size("fillHeight", value)  # type: ignore[arg-type]
    assert caught.value.params["field"] == "fillHeight"


@pytest.mark.parametrize(
    ("keyword", "field"),
    [("max_width", "maxWidth"), ("max_height", "maxHeight"), ("fill_width", "fillWidth"), ("fill_height", "fillHeight")],
)
def test_render_refuses_an_invalid_size_before_decoding(keyword: str, field: str) -> None:
    with pytest.raises(Invalid) as caught:
        render(b"not even an image", fmt="jpeg", **{keyword: 0})  # type: ignore[arg-type]
    assert caught.value.params["field"] == field


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "jpeg"),
        ("", "jpeg"),
        ("image/webp", "webp"),
        ("IMAGE/WEBP", "webp"),
        ("image/avif,image/webp,*/*", "webp"),
        ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "webp"),
        ("image/webp;q=0.1, image/jpeg", "webp"),
        (" image/webp ; q=1.0 ", "webp"),
        ("image/webp;q=0", "jpeg"),
        ("image/webp;q=0.000, */*", "jpeg"),
        ("image/webp;q=abc", "jpeg"),
        ("image/webp;q=2", "jpeg"),
        ("*/*", "jpeg"),
        ("image/*", "jpeg"),
        ("image/jpeg,image/png", "jpeg"),
        ("image/webpx", "jpeg"),
        ("text/html,application/xhtml+xml", "jpeg"),
        ("image/webp;level=1", "webp"),
    ],
)
def test_webp_only_when_the_client_names_it(accept: str | None, expected: str) -> None:
    assert negotiate_format(accept) == expected
