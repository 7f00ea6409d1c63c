"""A plugin never outlives the server, even one killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import trio

from reelhouse.storage import plugin_catalog
from tests.server_process import ServerProcess, run_cli
from tests.tls import shared_tls_context

from .factory import make_plugin
from .test_descendants import gone, wait_gone

CAP_S = 60
TASK = '[[tasks]]\nname = "sync"\nnames = { en = "Sync" }\n'

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


async def test_a_plugin_ignoring_eof_and_sigterm_dies_when_reelhouse_serve_is_killed(
    nursery: trio.Nursery, tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    plugin = make_plugin(plugin_catalog.plugins_dir(data_dir), "stubborn", "stubborn", extra=TASK)
    database = f"sqlite:///{tmp_path / 'reelhouse.db'}"
    server = ServerProcess(data_dir, database)
    try:
        with trio.fail_after(CAP_S):
            base = await server.start(nursery)
            made = await run_cli(["--data-dir", str(data_dir), "--database", database, "apikey", "create", "t"])
            key = made.stdout.decode().strip().splitlines()[-1]
            async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {key}"}) as client:
                # Registered from the plugin catalog as the scheduler reads it: 404 until then.
                while (await client.post("/admin/schedules/stubborn.sync/run")).status_code != 202:
                    await trio.sleep(0.1)
            while not (plugin / "pids.log").exists():
                await trio.sleep(0.05)
        plugin_pid = int((plugin / "pids.log").read_text().split()[0])
        assert not gone(plugin_pid)
        server.send_signal(signal.SIGKILL)
        await server.wait()
        await wait_gone(plugin_pid)
    finally:
        server.kill()
        for pid in (plugin / "pids.log").read_text().split() if (plugin / "pids.log").exists() else ():
            if not gone(int(pid)):  # the test failed: leave nothing behind
                os.kill(int(pid), signal.SIGKILL)
