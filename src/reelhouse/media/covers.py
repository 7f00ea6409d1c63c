"""Library covers: which image a library shows, and the automatic collage.

The reference's order is: a cover an administrator uploaded (no upload
exists yet, so ``customPrimary`` and ``customThumb`` are always false), an
image found in the library, an automatic collage. An image *found in the
library* is one named for the whole library at the top of one of its roots:
``poster``/``folder``/``cover`` for the 2:3 portrait cover (``primary``),
``fanart``/``backdrop``/``landscape``/``thumb`` for the 16:9 one
(``thumb``), in that order of preference, roots in the library's order.

The automatic collage is made of the posters of the library's newest items
(up to :data:`COLLAGE_POSTERS`): a 2 x 2 grid for the portrait cover, a row
for the landscape one. With fewer posters than cells the posters repeat,
and the cover is *temporary*: it is *final* once it uses four different
posters. Pure functions; the decoding is :func:`~.renditions.render`'s,
with its size limits and decompression-bomb protection.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Literal

from PIL import Image

from .local_images import IMAGE_EXTENSIONS
from .renditions import JPEG_QUALITY, BrokenImage, ImageTooLarge, render

CoverKind = Literal["primary", "thumb"]

COLLAGE_POSTERS = 4
PRIMARY_SIZE = (600, 900)  # 2:3, two by two cells of 300 x 450
THUMB_SIZE = (1280, 720)  # 16:9, one row of four cells of 320 x 720
SCANNED_STEMS: dict[CoverKind, tuple[str, ...]] = {
    "primary": ("poster", "folder", "cover"),
    "thumb": ("fanart", "backdrop", "landscape", "thumb"),
}


def scanned_cover(file_names: Iterable[str], kind: CoverKind) -> str | None:
    """The name, among a root's top-level ``file_names``, of its ``kind`` cover, or None."""
    by_stem: dict[str, str] = {}
    for name in sorted(file_names):
        stem, dot, extension = name.rpartition(".")
        if dot and extension.lower() in IMAGE_EXTENSIONS:
            by_stem.setdefault(stem.lower(), name)
    return next((by_stem[stem] for stem in SCANNED_STEMS[kind] if stem in by_stem), None)


def collage(posters: Sequence[bytes], kind: CoverKind) -> bytes:
    """A JPEG collage of ``posters`` (at least one) for a ``kind`` cover.

    Posters that do not decode are left out; raises BrokenImage when none
    decodes.
    """
    width, height = PRIMARY_SIZE if kind == "primary" else THUMB_SIZE
    cells = _cells(kind, width, height)
    tiles = [tile for tile in (_tile(data, cells[0][2], cells[0][3]) for data in posters) if tile is not None]
    if not tiles:
        raise BrokenImage("none of the posters decodes")
    canvas = Image.new("RGB", (width, height))
    for n, (x, y, _width, _height) in enumerate(cells):
        canvas.paste(tiles[n % len(tiles)], (x, y))
    out = io.BytesIO()
    canvas.save(out, "JPEG", quality=JPEG_QUALITY)
    return out.getvalue()


def is_final(distinct_posters: int) -> bool:
    """Whether a collage of this many different posters is final (it will not change as the library grows)."""
    return distinct_posters >= COLLAGE_POSTERS


def _cells(kind: CoverKind, width: int, height: int) -> list[tuple[int, int, int, int]]:
    """(x, y, width, height) of each cell, left to right, top to bottom."""
    if kind == "primary":
        w, h = width // 2, height // 2
        return [(x * w, y * h, w, h) for y in range(2) for x in range(2)]
    w = width // COLLAGE_POSTERS
    return [(x * w, 0, w, height) for x in range(COLLAGE_POSTERS)]


def _tile(data: bytes, width: int, height: int) -> Image.Image | None:
    """The poster cropped to the cell's shape and sized to it (renditions never enlarge: a small poster is
    scaled up here)."""
    try:
        rendition = render(data, fill_width=width, fill_height=height)
    except (BrokenImage, ImageTooLarge):
        return None
    with Image.open(io.BytesIO(rendition.data)) as tile:
        rgb = tile.convert("RGB")
    return rgb if rgb.size == (width, height) else rgb.resize((width, height), Image.Resampling.LANCZOS)
