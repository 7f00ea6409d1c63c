"""The app's image service: file threads, stored-image lookup, rendition cache, and rendering.

Decoding and encoding run in worker threads, at most
:data:`RENDER_CONCURRENCY` at once.  Stats and file reads run on
:data:`FILE_CONCURRENCY` dedicated file threads
(:class:`reelhouse.loop.thread_pool.ThreadPool`: a hop costs a third of
``trio.to_thread``'s).  Renditions are cached on disk
(:mod:`reelhouse.storage.image_cache`) under ``<data_dir>/cache/images``
within ``settings.image_cache_max_bytes``, the most used of them in memory
too: a repeated request for a rendition needs no thread at all.  The
limiter, the file threads and the cache live on the app from the start of
serving to its end (:func:`start_image_service`, :func:`stop_image_service`).
A request cancelled while rendering abandons the thread, which finishes in
the background holding its slot.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

import trio
from quart import current_app

from reelhouse.errors import NotFound, Unavailable
from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.media.local_images import SNIFF_BYTES, sniff_image_type
from reelhouse.media.renditions import MAX_SOURCE_BYTES, BrokenImage, ImageTooLarge, render
from reelhouse.storage.confined_files import OutsideRoots, read_confined
from reelhouse.storage.image_cache import IMAGE_CACHE_DIR, ImageCache, RenditionKey

from .context import app_context
from .file_body import RETRY_AFTER_SECONDS
from .image_sources import ImageSources, SourceImage

log = logging.getLogger(__name__)

RENDER_CONCURRENCY = 2
"""Renders at once (CPU-bound, Pillow releases the GIL while resampling)."""
FILE_CONCURRENCY = 8
"""File threads: stats, reads and cache files at once."""
FILES_CLOSE_TIMEOUT_SECONDS = 5.0
RENDER_TIMEOUT_SECONDS = 30.0
"""Reading plus rendering one image; beyond it the request gets 503."""
_EXTENSION_KEY = "reelhouse.images"


@dataclass(frozen=True, slots=True)
class ImageService:
    sources: ImageSources
    cache: ImageCache
    render_limiter: trio.CapacityLimiter
    files: ThreadPool[None]


class CannotRender(Exception):
    """The stored file cannot be made into a rendition (answered 500)."""


class NotAnImage(NotFound):
    """The stored file is no image the server knows (answered 404, never its bytes)."""

    def __init__(self) -> None:
        super().__init__("The image file is not an image.")


def image_content_type(head: bytes) -> str:
    """The content type a stored image's first bytes name; NotAnImage when none."""
    content_type = sniff_image_type(head)
    if content_type is None:
        raise NotAnImage()
    return content_type


async def start_image_service() -> None:
    """Before serving: the service on the app."""
    settings = app_context().settings
    files: ThreadPool[None] = ThreadPool([None] * FILE_CONCURRENCY, name="image-files")
    cache = ImageCache(settings.data_dir / IMAGE_CACHE_DIR, settings.image_cache_max_bytes, files)
    sources = ImageSources(app_context().store, files, data_dir=settings.data_dir)
    limiter = trio.CapacityLimiter(RENDER_CONCURRENCY)
    current_app.extensions[_EXTENSION_KEY] = ImageService(sources, cache, limiter, files)


async def stop_image_service() -> None:
    """After serving: the file threads closed (a thread a hung mount holds is left behind)."""
    service = current_app.extensions.pop(_EXTENSION_KEY, None)
    if service is not None and not await service.files.aclose(FILES_CLOSE_TIMEOUT_SECONDS):
        log.warning(
            "image file threads still busy after %.0f s (a hung mount?); left behind", FILES_CLOSE_TIMEOUT_SECONDS
        )


def image_service() -> ImageService:
    """The app's service (in a request, between the two above)."""
    return current_app.extensions[_EXTENSION_KEY]


async def rendition_bytes(source: SourceImage, key: RenditionKey) -> bytes:
    """The rendition ``key`` of ``source``: from the cache, else rendered and cached.

    NotFound when the file is gone or outside its library, CannotRender
    when it does not decode or is too large, Unavailable (503) past
    :data:`RENDER_TIMEOUT_SECONDS`.
    """
    service = image_service()
    cached = await service.cache.get(key)
    if cached is not None:
        return cached
    try:
        with trio.fail_after(RENDER_TIMEOUT_SECONDS):
            raw = await service.files.call(_read_source, source, abandon_on_cancel=True)
            make = functools.partial(
                render, raw, max_width=key.max_width, max_height=key.max_height,
                fill_width=key.fill_width, fill_height=key.fill_height, fmt=key.fmt,  # type: ignore[arg-type]
            )
            rendition = await trio.to_thread.run_sync(make, limiter=service.render_limiter, abandon_on_cancel=True)
    except trio.TooSlowError:
        raise Unavailable(
            "Rendering the image took too long.", params={"retryAfterSeconds": RETRY_AFTER_SECONDS}
        ) from None
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound("The image file is missing from disk.") from None
    except OutsideRoots:
        raise NotFound("The image file is not inside the library's folders.") from None
    except (BrokenImage, ImageTooLarge) as exc:
        raise CannotRender(str(exc)) from exc
    await service.cache.put(key, rendition.data)
    return rendition.data


def _read_source(source: SourceImage) -> bytes:
    data = read_confined(source.path, source.within, MAX_SOURCE_BYTES)
    image_content_type(data[:SNIFF_BYTES])  # a non-image is not handed to the decoders either
    if len(data) > MAX_SOURCE_BYTES:
        raise ImageTooLarge(f"the file is over {MAX_SOURCE_BYTES} bytes")
    return data
