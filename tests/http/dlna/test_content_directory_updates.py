"""ContentDirectory:1 after a scan: a new film appears, the SystemUpdateID moves, and a page is
read at its index, not where the previous walk left off (raw SOAP, both backends; a server each)."""

from __future__ import annotations

from pathlib import Path

import trio

from ...media_factory import MediaFactory
from ..scanning import wait_for_state
from .served import CONTENT_DIRECTORY, Served, soap
from .test_content_directory import browse, out, titles

UPDATE_ID_TIMEOUT_S = 30.0


async def test_a_new_film_after_a_scan_appears_and_moves_the_system_update_id(
    served: Served, tmp_path: Path, media: MediaFactory
) -> None:
    cd = "contentdirectory"
    before = out(await soap(served.url, cd, CONTENT_DIRECTORY, "GetSystemUpdateID"), "Id")
    assert out(await soap(served.url, cd, CONTENT_DIRECTORY, "GetSystemUpdateID"), "Id") == before  # stable
    films_id = served.libraries["Films"]
    after = await _scan_new_film(served, tmp_path / "media" / "Films" / "Dune (2021)" / "Dune (2021).mkv", media)
    assert after != before and 0 < int(after) <= 0xFFFFFFFF
    films, total = await browse(served, f"lib.{films_id}.title")
    assert total == 4 and "Dune" in titles(films)
    recent, _ = await browse(served, f"lib.{films_id}.recent", count=1)
    assert titles(recent) == ["Dune"]


async def test_a_page_after_a_scan_is_read_at_its_index_not_where_the_last_walk_left_off(
    served: Served, tmp_path: Path, media: MediaFactory
) -> None:
    """Where a page ended is remembered for the next page of the same SystemUpdateID only."""
    films = f"lib.{served.libraries['Films']}.title"
    first, _ = await browse(served, films, count=1)
    second, total = await browse(served, films, start=1, count=1)  # read after the first page's end
    assert (titles(first), titles(second), total) == (["Arrival"], ["Blade Runner"], 3)
    await _scan_new_film(served, tmp_path / "media" / "Films" / "Alien (1979)" / "Alien (1979).mkv", media)
    again, total = await browse(served, films, start=1, count=1)  # Alien comes first now
    assert (titles(again), total) == (["Arrival"], 4)


async def _scan_new_film(served: Served, path: Path, media: MediaFactory) -> str:
    """A film added at ``path`` and scanned in; the SystemUpdateID once it has moved."""
    cd = "contentdirectory"
    before = out(await soap(served.url, cd, CONTENT_DIRECTORY, "GetSystemUpdateID"), "Id")
    media.video(path)
    films_id = served.libraries["Films"]
    async with served.server.client() as client:
        first = await wait_for_state(client, films_id)
        assert (await client.post(f"/libraries/{films_id}/scan", json={"mode": "full"})).status_code == 200
        while (await wait_for_state(client, films_id))["startedAt"] == first["startedAt"]:
            await trio.sleep(0.05)
    after = before
    with trio.fail_after(UPDATE_ID_TIMEOUT_S):  # remembered for a second (http/dlna/remembered.py)
        while after == before:
            await trio.sleep(0.1)
            after = out(await soap(served.url, cd, CONTENT_DIRECTORY, "GetSystemUpdateID"), "Id")
    return after
