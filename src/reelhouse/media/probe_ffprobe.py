"""The ffprobe reference: its command line, and its JSON as media info.

The server probes in-process with libavformat (``probe_av``). ffprobe, one
process per file, is what it did before and what the tests compare the
in-process probe with, field for field (``tests/media/test_probe.py``);
the probe benchmark times it too. Nothing in the server runs it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from .probe import ProbeError, ProbeFailure, ProbeResult, probe_result

FFPROBE_EXECUTABLE = "ffprobe"
# ffmpeg prints strerror() text; the C locale keeps it matchable.
FFPROBE_ENV: Mapping[str, str] = {"LC_ALL": "C"}


def ffprobe_args(path: str, *, executable: str = FFPROBE_EXECUTABLE) -> list[str]:
    """The full argv probing the local file ``path`` (executable first).

    Output is JSON with format and streams; ``-show_streams`` includes each
    stream's side data (the Dolby Vision configuration record). Only the
    ``file`` protocol is allowed and the path is passed as ``file:<path>``, so
    neither a name starting with ``-`` nor one that looks like a URL, nor a
    playlist inside the file, makes ffprobe parse an option or open the
    network. Run it with ``FFPROBE_ENV`` so errors come in English.
    """
    return [
        executable,
        "-v", "error",
        "-hide_banner",
        "-protocol_whitelist", "file",
        "-print_format", "json",
        "-show_format",
        "-show_streams",
        "-i", f"file:{path}",
    ]  # fmt: skip


def parse_probe(json_text: str | bytes, *, path_container_hint: str) -> ProbeResult:
    """Media info from ffprobe's JSON (as produced by :func:`ffprobe_args`).

    Raises :class:`ProbeError` with ``invalid`` when the text is not the JSON
    object ffprobe writes or has no format section, and otherwise as
    :func:`~.probe.probe_result`. Never raises anything else.
    """
    try:
        document = json.loads(json_text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProbeError(ProbeFailure.INVALID, "ffprobe output is not JSON") from exc
    if not isinstance(document, dict):
        raise ProbeError(ProbeFailure.INVALID, "ffprobe output has no format")
    return probe_result(document, path_container_hint=path_container_hint)
