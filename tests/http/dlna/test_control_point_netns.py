"""The issue's "done when", end to end in a private network namespace made by the test (root only):
a published control point (async-upnp-client's ``upnp-client``) finds Reelhouse by M-SEARCH, browses
Movies and a series to an episode, ffprobe plays the episode from a seek point, and after a scan the
control point sees a new film, and a subscriber (``upnp-client subscribe``, its callback served inside
the namespace) gets an event with the moved SystemUpdateID and the film library in ContainerUpdateIDs.
Everything runs inside the namespace, so nothing leaves the machine."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import didl_lite.didl_lite as didl_lite
import pytest

from ...actors.test_dlna_ssdp import UPNP_CLIENT, in_netns, messages, netns  # noqa: F401 (netns: the fixture)
from ...media_factory import MediaFactory, VideoSpec
from ...server_process import SERVING_LINE, clean_environ, reelhouse_argv

PORT = 8096
BASE = f"http://127.0.0.1:{PORT}"
MEDIA_SERVER = "urn:schemas-upnp-org:device:MediaServer:1"
STEP_TIMEOUT_S = 60.0
SCAN_TIMEOUT_S = 120.0
EPISODE_SECONDS = 8  # MPEG-2, a key frame every 12 frames: a seek lands near where it asked
SEEK_TO_S = 5


def run(netns: str, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(in_netns(netns, *argv), capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)
    assert done.returncode == 0 or not check, f"{argv}: {done.stdout}{done.stderr}"
    return done


def api(netns: str, key: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """One request to Reelhouse's API from inside the namespace (curl)."""
    argv = ["curl", "-sf", "-X", method, "-H", f"Authorization: Bearer {key}", "-H", "Content-Type: application/json"]
    answer = run(netns, *argv, *(["--data", json.dumps(body)] if body is not None else []), f"{BASE}/api/v1{path}")
    return json.loads(answer.stdout) if answer.stdout else None


