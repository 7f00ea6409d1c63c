"""A download manager's calls (Sonarr, Radarr, autoscan): Library/Media/Updated and VirtualFolders, over real HTTP.

The libraries here have no realtime monitor, so only the call can make a
new file appear.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from ...media_factory import MediaFactory
from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .served import PASSWORD, Served, served  # noqa: F401  (fixtures)
from .test_python_client import signed_in_client

APPEAR_TIMEOUT_S = 60.0


def episode_names(served: Served) -> set[str]:
    with served.native() as native:
        page = native.get("/items", params={"libraryId": served.shows_id, "recursive": "true", "type": "Episode",
                                            "limit": 200}).json()  # fmt: skip
    return {item["name"] for item in page["items"]}


def media_updated(served: Served, paths: list[str], token: str | None = None) -> httpx.Response:
    body = {"Updates": [{"Path": path, "UpdateType": "Created"} for path in paths]}
    headers = {"X-MediaBrowser-Token": token or served.server.key}
    return httpx.post(f"{served.url}/Library/Media/Updated", json=body, headers=headers)


def scan_status(served: Served) -> dict[str, object]:
    with served.native() as native:
        return next(s for s in native.get("/scans/status").json() if s["libraryId"] == served.shows_id)


def wait_for_episodes(served: Served, count: int) -> set[str]:
    deadline = time.monotonic() + APPEAR_TIMEOUT_S
    while len(names := episode_names(served)) < count:
        assert time.monotonic() < deadline, "the new episode never appeared"
        time.sleep(0.1)
    return names


def test_media_updated_makes_a_new_episode_appear_without_a_library_scan(served: Served, media: MediaFactory) -> None:
    before, status = episode_names(served), scan_status(served)
    new = media.video(served.media_root / "Shows" / "Severance" / "Season 1" / "Severance S01E04.mkv")
    assert media_updated(served, [str(new)]).status_code == 204
    assert len(wait_for_episodes(served, len(before) + 1)) == len(before) + 1
    assert scan_status(served) == status  # the library's last scan is still the last one


def test_a_path_outside_every_library_is_ignored(served: Served, media: MediaFactory, tmp_path: Path) -> None:
    before = episode_names(served)
    outside = media.video(tmp_path / "Elsewhere" / "Season 1" / "Elsewhere S01E01.mkv")
    inside = media.video(served.media_root / "Shows" / "Severance" / "Season 1" / "Severance S01E05.mkv")
    sneaky = str(served.media_root / "Shows" / ".." / ".." / outside.parent.name)
    linked = served.media_root / "Shows" / "Linked"  # inside by its text, outside where it leads
    (tmp_path / "Linked" / "Season 1").mkdir(parents=True)
    (tmp_path / "Linked" / "Season 1" / "Linked S01E01.mkv").write_bytes(b"\x1a\x45\xdf\xa3" + bytes(60))
    linked.symlink_to(tmp_path / "Linked", target_is_directory=True)
    try:
        reported = [str(outside), "relative/path", sneaky, str(linked), str(linked / "Season 1"), str(inside)]
        assert media_updated(served, reported).status_code == 204
        wait_for_episodes(served, len(before) + 1)  # the call's rescans were all asked for at once
    finally:
        linked.unlink()
    with served.native() as native:
        for name in ("Elsewhere", "Linked"):
            assert native.get("/items", params={"recursive": "true", "q": name}).json()["items"] == [], name


def test_only_an_administrator_or_an_api_key_reports_media(served: Served) -> None:
    member = signed_in_client(served, device_id="py-device-sonarr")
    assert media_updated(served, [], token=member.config.data["auth.token"]).status_code == 403
    admin = signed_in_client(served, name="Root", password="staple battery horse", device_id="py-device-admin")
    assert media_updated(served, [], token=admin.config.data["auth.token"]).status_code == 204
    assert PASSWORD


def test_virtual_folders_list_the_libraries_and_their_folders(served: Served) -> None:
    folders = httpx.get(f"{served.url}/Library/VirtualFolders", headers={"X-Emby-Token": served.server.key}).json()
    by_name = {f["Name"]: f for f in folders}
    assert by_name["Shows"]["CollectionType"] == "tvshows"
    assert by_name["Shows"]["Locations"] == [str(served.media_root / "Shows")]


def test_refresh_scans_every_library(served: Served) -> None:
    with served.native() as native:
        finished = {s["libraryId"]: s.get("finishedAt") for s in native.get("/scans/status").json()}
    answer = httpx.post(f"{served.url}/Library/Refresh", headers={"X-Emby-Token": served.server.key})
    assert answer.status_code == 204
    deadline = time.monotonic() + APPEAR_TIMEOUT_S
    while True:
        with served.native() as native:
            now = {s["libraryId"]: s for s in native.get("/scans/status").json()}
        done = [i for i in (served.movies_id, served.shows_id)
                if now[i]["state"] == "completed" and now[i].get("finishedAt") != finished[i]]  # fmt: skip
        if len(done) == 2:
            return
        assert time.monotonic() < deadline, f"a library was not scanned again: {now}"
        time.sleep(0.1)
