"""One server per data folder, run as real processes: a second one is refused, the admin commands are not."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.process.server_lock import LOCK_FILE

from ..server_process import ServerProcess, run_cli


@pytest.fixture
async def running(nursery: trio.Nursery, tmp_path: Path, database_url: str) -> AsyncIterator[tuple[Path, ServerProcess]]:
    """A server on ``tmp_path/data``."""
    server = ServerProcess(tmp_path / "data", database_url)
    try:
        await server.start(nursery)
        yield tmp_path / "data", server
    finally:
        server.kill()


async def _second_server(data_dir: Path, database: Path) -> tuple[int, list[str]]:
    """``reelhouse serve`` on ``data_dir`` with a database of its own: exit code and stderr lines."""
    with trio.fail_after(60):
        done = await run_cli(["serve", "--bind", "127.0.0.1:0", "--data-dir", str(data_dir),
                              "--database", f"sqlite:///{database}"])
    return done.returncode, done.stderr.decode().strip().splitlines()


async def test_a_second_server_on_a_folder_in_use_exits_2_naming_the_folder_and_address_before_touching_anything(
    running: tuple[Path, ServerProcess], tmp_path: Path
) -> None:
    data_dir, first = running
    lock_before = (data_dir / LOCK_FILE).read_text()
    database = tmp_path / "second.db"
    code, lines = await _second_server(data_dir, database)
    assert code == 2
    assert len(lines) == 1, lines
    assert str(data_dir) in lines[0] and first.base_url in lines[0] and "in use" in lines[0], lines
    assert not database.exists()  # no store opened, no migration
    assert (data_dir / LOCK_FILE).read_text() == lock_before == f"the server at {first.base_url}"
    assert first.process is not None and first.process.poll() is None  # the first one serves on


async def test_admin_commands_work_beside_a_running_server_but_restore_refuses(
    running: tuple[Path, ServerProcess], tmp_path: Path, database_url: str
) -> None:
    data_dir, first = running
    created = await run_cli(["--data-dir", str(data_dir), "--database", database_url, "apikey", "create", "beside"])
    assert created.returncode == 0, created.stderr
    assert created.stdout.decode().strip()
    restored = await run_cli(["--data-dir", str(data_dir), "--database", database_url,
                              "backup", "restore", str(tmp_path / "any.zip")])
    lines = restored.stderr.decode().strip().splitlines()
    assert restored.returncode == 1
    assert len(lines) == 1 and str(data_dir) in lines[0] and first.base_url in lines[0], lines


async def test_a_killed_server_leaves_no_stale_lock(
    running: tuple[Path, ServerProcess], nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    data_dir, first = running
    first.send_signal(signal.SIGKILL)
    with trio.fail_after(30):
        await first.wait()
    after = ServerProcess(data_dir, database_url)
    try:
        base = await after.start(nursery)
        code, lines = await _second_server(data_dir, tmp_path / "third.db")
        assert code == 2
        assert len(lines) == 1 and base in lines[0] and first.base_url not in lines[0], lines
    finally:
        after.kill()
