"""``reelhouse serve`` as a real process for synchronous tests (Hypothesis, schemathesis).

Property-based tests call the server many times from one synchronous test,
so the server cannot live in the test's own Trio run: it runs as a process
for the whole module, on a database made for it, and is stopped by SIGTERM.
"""

from __future__ import annotations

import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from ..conftest import SCHEMAS, migrated_copy, postgres_problem, schema_url
from ..server_process import SERVING_LINE, START_TIMEOUT_S, clean_environ, reelhouse_argv

STOP_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class LiveServer:
    base_url: str  # http://127.0.0.1:PORT
    key: str
    data_dir: Path

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v1"

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


@contextmanager
def module_database(backend: str, directory: Path) -> Iterator[str]:
    """A fresh database URL on ``backend`` for a whole module (see tests/conftest.py)."""
    if backend == "sqlite":
        yield f"sqlite:///{directory / 'reelhouse.db'}"
        return
    problem = postgres_problem()
    if problem is not None:
        pytest.skip(problem)
    schema = f"t_{uuid.uuid4().hex[:20]}"
    try:
        yield schema_url(schema)
    finally:
        SCHEMAS.release(schema)  # emptied for the next test, or dropped


@contextmanager
def live_server(database_url: str, data_dir: Path) -> Iterator[LiveServer]:
    """The server on a free port of 127.0.0.1 with a fresh API key; stopped by SIGTERM after."""
    data_dir.mkdir(parents=True, exist_ok=True)
    key = trio.run(_prepare, database_url)
    log_path = data_dir.parent / f"{data_dir.name}.log"
    argv = reelhouse_argv("serve", "--bind", "127.0.0.1:0", "--data-dir", str(data_dir), "--database", database_url)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, env=clean_environ())
    try:
        yield LiveServer(_wait_serving(process, log_path), key, data_dir)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _prepare(database_url: str) -> str:
    await migrated_copy(database_url)
    async with open_store(database_url) as store:
        await migrate(store)
        _record, key = await create_api_key(store, "tests")
    return key


def _wait_serving(process: subprocess.Popen[bytes], log_path: Path) -> str:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        text = log_path.read_text(errors="replace")
        if match := SERVING_LINE.search(text):
            return match.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{text}")
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise RuntimeError(f"server did not start within {START_TIMEOUT_S} s:\n{log_path.read_text(errors='replace')}")
