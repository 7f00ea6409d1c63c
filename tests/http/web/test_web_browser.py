"""The web console in a real browser (Debian's Chromium, Playwright), on SQLite.

A member signs in, sorts and filters a library's grid, browses to an
episode (series, season, episode), plays it in the page (the <video>
element reports playing and its currentTime advances), leaves and resumes
where they stopped, marks it played (the next episode is then next up); a
form posted from another origin is refused; with the keyboard alone the
member opens a poster and presses Favourite; on a phone-sized window the
member plays a film, leaves, and plays it again from where it was left.
Screenshots at phone and desktop width go to tests/http/web/screenshots/.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio

from ...media_factory import MediaFactory, VideoSpec
from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ..conftest import RunningServer
from ..members import add_member
from ..scanning import create_library, wait_for_state
from .browser import SCREENSHOTS, driver_budget_s
from .watch_in_browser import FILM_SECONDS, PASSWORD, PHONE_PLAY_TO, SEEK_TO, Seen

ROOT = Path(__file__).parents[3]


async def _catalogue(server: RunningServer, media: MediaFactory, root: Path) -> tuple[str, str]:
    """Films (Arrival, with a poster), Series (Dark: two episodes) and Private (Heat), which Ann may not see."""
    film = root / "films" / "Arrival (2016)"
    media.video(film / "Arrival (2016).mp4", VideoSpec(container="mp4", seconds=FILM_SECONDS))
    media.image(film / "poster.jpg")
    season = root / "series" / "Dark" / "Season 1"
    media.video(season / "Dark - S01E01 - Secrets.mp4", VideoSpec(container="mp4", seconds=FILM_SECONDS))
    media.video(season / "Dark - S01E02 - Lies.mp4", VideoSpec(container="mp4"))
    media.video(root / "private" / "Heat (1995)" / "Heat (1995).mp4", VideoSpec(container="mp4"))
    async with server.client() as admin:
        films = await create_library(admin, "Films", [root / "films"])
        series = await create_library(admin, "Series", [root / "series"], collectionType="tvshows")
        private = await create_library(admin, "Private", [root / "private"])
        for library in (films, series, private):
            assert (await wait_for_state(admin, library["id"]))["state"] == "completed"
        items = (await admin.get("/items", params={"libraryId": films["id"]})).json()["items"]
    await add_member(server, "Ann", password=PASSWORD, libraries=(films["id"], series["id"]))
    return films["id"], items[0]["id"]


@pytest.mark.long
async def test_a_member_signs_in_plays_in_the_page_resumes_and_marks_played(
    server: RunningServer, media: MediaFactory, tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(300):
        _library_id, film_id = await _catalogue(server, media, tmp_path)
        backend = "postgresql" if database_url.startswith("postgres") else "sqlite"
        # A process of its own: Playwright's sync API runs an asyncio loop, which must not meet this
        # process's (trio-asyncio's loop policy, installed for asyncpg, would be taken for it).
        driver = [sys.executable, "-m", "tests.http.web.watch_in_browser", server.base_url, film_id, backend,
                  driver_budget_s()]  # fmt: skip
        done = await trio.run_process(driver, capture_stdout=True, capture_stderr=True, check=False, cwd=ROOT)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-12000:]
        seen = Seen(**json.loads(done.stdout.decode().strip().splitlines()[-1]))
    print(f"screenshots in {SCREENSHOTS}")
    assert not seen.hidden_library_shown
    assert seen.typed_search_found == ["Arrival"]
    assert (seen.grid_count, seen.favourites_grid, seen.grid_names) == ("1 item", "Nothing here.", ["Arrival"])
    assert seen.episode_path == ["Dark", "Season 1", "Secrets"]  # series, season, episode
    assert seen.first_time > 1.0  # it played: currentTime advanced
    assert SEEK_TO <= seen.resumed_at < FILM_SECONDS  # resumed where the member left
    assert seen.played_pressed == "true"
    assert seen.label_after_played == "Play"  # marking played mid-playback left no resume point
    assert seen.next_up_after_played == ["Dark · Lies"]
    assert "forbidden_origin" in seen.foreign_answer
    assert seen.favorite_after_foreign == "false"
    assert (seen.opened_by_keyboard, seen.favourite_pressed_by_keyboard) == ("Lies", ["true", "false"])  # next up's card
    # On the phone: resumed where it was left (the stored position may be rounded down to the second).
    assert seen.phone_left_at > PHONE_PLAY_TO and seen.phone_left_at - 1.0 <= seen.phone_resumed_at < FILM_SECONDS
