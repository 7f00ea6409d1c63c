"""The DLNA tests' server: see :mod:`.served`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from ...media_factory import MediaFactory
from .served import Served, start_dlna_server


@pytest.fixture
async def served(nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory) -> AsyncIterator[Served]:
    running = await start_dlna_server(nursery, database_url, tmp_path, media)
    yield running
    running.server.shutdown.set()
