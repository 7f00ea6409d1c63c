"""@jellyfin/sdk (npm), the published TypeScript client, in a node process against the server on both backends.

The cross-client journey of issue 27: jellyfin-apiclient-python plays an
episode and stops half-way; the SDK, signed in as the same member on
another device, browses to it, finds it in resume at that position, plays
it on to the end, and sees the next episode in next up.  The SDK is
installed by ``make test`` (``tests/http/jellyfin/node``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .served import PASSWORD, Served, backend, served  # noqa: F401  (fixtures)
from .test_python_client import signed_in_client, the_episodes

NODE_DIR = Path(__file__).parent / "node"
NODE_TIMEOUT_S = 120.0


def run_journey(served: Served) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None or not (NODE_DIR / "node_modules" / "@jellyfin" / "sdk").is_dir():
        pytest.skip("node or @jellyfin/sdk is missing: `make test` installs it")
    done = subprocess.run([node, "journey.mjs", served.url, "Ann", PASSWORD], cwd=NODE_DIR, capture_output=True,
                          text=True, timeout=NODE_TIMEOUT_S)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_the_sdk_resumes_what_another_client_stopped_half_way_and_next_up_moves_on(served: Served) -> None:
    python = signed_in_client(served, device_id="py-device-cross")
    first, second = the_episodes(python)[:2]
    report = {"ItemId": first["Id"], "PlaySessionId": "cross-1", "PositionTicks": 0}
    python.jellyfin.session_playing(report)
    python.jellyfin.session_stop({**report, "PositionTicks": 5_000_000})

    seen = run_journey(served)

    assert seen["version"].startswith("10.") and seen["tokenKept"] and seen["me"] == "Ann"
    assert seen["views"] == ["Films", "Shows"] and seen["series"] == "Severance"
    assert seen["episodes"] == [[1, 1], [1, 2], [1, 3]]
    assert seen["imageType"] == "image/jpeg"
    assert seen["resume"] == [[first["Id"], 5_000_000]]
    assert seen["directPlay"] is True and seen["rangeStatus"] == 206 and seen["rangeBytes"] == 100
    assert seen["playedAfter"] is True
    assert seen["nextUp"] == [second["Id"]]
    assert seen["favoriteSeries"] is True
    assert python.jellyfin.get_item(first["Id"])["UserData"]["Played"] is True  # the other client sees it too
