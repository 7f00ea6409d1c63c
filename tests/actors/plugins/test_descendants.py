"""Nothing a plugin starts outlives it: not a grandchild that left for its own session and ignores SIGTERM."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import trio

from reelhouse.actors.plugins import PluginCallError
from reelhouse.actors.plugins import session as session_module
from reelhouse.storage import plugin_catalog

from .conftest import Host
from .factory import make_plugin

GONE_WITHIN_S = 15
GRACE_S = 0.5


def short_graces(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a plugin that ignores the end of its stdin (or a launcher that cannot act): the host kills it
    after these graces, whatever their length, so a test waits 0.5 s for each rather than 2 s and 3 s."""
    monkeypatch.setattr(session_module, "STOP_GRACE_S", GRACE_S)
    monkeypatch.setattr(session_module, "LAUNCHER_GRACE_S", GRACE_S)


def gone(pid: int) -> bool:
    """Exited (a zombie has exited: reaping it is its parent's business) or reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


async def wait_gone(pid: int) -> None:
    with trio.fail_after(GONE_WITHIN_S):
        while not gone(pid):
            await trio.sleep(0.05)


async def _stop(host: Host, plugin_id: str, ending: str) -> None:
    match ending:
        case "disabled":  # the polite stop: stdin closes and the plugin exits
            plugin_catalog.update_state(host.data_dir, plugin_id, enabled=False)
            await host.rescan()
        case "crashed" | "killed":  # exits on its own / killed for writing garbage
            with pytest.raises(PluginCallError):
                await host.call(plugin_id, "echo", 1)
        case "deaf":  # ignores the end of its stdin: killed after the grace
            plugin_catalog.update_state(host.data_dir, plugin_id, enabled=False)
            await host.rescan()


@pytest.mark.parametrize(("ending", "mode"), [
    ("disabled", "good"), ("crashed", "crash"), ("killed", "garbage"), ("deaf", "deaf"),
])
async def test_a_setsid_grandchild_ignoring_sigterm_ends_with_its_plugin(
        host: Host, ending: str, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if ending == "deaf":  # the polite stop keeps its grace: a plugin that exits is never cut short
        short_graces(monkeypatch)
    make_plugin(host.plugins, "sly", mode)
    await host.rescan()
    grandchild = await host.call("sly", "orphan")
    plugin = await host.call("sly", "pid")
    assert isinstance(grandchild, int) and not gone(grandchild)
    await _stop(host, "sly", ending)
    await wait_gone(plugin)
    await wait_gone(grandchild)


async def test_a_setsid_grandchild_ends_when_the_host_stops(host: Host) -> None:
    make_plugin(host.plugins, "sly")
    await host.rescan()
    grandchild = await host.call("sly", "orphan")
    await host.stop()
    await wait_gone(grandchild)


async def test_a_plugin_dies_with_its_launcher_even_one_killed_with_sigkill(host: Host) -> None:
    make_plugin(host.plugins, "deaf", "deaf")
    await host.rescan()
    plugin = await host.call("deaf", "pid")
    assert isinstance(plugin, int) and parent(plugin) != os.getpid()
    os.kill(parent(plugin), signal.SIGKILL)  # its launcher: the plugin's parent-death signal is SIGKILL
    await wait_gone(plugin)
    await host.wait_view("deaf", lambda view: view.status != "running")


async def test_a_plugin_that_stops_its_launcher_is_killed_with_its_process_group(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    short_graces(monkeypatch)
    make_plugin(host.plugins, "deaf", "deaf")
    await host.rescan()
    plugin = await host.call("deaf", "pid")
    assert isinstance(plugin, int)
    launcher = parent(plugin)
    await host.call("deaf", "freeze_parent")
    plugin_catalog.update_state(host.data_dir, "deaf", enabled=False)
    await host.rescan()
    await wait_gone(plugin)
    await wait_gone(launcher)
