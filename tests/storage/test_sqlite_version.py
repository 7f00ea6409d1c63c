"""The SQLite data version read from the WAL-index header (storage/_sqlite_version.py)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reelhouse.storage._sqlite_version import DataVersion, _map_header

SUBPROCESS_TIMEOUT_S = 30


@pytest.fixture
def database(tmp_path: Path) -> Iterator[tuple[str, sqlite3.Connection]]:
    path = str(tmp_path / "version.db")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE notes (body TEXT)")
    yield path, writer
    writer.close()


@pytest.fixture
def version(database: tuple[str, sqlite3.Connection]) -> Iterator[DataVersion]:
    path, _ = database
    reader = sqlite3.connect(path, isolation_level=None)
    opened = DataVersion.open(reader, path)
    yield opened
    opened.close()
    reader.close()


def test_the_version_is_read_from_the_wal_index_header(version: DataVersion) -> None:
    assert version.reads_header


def test_a_commit_moves_the_version_and_a_read_does_not(database, version: DataVersion) -> None:
    _, writer = database
    before = version.read()
    assert version.read() == before
    writer.execute("SELECT count(*) FROM notes").fetchone()
    version.conn.execute("SELECT count(*) FROM notes").fetchone()
    assert version.read() == before
    writer.execute("INSERT INTO notes VALUES ('a')")
    assert version.read() != before


def test_an_open_transaction_moves_nothing_until_it_commits(database, version: DataVersion) -> None:
    _, writer = database
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO notes VALUES ('a')")
    before = version.read()
    assert version.read() == before
    writer.execute("COMMIT")
    assert version.read() != before


def test_a_commit_of_another_process_moves_the_version(database, version: DataVersion) -> None:
    path, _ = database
    before = version.read()
    code = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"INSERT INTO notes VALUES ('b')\"); c.commit()"
    subprocess.run([sys.executable, "-c", code, path], check=True, timeout=SUBPROCESS_TIMEOUT_S)
    assert version.read() != before


def test_commits_after_a_truncating_checkpoint_still_move_it(database, version: DataVersion) -> None:
    _, writer = database
    writer.execute("INSERT INTO notes VALUES ('a')")
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = version.read()
    writer.execute("INSERT INTO notes VALUES ('b')")
    assert version.read() != before


def test_without_a_wal_index_the_version_comes_from_the_pragma(tmp_path: Path) -> None:
    path = str(tmp_path / "journal.db")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("CREATE TABLE notes (body TEXT)")  # rollback journal: no -shm file
    reader = sqlite3.connect(path, isolation_level=None)
    version = DataVersion.open(reader, path)
    try:
        assert not version.reads_header
        before = version.read()
        writer.execute("INSERT INTO notes VALUES ('a')")
        assert version.read() != before
    finally:
        version.close()
        reader.close()
        writer.close()


def test_an_unknown_or_short_wal_index_is_not_read(tmp_path: Path) -> None:
    unknown, short = tmp_path / "unknown-shm", tmp_path / "short-shm"
    unknown.write_bytes(b"\x07" * 4096)  # not a header layout this code knows
    short.write_bytes(b"\x00" * 10)
    assert _map_header(str(unknown)) is None
    assert _map_header(str(short)) is None
    assert _map_header(str(tmp_path / "missing-shm")) is None


def test_reading_the_version_keeps_the_gil(database, version: DataVersion) -> None:
    """Regression: PRAGMA data_version let go of the GIL on the event loop, which then waited for
    a busy reader thread to give it back (a fifth of the cached-image throughput)."""
    _, writer = database
    writer.execute("INSERT INTO notes VALUES ('a')")
    spins = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            spins[0] += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.5)  # the spinner runs only when this thread lets go of the GIL
    spinner = threading.Thread(target=spin)
    try:
        spinner.start()
        while spins[0] == 0:
            time.sleep(0.001)
        before = spins[0]
        for _ in range(2000):  # a statement lets go 2000 times: the spinner takes the GIL at one of them
            version.read()
        assert spins[0] == before
    finally:
        stop.set()
        spinner.join()
        sys.setswitchinterval(interval)


def test_a_closed_version_no_longer_reads_the_map(database, version: DataVersion) -> None:
    version.close()
    assert not version.reads_header
    version.close()  # twice is harmless
