"""local_images: artwork names, content tags and header-only image sizes."""

from __future__ import annotations

import io
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from reelhouse.media import local_images
from reelhouse.media.local_images import (
    SIZE_HEADER_BYTES,
    SNIFF_BYTES,
    ImageContext,
    ImageKind,
    ImageRef,
    classify_image,
    image_tag,
    read_image_size,
    sniff_image_type,
)

P, B, L, T = ImageKind.PRIMARY, ImageKind.BACKDROP, ImageKind.LOGO, ImageKind.THUMB
BANNER, DISC, ART = ImageKind.BANNER, ImageKind.DISC, ImageKind.ART
MOVIE = "Arrival (2016)"
EPISODE = "Dark - S01E01 - Secrets"


@pytest.mark.parametrize(
    ("file_name", "stem", "context", "expected"),
    [
        # bare names, any context but episode
        ("poster.jpg", MOVIE, "movie", ImageRef(P)),
        ("folder.jpg", None, "movie", ImageRef(P)),
        ("cover.png", None, "season", ImageRef(P)),
        ("Poster.JPG", None, "series", ImageRef(P)),
        ("default.webp", None, "movie", ImageRef(P)),
        ("fanart.jpg", None, "series", ImageRef(B)),
        ("fanart1.jpg", None, "movie", ImageRef(B, 1)),
        ("backdrop2.png", None, "movie", ImageRef(B, 2)),
        ("backdrop-3.png", None, "movie", ImageRef(B, 3)),
        ("background.jpg", None, "season", ImageRef(B)),
        ("logo.png", None, "movie", ImageRef(L)),
        ("clearlogo.png", None, "series", ImageRef(L)),
        ("thumb.jpg", None, "movie", ImageRef(T)),
        ("landscape.jpg", None, "series", ImageRef(T)),
        ("banner.jpg", None, "series", ImageRef(BANNER)),
        ("disc.png", None, "movie", ImageRef(DISC)),
        ("discart.png", None, "movie", ImageRef(DISC)),
        ("cdart.png", None, "movie", ImageRef(DISC)),
        ("clearart.png", None, "movie", ImageRef(ART)),
        ("art.png", None, "series", ImageRef(ART)),
        ("poster.gif", None, "movie", ImageRef(P)),
        ("poster.bmp", None, "movie", ImageRef(P)),
        ("poster.jpeg", None, "movie", ImageRef(P)),
        # names built on the video stem
        ("Arrival (2016).jpg", MOVIE, "movie", ImageRef(P)),
        ("Arrival (2016)-poster.jpg", MOVIE, "movie", ImageRef(P)),
        ("arrival (2016)-FANART.jpg", MOVIE, "movie", ImageRef(B)),
        ("Arrival (2016)-fanart2.jpg", MOVIE, "movie", ImageRef(B, 2)),
        ("Arrival (2016)-clearlogo.png", MOVIE, "movie", ImageRef(L)),
        ("Arrival (2016)-landscape.jpg", MOVIE, "movie", ImageRef(T)),
        ("Arrival (2016)-discart.png", MOVIE, "movie", ImageRef(DISC)),
        ("Dark - S01E01 - Secrets-thumb.jpg", EPISODE, "episode", ImageRef(T)),
        ("Dark - S01E01 - Secrets.jpg", EPISODE, "episode", ImageRef(P)),
        ("Dark - S01E01 - Secrets-fanart.jpg", EPISODE, "episode", ImageRef(B)),
        # season images in the series folder
        ("season01-poster.jpg", None, "series", ImageRef(P, season=1)),
        ("season1.jpg", None, "series", ImageRef(P, season=1)),
        ("Season12-Fanart.png", None, "series", ImageRef(B, season=12)),
        ("season02-fanart3.jpg", None, "series", ImageRef(B, 3, season=2)),
        ("season00-banner.jpg", None, "series", ImageRef(BANNER, season=0)),
        ("season-specials-poster.jpg", None, "series", ImageRef(P, season=0)),
        ("season-specials.jpg", None, "series", ImageRef(P, season=0)),
        ("season03-landscape.jpg", None, "series", ImageRef(T, season=3)),
    ],
)  # fmt: skip
def test_classify_image(
    file_name: str, stem: str | None, context: ImageContext, expected: ImageRef
) -> None:
    assert classify_image(file_name, video_stem=stem, context=context) == expected


