"""The key revision file: a counter every process using a SQLite database sees at once."""

from __future__ import annotations

import threading
from pathlib import Path

from reelhouse.storage._key_revision import REVISION_SUFFIX, KeyRevision


def test_a_new_file_starts_at_zero_beside_the_database(tmp_path: Path) -> None:
    revision = KeyRevision.beside(str(tmp_path / "reelhouse.db"))
    try:
        assert revision.current() == 0
        assert (tmp_path / f"reelhouse.db{REVISION_SUFFIX}").stat().st_size == 8
    finally:
        revision.close()


def test_a_bump_through_one_mapping_is_read_at_once_through_another(tmp_path: Path) -> None:
    path = str(tmp_path / "keys")
    server, revoker = KeyRevision(path), KeyRevision(path)
    try:
        assert revoker.bump() == 1
        assert server.current() == 1
        revoker.close()
        assert KeyRevision(path).current() == 1  # kept in the file
    finally:
        server.close()


def test_bumps_from_many_openers_at_once_are_never_lost(tmp_path: Path) -> None:
    path = str(tmp_path / "keys")
    openers = [KeyRevision(path) for _ in range(4)]
    bumps_each = 250

    def bump_all(revision: KeyRevision) -> None:
        for _ in range(bumps_each):
            revision.bump()

    threads = [threading.Thread(target=bump_all, args=(revision,)) for revision in openers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert openers[0].current() == len(openers) * bumps_each
    finally:
        for revision in openers:
            revision.close()
