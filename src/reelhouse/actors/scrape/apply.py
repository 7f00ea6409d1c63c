"""Apply a provider's answer to the catalogue: fields, people, images, writeBack.

The scrape queue (and identify / refresh) calls :func:`apply_match` with the
provider's parsed answer for one catalogue item (a movie or episode-less
item: a :class:`ProviderItem`; a series: a :class:`SeriesMatch` carrying its
seasons and their episodes).  The rules live here; the queue decides *what*
to apply and *when*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx
import trio

from reelhouse.media.library_options import LibraryOptions
from reelhouse.media.provider_metadata import ProviderItem
from reelhouse.storage._store import Store

ApplyMode = Literal["missing", "replaceAll"]
WriteBackOutcome = Literal["written", "skipped", "failed", "off"]
MAX_IMAGE_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class SeriesMatch:
    series: ProviderItem
    seasons: Mapping[int, tuple[ProviderItem, Sequence[ProviderItem]]]  # season number -> (season, episodes)


@dataclass(frozen=True)
class ApplyRequest:
    item_id: str
    provider_id: str
    match: ProviderItem | SeriesMatch
    mode: ApplyMode
    replace_images: bool
    scrape_state: Literal["scraped", "identified"]


@dataclass(frozen=True)
class ApplyDeps:
    """What :func:`apply_match` needs; build one per server (or per call).

    ``options`` overrides the item's library options (None: read from the
    store).  ``provider_hosts`` are hosts image URLs may name even when they
    resolve to loopback / private addresses (the provider's configured
    ``baseUrl`` host).  ``limiter`` bounds concurrent image downloads.
    """

    store: Store
    data_dir: Path
    http: httpx.AsyncClient
    limiter: trio.CapacityLimiter
    options: LibraryOptions | None = None
    provider_hosts: frozenset[str] = frozenset()
    max_image_bytes: int = MAX_IMAGE_BYTES


@dataclass(frozen=True)
class ApplyResult:
    """What one :func:`apply_match` did (across the series' seasons and episodes too)."""

    item_id: str
    applied: bool  # False: lockData (or the item is gone): nothing was touched
    items_changed: tuple[str, ...] = ()
    fields_changed: tuple[str, ...] = ()  # of the requested item
    images_added: int = 0
    images_failed: int = 0
    write_back: WriteBackOutcome = "off"
    write_back_files: tuple[str, ...] = ()
    write_back_error: str | None = None
    notes: tuple[str, ...] = field(default=())


async def apply_match(deps: ApplyDeps, request: ApplyRequest) -> ApplyResult:
    """Write ``request.match`` into the catalogue for ``request.item_id``."""
    raise NotImplementedError
