"""poster_pregenerate: render the poster renditions clients ask for into the image cache."""

from __future__ import annotations

from ..scheduler_tasks import RunEnd, TaskContext


async def run_poster_pregenerate(ctx: TaskContext) -> RunEnd:
    ctx.progress(unit="images", processed=0)
    return RunEnd("skipped", message="Nothing to pre-generate.")
