"""Library cover rules and the automatic collage (pure)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from reelhouse.media.covers import PRIMARY_SIZE, THUMB_SIZE, collage, is_final, scanned_cover
from reelhouse.media.renditions import BrokenImage


def jpeg(color: str, size: tuple[int, int] = (200, 300)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "JPEG")
    return out.getvalue()


def test_a_found_portrait_cover_prefers_poster_then_folder_then_cover() -> None:
    assert scanned_cover(["cover.png", "Folder.JPG", "movie.mkv"], "primary") == "Folder.JPG"
    assert scanned_cover(["cover.webp", "poster.jpg"], "primary") == "poster.jpg"
    assert scanned_cover(["poster.txt", "posters.jpg", "fanart.jpg"], "primary") is None


def test_a_found_landscape_cover_takes_fanart_backdrop_landscape_or_thumb() -> None:
    assert scanned_cover(["thumb.jpg", "backdrop.png"], "thumb") == "backdrop.png"
    assert scanned_cover(["poster.jpg"], "thumb") is None


@pytest.mark.parametrize(("kind", "size"), [("primary", PRIMARY_SIZE), ("thumb", THUMB_SIZE)])
def test_a_collage_has_the_cover_shape(kind: str, size: tuple[int, int]) -> None:
    data = collage([jpeg("red"), jpeg("blue")], kind)  # type: ignore[arg-type]
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "JPEG" and image.size == size


def test_the_portrait_collage_puts_four_posters_in_a_grid_and_repeats_when_fewer() -> None:
    four = collage([jpeg(c) for c in ("red", "lime", "blue", "yellow")], "primary")
    one = collage([jpeg("red")], "primary")
    with Image.open(io.BytesIO(four)) as image:
        corners = [image.getpixel((x, y)) for x, y in ((150, 225), (450, 225), (150, 675), (450, 675))]
    assert [_dominant(p) for p in corners] == ["red", "green", "blue", "yellow"]
    with Image.open(io.BytesIO(one)) as image:
        assert {_dominant(image.getpixel((x, y))) for x, y in ((150, 225), (450, 675))} == {"red"}


def test_posters_that_do_not_decode_are_left_out_and_none_decoding_is_an_error() -> None:
    data = collage([b"not an image", jpeg("blue")], "thumb")
    with Image.open(io.BytesIO(data)) as image:
        assert _dominant(image.getpixel((160, 360))) == "blue"
    with pytest.raises(BrokenImage):
        collage([b"garbage", b""], "primary")


def test_a_collage_is_final_from_four_different_posters() -> None:
    assert [is_final(n) for n in (1, 3, 4, 5)] == [False, False, True, True]


def _dominant(pixel: tuple[int, int, int]) -> str:
    r, g, b = pixel[:3]
    if r > 200 and g > 200 and b < 80:
        return "yellow"
    return {0: "red", 1: "green", 2: "blue"}[max(range(3), key=lambda i: pixel[i])]
