"""Root checks: a root that is gone, unreadable, not a directory or not mounted is offline."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
import trio

import reelhouse.actors.scan.roots as roots
from reelhouse.actors.scan.roots import check_root, check_roots


def test_a_readable_directory_is_online(tmp_path: Path) -> None:
    (tmp_path / "a.mkv").write_bytes(b"x")
    state = check_root(str(tmp_path), has_items=True)
    assert (state.online, state.reason_code, state.message) == (True, None, None)
    assert state.checked_at_ms > 0


@pytest.mark.parametrize(("has_items", "online", "code"), [(True, False, "not_mounted"), (False, True, None)])
def test_an_empty_root_is_not_mounted_only_while_it_has_items(tmp_path: Path, has_items: bool, online: bool, code: str | None) -> None:
    state = check_root(str(tmp_path), has_items=has_items)
    assert (state.online, state.reason_code) == (online, code)


def test_a_missing_root_is_not_found(tmp_path: Path) -> None:
    state = check_root(str(tmp_path / "gone"), has_items=False)
    assert (state.online, state.reason_code) == (False, "not_found")
    assert "does not exist" in (state.message or "")


def test_a_file_is_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x")
    assert check_root(str(tmp_path / "f"), has_items=False).reason_code == "not_directory"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), "permission_denied"),
        (OSError(errno.ENOTCONN, "Transport endpoint is not connected"), "not_mounted"),
        (OSError(errno.EIO, "Input/output error"), "unknown"),
    ],
)
def test_read_failures_are_classified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, code: str) -> None:
    def scandir(path):
        raise error

    monkeypatch.setattr(roots.os, "scandir", scandir)
    state = check_root(str(tmp_path), has_items=False)
    assert (state.online, state.reason_code) == (False, code)
    assert f"errno {error.errno}" in (state.message or "")


async def test_check_roots_checks_each_root_in_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    with trio.fail_after(10):
        states = await check_roots(
            [str(tmp_path / "a"), str(tmp_path / "b")], lambda root: root.endswith("b"), limiter=trio.CapacityLimiter(1)
        )
    assert [(os.path.basename(s.path), s.reason_code) for s in states] == [("a", "not_found"), ("b", "not_mounted")]
