"""Probe worker stand-ins (the real worker with a fault on chosen files) and process checks."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

FFMPEG_LIMIT_S = 60


def worker_command(*, abort_on: str | None = None, hang_on: str | None = None, hang_at_start: bool = False,
                   gate: Path | None = None, hanging: Path | None = None,
                   release: Path | None = None) -> tuple[str, ...]:
    """The real probe worker, which aborts (SIGABRT, as a crash in a C library
    would) or hangs forever on paths containing the given text (first making the
    file ``hanging``, so a test knows the hang began; with ``release``, only until
    that file exists, so a test ends the hang once it saw what it waited for instead
    of waiting out a probe timeout); with ``gate``, it answers nothing until that
    file exists."""
    code = [
        "import os, time",
        "import reelhouse.media.probe_worker as worker",
        "real = worker.answer",
        "def answer(path):",
        f"    if {abort_on!r} and {abort_on!r} in path: os.abort()",
        f"    if {hang_on!r} and {hang_on!r} in path and {str(hanging) if hanging else None!r}:",
        f"        open({str(hanging) if hanging else ''!r}, 'w').close()",
        f"    while {hang_on!r} and {hang_on!r} in path and {str(release) if release else None!r}:",
        f"        if os.path.exists({str(release) if release else ''!r}): return real(path)",
        "        time.sleep(0.05)",
        f"    if {hang_on!r} and {hang_on!r} in path: time.sleep(3600)",
        f"    while {str(gate) if gate else None!r} and not os.path.exists({str(gate) if gate else ''!r}):",
        "        time.sleep(0.05)",
        "    return real(path)",
        "worker.answer = answer",
        f"if {hang_at_start!r}: time.sleep(3600)",
        "worker.main()",
    ]
    return (sys.executable, "-c", "\n".join(code))


def probe_worker_pids(parent: int | None = None) -> list[int]:
    """Live (not zombie) probe workers whose parent is ``parent`` (this process)."""
    parent = os.getpid() if parent is None else parent
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, ppid = fields[0], int(fields[1])
        if ppid == parent and state != "Z" and b"probe_worker" in cmdline:
            found.append(int(entry.name))
    return found


@cache
def _mp4() -> bytes:
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"reelhouse-probe-mp4-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    out = folder / "a.mp4"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=5", "-t", "1",
         "-c:v", "libx264", "-preset", "ultrafast", str(out)],
        check=True, timeout=FFMPEG_LIMIT_S,
    )  # fmt: skip
    data = out.read_bytes()
    out.unlink()
    folder.rmdir()
    return data


def mp4_head(size: int = 2000) -> bytes:
    """The first ``size`` bytes of a real MP4: its moov atom is missing (damaged)."""
    return _mp4()[:size]
