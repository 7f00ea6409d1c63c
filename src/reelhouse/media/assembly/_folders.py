"""Series and season drafts: items that are folders.

Private to ``reelhouse.media.assembly``. A series or season exists when
episodes point to it; its name comes from its folder (``Season N``,
``Specials``), its NFO is ``tvshow.nfo`` / ``season.nfo`` and its images
are named for the folder (``poster.jpg``) or, for a season, named for it in
the series folder (``season01-poster.jpg``).
"""

from __future__ import annotations

from reelhouse.media.assembly._dir import _Dir, _unique_images
from reelhouse.media.assembly._model import (
    ItemDraft,
    Listing,
    ScanRules,
    SeasonRef,
    SeriesRef,
    join_path,
)
from reelhouse.media.file_names import readable
from reelhouse.media.naming import sort_name
from reelhouse.media.nfo import nfo_candidates

SPECIALS_NAME = "Specials"


def series_path(ref: SeriesRef) -> str | None:
    """The series folder (absolute), None for a series without one."""
    return join_path(ref.root, ref.rel_folder) if ref.rel_folder is not None else None


def season_path(ref: SeasonRef) -> str:
    return join_path(ref.root, ref.rel_folder)


def series_draft(ref: SeriesRef, listing: Listing | None, rules: ScanRules) -> ItemDraft:
    """The Series item; ``listing`` is its folder's (None: not available or no folder)."""
    path = series_path(ref)
    folder = _Dir(listing, rules, videos=False) if listing is not None and path is not None else None
    return ItemDraft(
        id=ref.id,
        type="Series",
        path=path,
        dir_path=path or ref.root,
        name=readable(ref.title),
        sort_name=sort_name(readable(ref.title)),
        production_year=ref.year,
        nfo=folder.nfo(nfo_candidates("", "tvshow")) if folder else None,
        nfo_kind="tvshow",
        images=_unique_images(folder.named_images("series")) if folder else (),
    )


def season_draft(
    ref: SeasonRef, listing: Listing | None, series_listing: Listing | None, rules: ScanRules
) -> ItemDraft:
    """The Season item; images also come from the series folder's listing."""
    folder = _Dir(listing, rules, videos=False) if listing is not None else None
    images = folder.named_images("season") if folder else []
    if series_listing is not None and ref.series.rel_folder is not None:
        images += _Dir(series_listing, rules, videos=False).named_images("series", ref.number)
    name = SPECIALS_NAME if ref.number == 0 else f"Season {ref.number}"
    path = season_path(ref)
    return ItemDraft(
        id=ref.id,
        type="Season",
        path=path,
        dir_path=path,
        name=name,
        sort_name=name,
        index_number=ref.number,
        parent_id=ref.series.id,
        series_id=ref.series.id,
        nfo=folder.nfo(nfo_candidates("", "season")) if folder else None,
        nfo_kind="season",
        images=_unique_images(images),
    )
