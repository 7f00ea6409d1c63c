"""The tests' forking CLI launcher (tests/cli_launcher.py) gives what ``python -m reelhouse`` gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from . import server_process as process
from .server_process import children, run_cli

CAP_S = process.CLI_TIMEOUT_S  # each run's own cap bounds a hang; this one bounds the whole test


@pytest.mark.parametrize(("args", "stdin"), [
    (["no-such-command"], b""),  # a usage error: exit 2, argparse's message on stderr
    (["user", "add", "ann", "--password-stdin"], b"\n"),  # exit 2 after reading stdin
    (["apikey", "revoke", "nope"], b""),  # exit 1
    (["schedule", "list"], b""),  # exit 0, a table on stdout
])
async def test_a_forked_run_answers_as_a_cold_run(tmp_path: Path, args: list[str], stdin: bytes) -> None:
    with trio.fail_after(2 * CAP_S):
        cold = await run_cli(["--data-dir", str(tmp_path / "cold"), *args], stdin=stdin, cold=True)
        forked = await run_cli(["--data-dir", str(tmp_path / "forked"), *args], stdin=stdin)
    assert (forked.returncode, forked.stdout, forked.stderr) == (cold.returncode, cold.stdout, cold.stderr)


async def test_a_run_past_its_timeout_is_killed(tmp_path: Path) -> None:
    # A peer that accepts and never answers: the import waits on it (30 s) until the run's cap kills it.
    listener = trio.socket.socket()
    await listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    with listener, trio.fail_after(CAP_S):
        with pytest.raises(AssertionError, match="did not end within"):
            await run_cli(["--data-dir", str(tmp_path), "import", "jellyfin", f"http://127.0.0.1:{port}"],
                          stdin=b"token\n", timeout=3)
        launcher = process._LAUNCHER.pid
        while children(launcher):  # the launcher kills the child, then reaps it
            await trio.sleep(0.05)
