"""Regression: item cursors were signed with a key derived from the public serverId."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import httpx
import pytest
import trio

from reelhouse import errors
from reelhouse.server import _cursor_secret
from reelhouse.storage.cursor import CursorCodec

from ..media_factory import MediaFactory
from .conftest import RunningServer
from .scanning import create_library, wait_for_state


async def test_the_public_server_id_does_not_give_the_cursor_key(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    for title in ("Alien (1979)", "Heat (1995)"):
        media.video(tmp_path / "films" / f"{title}.mkv")
    with trio.fail_after(60):
        library = await create_library(client, "Films", [tmp_path / "films"])
        await wait_for_state(client, library["id"])
        server_id = (await client.get("/system/status")).json()["serverId"]
        page = (await client.get("/items", params={"libraryId": library["id"], "limit": 1})).json()
    guessed = CursorCodec(hashlib.sha256(f"reelhouse-item-cursor:{server_id}".encode()).digest())
    with pytest.raises(errors.Invalid):
        guessed.decode(page["nextCursor"])  # with the old key this read (and so could forge) it


def test_the_cursor_secret_is_private_and_stable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    first = _cursor_secret(tmp_path)
    assert len(first) == 32 and _cursor_secret(tmp_path) == first
    assert stat.S_IMODE((tmp_path / "cursor-secret").stat().st_mode) == 0o600