@pytest.mark.parametrize(
    ("file_name", "stem", "context"),
    [
        ("poster.txt", None, "movie"),
        ("poster", None, "movie"),
        ("poster.tbn", None, "movie"),
        ("Arrival (2016).mkv", MOVIE, "movie"),
        ("random.jpg", None, "movie"),
        ("poster1.jpg", None, "movie"),  # only backdrops are numbered
        ("Other (2010)-poster.jpg", MOVIE, "movie"),
        ("Arrival (2016)-poster.jpg", None, "movie"),
        ("Arrival (2016)-random.jpg", MOVIE, "movie"),
        ("poster.jpg", EPISODE, "episode"),  # the season's, not the episode's
        ("fanart.jpg", None, "episode"),
        ("season01-poster.jpg", None, "movie"),
        ("season01-poster.jpg", None, "season"),
        ("season-all-poster.jpg", None, "series"),
        ("season01-random.jpg", None, "series"),
        ("seasonal.jpg", None, "series"),
        (".jpg", None, "movie"),
    ],
)  # fmt: skip
def test_names_that_are_no_image_of_the_item(
    file_name: str, stem: str | None, context: ImageContext
) -> None:
    assert classify_image(file_name, video_stem=stem, context=context) is None


def test_image_kind_values_are_the_references() -> None:
    assert {k.value for k in ImageKind} == {
        "primary", "backdrop", "logo", "thumb", "banner", "art", "disc", "photo", "still",
    }  # fmt: skip


def test_image_tag_is_a_short_stable_content_hash() -> None:
    tag = image_tag(b"poster bytes")
    assert tag == image_tag(b"poster bytes")
    assert tag != image_tag(b"poster bytes!")
    assert len(tag) == 16 and int(tag, 16) >= 0
    assert image_tag(b"") == "e3b0c44298fc1c14"  # sha256 of nothing


# -- sizes, checked against Pillow ----------------------------------------

FORMATS = {
    "PNG": {}, "JPEG": {}, "GIF": {}, "BMP": {},
    "progressive JPEG": {"progressive": True},
    "lossy WebP": {"quality": 50}, "lossless WebP": {"lossless": True},
}  # fmt: skip


def _encoded(
    width: int, height: int, label: str, color: object = "red", **extra: object
) -> bytes:
    buffer = io.BytesIO()
    mode = "RGBA" if isinstance(color, tuple) and len(color) == 4 else "RGB"
    image = Image.new(mode, (width, height), color)  # type: ignore[arg-type]
    image.save(buffer, format=label.split()[-1], **FORMATS[label], **extra)  # type: ignore[arg-type]
    return buffer.getvalue()


@settings(max_examples=30, deadline=None)
@given(
    width=st.integers(1, 700),
    height=st.integers(1, 700),
    label=st.sampled_from(sorted(FORMATS)),
)
def test_size_from_header_matches_pillow(width: int, height: int, label: str) -> None:
    data = _encoded(width, height, label)
    assert read_image_size(data[:SIZE_HEADER_BYTES]) == (width, height)


def test_webp_with_alpha_uses_the_extended_header() -> None:
    data = _encoded(300, 17, "lossy WebP", color=(255, 0, 0, 128))
    assert data[12:16] == b"VP8X"
    assert read_image_size(data) == (300, 17)


def test_jpeg_size_after_a_large_exif_segment() -> None:
    exif = Image.Exif()
    exif[0x010E] = "x" * 60_000  # ImageDescription
    data = _encoded(640, 360, "JPEG", exif=exif.tobytes())
    assert data.index(b"\xff\xc0") > 60_000
    assert read_image_size(data[:SIZE_HEADER_BYTES]) == (640, 360)
    assert read_image_size(data[:4096]) is None


def test_a_jpeg_whose_frame_lies_past_the_header_bound_has_no_size_even_given_whole() -> None:
    segments = b"".join(b"\xff\xe2" + (65_000).to_bytes(2, "big") + bytes(64_998) for _ in range(5))
    plain = _encoded(64, 48, "JPEG")
    assert read_image_size(plain[:2] + segments + plain[2:]) is None  # five 65 kB APP2 segments before the frame
    assert read_image_size(plain[:2] + segments[: 3 * 65_002] + plain[2:]) == (64, 48)


def test_a_large_webp_is_read_whole_and_a_cut_one_has_no_size() -> None:
    noise = Image.frombytes("RGB", (600, 400), random.Random(7).randbytes(600 * 400 * 3))
    buffer = io.BytesIO()
    noise.save(buffer, format="WEBP", quality=100)
    data = buffer.getvalue()
    assert len(data) > 4096
    assert read_image_size(data) == (600, 400)
    assert read_image_size(data[:4096]) is None


def test_an_image_past_the_decompression_bomb_limit_has_no_size_and_does_not_raise() -> None:
    header = _encoded(4, 4, "PNG")
    huge = bytearray(header)
    huge[16:24] = (60_000).to_bytes(4, "big") + (60_000).to_bytes(4, "big")  # 3.6 gigapixels in IHDR
    assert read_image_size(bytes(huge)) is None


def test_top_down_bmp_height_is_positive() -> None:
    data = bytearray(_encoded(5, 7, "BMP"))
    data[22:26] = (-7).to_bytes(4, "little", signed=True)
    assert read_image_size(bytes(data)) == (5, 7)


