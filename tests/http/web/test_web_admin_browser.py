"""The administrator pages in a real browser (Debian's Chromium, Playwright), on SQLite.

An administrator is told a refused library in the error body's sentence,
adds a library and watches its scan to completion through
the scan event stream, stops a member's playback (the member's page holds
its remote-control socket, signed in by the cookie), creates and revokes an
API key, renames the library, clears the image cache, gives the member a
parental rule, installs a plugin from a folder and asks for a restore at
the next start (then withdraws it). Screenshots at phone and desktop width
go to tests/http/web/screenshots/.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio

from ...actors.plugins.factory import make_plugin
from ...media_factory import MediaFactory, VideoSpec
from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ..conftest import RunningServer
from ..members import add_member
from .admin_in_browser import PASSWORD, AdminSeen
from .browser import SCREENSHOTS, driver_budget_s

ROOT = Path(__file__).parents[3]
FILMS = ("Arrival (2016)", "Blade Runner (1982)", "Heat (1995)", "Sicario (2015)")


@pytest.mark.long
async def test_an_administrator_adds_a_library_watches_its_scan_stops_a_playback_and_revokes_a_key(
    server: RunningServer, media: MediaFactory, tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(300):
        root = tmp_path / "films"
        for film in FILMS:
            media.video(root / film / f"{film}.mp4", VideoSpec(container="mp4", seconds=30))
        await add_member(server, "Root", password=PASSWORD, admin=True)
        await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
        backend = "postgresql" if database_url.startswith("postgres") else "sqlite"
        # A process of its own, as in test_web_browser.py (Playwright's asyncio loop meets no trio here).
        plugin = make_plugin(tmp_path / "plugins", "demo")
        driver = [sys.executable, "-m", "tests.http.web.admin_in_browser", server.base_url, str(root), "Arrival",
                  str(plugin), backend, driver_budget_s()]  # fmt: skip
        done = await trio.run_process(driver, capture_stdout=True, capture_stderr=True, check=False, cwd=ROOT)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-12000:]
        seen = AdminSeen(**json.loads(done.stdout.decode().strip().splitlines()[-1]))
        async with server.client() as key:
            devices = (await key.get("/devices")).json()
    print(f"screenshots in {SCREENSHOTS}")
    assert seen.scan_states[-1] == "completed" and len(seen.scan_states) >= 2, seen.scan_states
    assert f"{len(FILMS)} added" in seen.scan_summary, seen.scan_summary
    assert "A full scan is suggested" in seen.option_hints
    assert seen.error_said == "films is not an absolute path." and seen.error_hidden_after_success
    assert seen.session_rows_before_stop == 1
    assert seen.member_paused_after_stop and seen.stopped_note_shown
    assert "Nobody is playing." in seen.sessions_after_stop
    assert seen.key_shown.startswith("rhk_")
    assert (seen.key_status_before_revoke, seen.key_status_after_revoke) == (200, 401)
    assert "revoked" in seen.key_row_after_revoke and seen.key_shown not in seen.key_row_after_revoke
    assert seen.member_admin_page_status == 403
    assert "Arrival" in seen.history_row  # the stopped playback, as the history keeps it
    assert seen.renamed_heading == "Movies"
    assert seen.cache_notice == "images: cleared."
    assert "up to age 12" in seen.parental_summary and "no horror" in seen.parental_summary
    assert "days 1,2,3,4,5 16:00-20:00" in seen.parental_summary  # the window as the server normalised it
    assert seen.plugin_heading == "Test demo 1.0.0"
    assert "is restored when the server next starts" in seen.restore_said
    assert seen.restore_offered_again_after_withdrawal
    # A web sign-in counts toward the device limit once it played (reference, Device.notCountedReason).
    web = {(d["userName"], d.get("notCountedReason")) for d in devices if d["kind"] == "web"}
    assert web == {("Root", "notPlayed"), ("Ann", None)}, devices
