"""Plugin directories for the tests, written into a temporary directory."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import trio

from reelhouse.actors.plugins import ListPlugins
from reelhouse.runtime import ActorRef
from reelhouse.storage.plugin_catalog import discover

SCRIPT = Path(__file__).with_name("plugin_program.py")


def make_plugin(root: Path, plugin_id: str, mode: str = "good", *, extra: str = "", protocol: int = 2,
                version: str = "1.0.0", timeout: float = 5) -> Path:
    """A plugin directory ``root/plugin_id`` running the test plugin in ``mode``."""
    directory = root / plugin_id
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(SCRIPT, directory / "main.py")
    (directory / "plugin.toml").write_text(
        f'id = "{plugin_id}"\nname = "Test {plugin_id}"\nversion = "{version}"\nprotocol = {protocol}\n'
        f'entry = ["python3", "main.py", "{mode}"]\ntimeout_seconds = {timeout}\n{extra}\n',
        encoding="utf-8",
    )
    return directory


def processes_under(root: Path) -> list[int]:
    """Live processes whose command line names a file under ``root`` (orphans included)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(root).encode() in cmdline or (b"main.py" in cmdline and _cwd_under(entry, root)):
            found.append(int(entry.name))
    return found


def own_processes_under(root: Path) -> list[int]:
    """:func:`processes_under` that are this process's descendants or orphans (parent 1).

    For a directory other test processes share (a bundled plugin's): their
    plugins, children of their own hosts, are theirs to account for.
    """
    return [pid for pid in processes_under(root) if _parent(pid) == 1 or _descends_from(pid, os.getpid())]


def _parent(pid: int) -> int | None:
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _descends_from(pid: int, ancestor: int) -> bool:
    while (parent := _parent(pid)) not in (None, 0, 1):
        if parent == ancestor:
            return True
        pid = parent
    return False


def _cwd_under(entry: Path, root: Path) -> bool:
    try:
        return Path(entry / "cwd").resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def zombie_children(parent: int) -> list[int]:
    """Children of ``parent`` that exited and were never reaped."""
    zombies = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z" and int(fields[1]) == parent:
            zombies.append(int(entry.name))
    return zombies


# Often, so a test waits little for the host to notice what it changed.
FAST_POLL_SECONDS = 0.02


async def host_caught_up(ref: ActorRef, data_dir: Path, bundled_dir: Path | None) -> None:
    """Wait until the plugin host's poll has read the catalog as it is on disk now
    (as a running server notices ``reelhouse plugin ...``)."""
    wanted = {entry.id: entry for entry in await trio.to_thread.run_sync(discover, data_dir, bundled_dir)}
    while {view.entry.id: view.entry for view in await ref.ask(ListPlugins(), timeout=10)} != wanted:
        await trio.sleep(FAST_POLL_SECONDS)