def cli(data: Path, *args: str) -> str:
    done = subprocess.run(reelhouse_argv(*args, "--data-dir", str(data)), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=STEP_TIMEOUT_S, env=clean_environ(), check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def children(netns: str, location: str, object_id: str) -> list[Any]:
    """BrowseDirectChildren by ``upnp-client --strict``, its DIDL-Lite read strictly by python-didl-lite."""
    answer = run(netns, UPNP_CLIENT, "--strict", "call-action", location, "CD/Browse", f"ObjectID={object_id}",
                 "BrowseFlag=BrowseDirectChildren", "Filter=*", "StartingIndex=0", "RequestedCount=0",
                 "SortCriteria=+dc:title")  # fmt: skip
    out = json.loads(answer.stdout)["out_parameters"]
    return list(didl_lite.from_xml_string(out["Result"], strict=True))


def named(objects: list[Any], title: str) -> Any:
    found = [o for o in objects if o.title == title]
    assert found, f"{title} not in {[o.title for o in objects]}"
    return found[0]


def wait_until(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def children_once(netns: str, location: str, object_id: str, done: Callable[[list[Any]], bool], what: str) -> list[Any]:
    """``children`` as soon as ``done`` holds for them (the scan adds them meanwhile): the list that
    satisfied it, not a second browse (each is a cold upnp-client)."""
    listed: list[Any] = []

    def found() -> bool:
        listed[:] = children(netns, location, object_id)
        return done(listed)

    wait_until(found, SCAN_TIMEOUT_S, what)
    return listed


def make_media(root: Path, media: MediaFactory) -> tuple[Path, Path]:
    films, shows = root / "Films", root / "Shows"
    media.video(films / "Arrival (2016)" / "Arrival (2016).mkv")
    media.video(films / "Contact (1997)" / "Contact (1997).mkv")
    for number in (1, 2):
        episode = shows / "Severance" / "Season 1" / f"Severance S01E0{number}.mkv"
        media.video(episode, VideoSpec(codec="mpeg2video", seconds=EPISODE_SECONDS))
    return films, shows


@pytest.mark.long
def test_a_control_point_finds_browses_plays_with_a_seek_and_sees_a_new_film_after_a_scan(
    netns: str, tmp_path: Path, media: MediaFactory
) -> None:
    films, shows = make_media(tmp_path / "media", media)
    data = tmp_path / "data"
    cli(data, "user", "add", "tv")
    cli(data, "user", "set", "tv", "--all-libraries")
    key = cli(data, "apikey", "create", "test").strip().splitlines()[-1]
    env = clean_environ(REELHOUSE_DLNA__ENABLED="true", REELHOUSE_DLNA__MEMBER="tv",
                        REELHOUSE_DLNA__INTERFACES='["lo"]')  # fmt: skip
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        argv = reelhouse_argv("serve", "--bind", f"127.0.0.1:{PORT}", "--data-dir", str(data))
        server = subprocess.Popen(in_netns(netns, *argv), stdout=subprocess.DEVNULL, stderr=log, env=env)
    try:
        wait_until(lambda: SERVING_LINE.search(log_path.read_text(errors="replace")) or server.poll() is not None,
                   STEP_TIMEOUT_S, "the server to serve")  # fmt: skip
        assert server.poll() is None, log_path.read_text(errors="replace")
        # The search listens for its whole --timeout whatever it hears: the libraries are made
        # (and start scanning) meanwhile, and nothing is browsed before it found the server.
        search = subprocess.Popen(in_netns(netns, UPNP_CLIENT, "--timeout", "6", "search", "--bind", "127.0.0.1",
                                           "--search_target", MEDIA_SERVER),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            films_id = api(netns, key, "POST", "/libraries", {"name": "Films", "paths": [str(films)],
                                                              "collectionType": "movies",
                                                              "realtimeMonitor": False})["id"]
            shows_id = api(netns, key, "POST", "/libraries", {"name": "Shows", "paths": [str(shows)],
                                                              "collectionType": "tvshows",
                                                              "realtimeMonitor": False})["id"]
            found, errors = search.communicate(timeout=STEP_TIMEOUT_S)
        finally:
            if search.poll() is None:
                search.kill()
                search.wait()
        assert search.returncode == 0, found + errors
        location = next(a["location"] for a in map(_lower, messages(found)) if a.get("st") == MEDIA_SERVER)
        assert location == f"{BASE}/dlna/description.xml"

        root = children(netns, location, "0")
        by_title = named(children(netns, location, named(root, "Films").id), "By title").id
        films_now = children_once(netns, location, by_title, lambda found: len(found) == 2, "the films")
        assert [f.title for f in films_now] == ["Arrival", "Contact"]
        series_view = named(children(netns, location, named(root, "Shows").id), "Series").id
        series = children_once(netns, location, series_view, lambda found: len(found) == 1, "the series")
        season = children(netns, location, named(series, "Severance").id)[0]
        episode = children_once(netns, location, season.id, lambda found: len(found) == 2, "the episodes")[0]
        assert isinstance(episode, didl_lite.VideoItem) and "DLNA.ORG_OP=01" in episode.res[0].protocol_info

        frames = run(netns, "ffprobe", "-v", "error", "-read_intervals", f"{SEEK_TO_S}%+#1", "-select_streams", "v",
                     "-show_entries", "frame=pts_time", "-of", "csv=p=0", episode.res[0].uri)  # fmt: skip
        assert SEEK_TO_S - 1 <= float(frames.stdout.split()[0].strip(",")) < EPISODE_SECONDS

        # Once both scans are over (probes too) the catalogue holds still: the next event is the new film's.
        wait_until(lambda: all(st["state"] == "completed" for st in api(netns, key, "GET", "/scans/status")),
                   SCAN_TIMEOUT_S, "the scans to complete")  # fmt: skip
        events_path = tmp_path / "events.jsonl"
        with open(events_path, "wb") as events:
            subscriber = subprocess.Popen(in_netns(netns, UPNP_CLIENT, "subscribe", location, "CD"), stdout=events,
                                          stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            wait_until(lambda: update_ids(events_path), STEP_TIMEOUT_S, "the initial event")
            first = update_ids(events_path)[0][0]
            media.video(films / "Dune (2021)" / "Dune (2021).mkv")
            api(netns, key, "POST", f"/libraries/{films_id}/scan", {"mode": "full"})
            children_once(netns, location, by_title, lambda found: "Dune" in [f.title for f in found], "the new film")
            wait_until(lambda: any(i != first for i, _ in update_ids(events_path)), SCAN_TIMEOUT_S, "an event")
            moved = next(containers for i, containers in update_ids(events_path) if i != first)
            assert f"lib.{films_id}," in moved and f"lib.{shows_id}," not in moved
        finally:
            subscriber.send_signal(signal.SIGTERM)
            subscriber.wait(timeout=STEP_TIMEOUT_S)
    finally:
        server.terminate()
        server.wait(timeout=STEP_TIMEOUT_S)


def update_ids(path: Path) -> list[tuple[str, str]]:
    """(SystemUpdateID, ContainerUpdateIDs) of each event ``upnp-client subscribe`` printed that carried one."""
    found = [e.get("state_variables", {}) for e in messages(path.read_text(errors="replace"))]
    return [(v["SystemUpdateID"], v.get("ContainerUpdateIDs") or "") for v in found if "SystemUpdateID" in v]


def _lower(answer: dict[str, Any]) -> dict[str, Any]:
    return {k.lower(): v for k, v in answer.items()}
