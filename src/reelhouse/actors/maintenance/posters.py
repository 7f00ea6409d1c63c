"""poster_pregenerate: render the poster renditions clients ask for most into the image cache.

The shapes come from what the image cache was asked for in this process
(:func:`~reelhouse.storage.image_cache.asked_shapes`), else a default
poster size. Each item's primary image is rendered once per shape, in a
worker thread, and stored through an ImageCache on the HTTP edge's root,
announced so the edge's cache finds it without a disk look-up. Counts:
``progressCached`` (already there), ``progressNoUpscale`` (the source is
no larger than the shape: served as it is), ``progressNoPoster`` (a work
without a primary image), ``progressFailed``. When the cache budget would
be exceeded the run stops early (``stopReason: cacheBudget``), succeeded:
the rest is rendered on first request.

Most works need no rendering on a second run (cached, or no larger than
the shape), so the walk itself is what costs: it yields every
:data:`~reelhouse.loop.time_slice.SLICE_SECONDS` (:class:`~reelhouse.loop.time_slice.TimeSlice`)
and reports progress every :data:`PROGRESS_SECONDS`, never per work (one
``JobUpdate`` per work held the loop about 70 us a work, 0.5 s a run).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trio

from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.loop.time_slice import TimeSlice
from reelhouse.media.renditions import MAX_SOURCE_BYTES, BrokenImage, ImageTooLarge, render
from reelhouse.storage.confined_files import confinement_for, read_confined
from reelhouse.storage.image_cache import IMAGE_CACHE_DIR, ImageCache, RenditionKey, asked_shapes
from reelhouse.storage.stored_images import WorkPoster, work_posters

from ..schedule import RunEnd, TaskContext

DEFAULT_SHAPES = ((400, None, None, None, "jpeg"),)  # a poster column: 400 px wide JPEG
MAX_SHAPES = 3
WORKS = ("Movie", "Series", "Season", "BoxSet")
PROGRESS_SECONDS = 0.25
Shape = tuple[int | None, int | None, int | None, int | None, str]


@dataclass
class _Counts:
    rendered: int = 0
    cached: int = 0
    no_upscale: int = 0
    no_poster: int = 0
    failed: int = 0
    processed: int = 0
    stop_used: int | None = None

    def fields(self) -> dict[str, int]:
        return {"processed": self.processed, "changed": self.rendered, "progress_cached": self.cached,
                "progress_no_upscale": self.no_upscale, "progress_no_poster": self.no_poster,
                "progress_failed": self.failed}


async def run_poster_pregenerate(ctx: TaskContext) -> RunEnd:
    if ctx.settings is None or ctx.settings.image_cache_max_bytes <= 0:
        return RunEnd("skipped", message="The image cache is off.")
    root = ctx.settings.data_dir / IMAGE_CACHE_DIR
    shapes = _shapes(root)
    posters = await work_posters(ctx.store, WORKS)
    counts = _Counts()
    ctx.progress(unit="images", processed=0, total=len(posters) * len(shapes))
    files: ThreadPool[None] = ThreadPool([None], name="poster-pregenerate")
    try:
        cache = ImageCache(root, ctx.settings.image_cache_max_bytes, files)
        walk, told_at = TimeSlice(), trio.current_time()
        for poster in posters:
            await walk.step()
            await ctx.yield_while_playing()
            if not await _one(ctx, cache, poster, shapes, counts):
                break
            if trio.current_time() - told_at >= PROGRESS_SECONDS:
                ctx.progress(**counts.fields())
                told_at = trio.current_time()
    finally:
        await files.aclose(5.0)
    if counts.stop_used is not None:
        ctx.progress(stop_reason="cacheBudget", stop_limit_bytes=cache.max_bytes, stop_used_bytes=counts.stop_used)
    ctx.progress(**counts.fields())
    return RunEnd("succeeded" if counts.rendered else "skipped", message=f"{counts.rendered} rendered.")


def _shapes(root: Path) -> list[Shape]:
    asked = [shape for shape, _count in asked_shapes(root)][:MAX_SHAPES]
    return asked or list(DEFAULT_SHAPES)


async def _one(ctx: TaskContext, cache: ImageCache, poster: WorkPoster, shapes: list[Shape], counts: _Counts) -> bool:
    """Render one item's shapes; False when the cache budget is reached."""
    if poster.path is None or poster.tag is None:
        counts.no_poster += 1
        counts.processed += len(shapes)
        return True
    for shape in shapes:
        counts.processed += 1
        key = RenditionKey(poster.tag, *shape)
        if cache.contains(key):
            counts.cached += 1
            continue
        if _no_upscale(poster, shape):
            counts.no_upscale += 1
            continue
        try:
            data = await trio.to_thread.run_sync(_render, poster, shape, ctx.data_dir)
        except (OSError, BrokenImage, ImageTooLarge, ValueError):
            counts.failed += 1
            continue
        if cache.total_bytes + len(data) > cache.max_bytes:
            counts.stop_used = cache.total_bytes
            return False
        await cache.put(key, data, announce=True)
        counts.rendered += 1
    return True


def _no_upscale(poster: WorkPoster, shape: Shape) -> bool:
    """The source fits the shape already: it is served as it is, never scaled up."""
    max_width, max_height, fill_width, fill_height, _fmt = shape
    if fill_width or fill_height or poster.width is None or poster.height is None:
        return False
    return (max_width is None or poster.width <= max_width) and (max_height is None or poster.height <= max_height)


def _render(poster: WorkPoster, shape: Shape, data_dir: Path) -> bytes:
    assert poster.path is not None
    raw = read_confined(poster.path, confinement_for(poster.roots, data_dir), MAX_SOURCE_BYTES)
    max_width, max_height, fill_width, fill_height, fmt = shape
    return render(raw, max_width=max_width, max_height=max_height, fill_width=fill_width,
                  fill_height=fill_height, fmt=fmt).data  # type: ignore[arg-type]