@pytest.mark.parametrize(
    "header",
    [
        b"",
        b"not an image at all",
        b"\x89PNG\r\n\x1a\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00",
        b"\xff\xd8",
        b"\xff\xd8\xff\xe0\x00\x01",  # segment length below 2
        b"\xff\xd8\x00\x00\x00\x00",
        b"\xff\xd8\xff\xda\x00\x08" + bytes(8),  # scan before any frame
        b"GIF89a\x01",
        b"GIF89a\x00\x00\x05\x00",  # zero width
        b"RIFF\x00\x00\x00\x00WEBPVP8 ",
        b"RIFF\x00\x00\x00\x00WEBPVP8X\x00\x00",
        b"BM" + bytes(10),
    ],
)
def test_unreadable_headers_give_no_size(header: bytes) -> None:
    assert read_image_size(header) is None


@given(header=st.binary(max_size=64))
def test_any_bytes_give_a_size_or_none(header: bytes) -> None:
    size = read_image_size(header)
    assert size is None or (size[0] > 0 and size[1] > 0)


@given(prefix=st.sampled_from([b"\xff\xd8", b"\x89PNG\r\n\x1a\n", b"RIFF", b"BM", b"GIF89a"]),
       rest=st.binary(max_size=64))  # fmt: skip
def test_format_prefixes_with_junk_never_raise(prefix: bytes, rest: bytes) -> None:
    size = read_image_size(prefix + rest)
    assert size is None or (size[0] > 0 and size[1] > 0)


# -- sniffing: an image by its bytes, never by its name ----------------------


@pytest.mark.parametrize("label", sorted(FORMATS))
def test_every_decodable_format_is_sniffed_from_its_first_bytes(label: str) -> None:
    data = _encoded(20, 10, label)
    expected = "image/" + label.split()[-1].lower()
    assert sniff_image_type(data[:SNIFF_BYTES]) == expected


@pytest.mark.parametrize(
    "head",
    [b"root:$6$saltsalt$hash:19000:0:99999:7:::", b"", b"<svg xmlns=", b"BM not a bitmap at all....", b"RIFF\0\0\0\0WAVEfmt ",
     b"GIF8", b"\x89PNG", b"\x00" * 32, b"%PDF-1.7"],
)  # fmt: skip
def test_non_images_are_not_sniffed_as_images(head: bytes) -> None:
    assert sniff_image_type(head) is None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_sniffing_never_raises_and_only_names_known_types(head: bytes) -> None:
    assert sniff_image_type(head) in (None, "image/jpeg", "image/png", "image/gif", "image/bmp", "image/webp")


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(1, 900),
    height=st.integers(1, 900),
    variant=st.sampled_from(
        [("PNG", "RGB", {}), ("PNG", "RGBA", {}), ("PNG", "L", {}), ("PNG", "P", {}), ("PNG", "1", {}),
         ("PNG", "I;16", {}), ("JPEG", "RGB", {}), ("JPEG", "L", {}), ("JPEG", "CMYK", {}),
         ("JPEG", "RGB", {"progressive": True}), ("JPEG", "RGB", {"optimize": True, "quality": 95})]
    ),
)
def test_png_and_jpeg_headers_read_without_pillow_give_pillows_size(
    width: int, height: int, variant: tuple[str, str, dict[str, object]]
) -> None:
    # Regression (issue #29): the scan reads plain PNG and JPEG headers itself, not through Pillow.
    file_format, mode, options = variant
    buffer = io.BytesIO()
    Image.new(mode, (width, height)).save(buffer, format=file_format, **options)  # type: ignore[arg-type]
    data = buffer.getvalue()
    plain = local_images._plain_png_size(data) if file_format == "PNG" else local_images._plain_jpeg_size(data)
    with Image.open(io.BytesIO(data)) as image:
        assert plain == image.size == (width, height)
    assert read_image_size(data) == (width, height)


def test_a_png_header_with_a_wrong_checksum_or_colour_type_is_left_to_pillow() -> None:
    data = bytearray(_encoded(4, 3, "PNG"))
    assert local_images._plain_png_size(bytes(data)) == (4, 3)
    data[16:20] = (5).to_bytes(4, "big")  # width 5, checksum of width 4
    assert local_images._plain_png_size(bytes(data)) is None
    assert read_image_size(bytes(data)) is None  # Pillow: broken PNG file


def test_a_plain_image_past_the_decompression_bomb_limit_has_no_size() -> None:
    data = bytearray(_encoded(4, 4, "PNG"))
    data[16:24] = (60_000).to_bytes(4, "big") * 2
    data[29:33] = zlib.crc32(bytes(data[12:29])).to_bytes(4, "big")  # a valid header this time
    assert local_images._plain_png_size(bytes(data)) == (60_000, 60_000)
    assert read_image_size(bytes(data)) is None
