"""`make run` as the README shows it: BIND and DATA_DIR, or REELHOUSE_BIND and REELHOUSE_DATA_DIR, never overridden.

``make -n`` prints the command it would run without running it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import trio

ROOT = Path(__file__).resolve().parents[1]
MAKE_S = 60.0

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


async def _serve_line(*args: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("REELHOUSE_") and k not in ("BIND", "DATA_DIR")}
    with trio.fail_after(MAKE_S):
        done = await trio.run_process(["make", "-n", "-s", "-C", str(ROOT), "run", *args], capture_stdout=True,
                                      capture_stderr=True, check=False, env={**environ, **env})
    assert done.returncode == 0, done.stderr.decode()
    [line] = [line for line in done.stdout.decode().splitlines() if " serve " in line and "echo" not in line]
    return line


async def test_make_run_serves_on_the_default_address_and_data_folder() -> None:
    assert (await _serve_line()).endswith("serve --bind 127.0.0.1:8096 --data-dir ./data")


async def test_make_run_takes_bind_and_data_dir() -> None:
    line = await _serve_line("BIND=0.0.0.0:8096", "DATA_DIR=/srv/reelhouse")
    assert line.endswith("serve --bind 0.0.0.0:8096 --data-dir /srv/reelhouse")


async def test_make_run_keeps_the_reelhouse_variables_of_the_environment() -> None:
    line = await _serve_line(REELHOUSE_BIND="127.0.0.1:9999", REELHOUSE_DATA_DIR="/srv/elsewhere")
    assert line.endswith("serve --bind 127.0.0.1:9999 --data-dir /srv/elsewhere")
