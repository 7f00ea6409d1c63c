"""@jellyfin/sdk (npm), the published TypeScript client, in a node process against the server.

The cross-client journey of issue 27: jellyfin-apiclient-python plays an
episode and stops half-way; the SDK, signed in as the same member on
another device, browses to it, reads a poster as a browser does (the
SDK's image URL, no token), finds the episode in resume at that position,
probes the stream URL it built with ffprobe and seeks in it with ffmpeg,
plays it on to the end and sees the next episode in next up; it then
plays that one with the SDK's own WebSocket open (``api.subscribe``), and
an administrator's stop from the native API reaches it there as
``Playstate`` ``Stop``.  The SDK is installed by ``make test``
(``tests/http/jellyfin/node``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from reelhouse.http.jellyfin import ids

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .served import PASSWORD, Served, served  # noqa: F401  (fixtures)
from .test_python_client import signed_in_client, the_episodes

NODE_DIR = Path(__file__).parent / "node"
NODE_TIMEOUT_S = 120.0
SDK_PLAYER = "Reelhouse SDK test"


def node_command() -> list[str]:
    """node, with the flag node 20 needs for the global WebSocket the SDK's socket uses (22 has it)."""
    node = shutil.which("node")
    if node is None or not (NODE_DIR / "node_modules" / "@jellyfin" / "sdk").is_dir():
        pytest.skip("node or @jellyfin/sdk is missing: `make test` installs it")
    has_websocket = subprocess.run([node, "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"],
                                   timeout=NODE_TIMEOUT_S, check=False).returncode == 0  # fmt: skip
    return [node] if has_websocket else [node, "--experimental-websocket", "--no-warnings"]


def run_journey(served: Served, stopped_item: str) -> dict[str, Any]:
    """The SDK's journey; stops its play of ``stopped_item`` from the native API once it is stoppable."""
    process = subprocess.Popen([*node_command(), "journey.mjs", served.url, "Ann", PASSWORD], cwd=NODE_DIR,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        with served.native() as native:
            session = wait_until_stoppable(native, stopped_item, process)
            assert native.post(f"/admin/playback/sessions/{session}/stop").status_code == 204
        out, err = process.communicate(timeout=NODE_TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    return dict(json.loads(out))


def wait_until_stoppable(native: httpx.Client, item_id: str, process: subprocess.Popen[str]) -> str:
    """The id of the SDK's session of ``item_id`` once its socket makes it stoppable (polled while node runs)."""
    deadline = time.monotonic() + NODE_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        for session in native.get("/admin/playback/sessions").json():
            if session["itemId"] == item_id and session["player"] == SDK_PLAYER and session["stoppable"]:
                return str(session["id"])
        time.sleep(0.05)
    _, err = process.communicate(timeout=NODE_TIMEOUT_S) if process.poll() is not None else ("", "still running")
    raise AssertionError(f"the SDK's session never became stoppable: {err}")


def test_the_sdk_resumes_what_another_client_stopped_half_way_and_next_up_moves_on(served: Served) -> None:
    python = signed_in_client(served, device_id="py-device-cross")
    first, second = the_episodes(python)[:2]
    report = {"ItemId": first["Id"], "PlaySessionId": "cross-1", "PositionTicks": 0}
    python.jellyfin.session_playing(report)
    python.jellyfin.session_stop({**report, "PositionTicks": 5_000_000})

    seen = run_journey(served, ids.item_id(second["Id"]))

    assert seen["version"].startswith("10.") and seen["tokenKept"] and seen["me"] == "Ann"
    assert seen["views"] == ["Films", "Shows"] and seen["series"] == "Severance"
    assert seen["episodes"] == [[1, 1], [1, 2], [1, 3]]
    assert (seen["imageStatus"], seen["imageType"], seen["imageUrlHasToken"]) == (200, "image/jpeg", False)
    assert seen["resume"] == [[first["Id"], 5_000_000]]
    assert seen["directPlay"] is True and seen["streamDuration"] > 0.5 and seen["seeked"] is True
    assert seen["rangeStatus"] == 206 and seen["rangeBytes"] == 100
    assert seen["playedAfter"] is True
    assert seen["nextUp"] == [second["Id"]]
    assert seen["remoteStop"] == {"Command": "Stop"}
    assert seen["nextUpAfterStop"] == [second["Id"]]  # stopped at its start: still the one to watch
    assert seen["favoriteSeries"] is True
    assert python.jellyfin.get_item(first["Id"])["UserData"]["Played"] is True  # the other client sees it too
    with served.native() as native:
        live = native.get("/admin/playback/sessions").json()
    assert [s for s in live if s["player"] == SDK_PLAYER] == []  # the stopped play ended with its report
