"""A plugin never outlives the server, even one killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import trio

from .factory import make_plugin

# A server stand-in: a PluginHost in its own process, which starts the
# plugin, prints the plugin's pid, and waits to be killed.
HOST_SCRIPT = """
import sys, trio
from pathlib import Path
from reelhouse.runtime import ChildSpec, RootActor
from reelhouse.actors.plugins import HostConfig, PluginHost, call_plugin

async def main():
    config = HostConfig(data_dir=Path(sys.argv[1]), server_version="test")
    async with trio.open_nursery() as nursery:
        root = RootActor([ChildSpec("plugins", lambda: PluginHost(config, bundled_dir=None))])
        await nursery.start(root.run)
        print(await call_plugin(root.child("plugins"), "good", "pid"), flush=True)
        await trio.sleep_forever()

trio.run(main)
"""


def _exited(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # exited; reaping is its new parent's business


async def test_a_plugin_exits_when_the_server_process_is_killed(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    make_plugin(data_dir / "plugins", "good")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[3] / "src"))
    with trio.fail_after(30):
        server = await trio.lowlevel.open_process(
            [sys.executable, "-c", HOST_SCRIPT, str(data_dir)], stdout=subprocess.PIPE, env=env)
        try:
            assert server.stdout is not None
            line = b""
            while not line.endswith(b"\n"):
                chunk = await server.stdout.receive_some(100)
                assert chunk, "the host process ended early"
                line += chunk
            plugin_pid = int(line)
            assert not _exited(plugin_pid)
            server.send_signal(signal.SIGKILL)
            await server.wait()
            while not _exited(plugin_pid):
                await trio.sleep(0.05)
        finally:
            if server.poll() is None:
                server.kill()
                await server.wait()
