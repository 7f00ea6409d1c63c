"""probe: failures classified, the failure values, languages.

In-process probes: test_probe_av.py; ffprobe: test_probe_ffprobe.py."""

from __future__ import annotations

import pytest

from reelhouse.media.probe import (
    ProbeFailure,
    classify_probe_failure,
    normalize_language,
)

# -- failures -------------------------------------------------------------


@pytest.mark.parametrize(
    ("returncode", "stderr", "flags", "failure"),
    [
        (None, "", {"timed_out": True}, ProbeFailure.TIMEOUT),
        (1, "a.mkv: Permission denied", {}, ProbeFailure.PERMISSION_DENIED),
        (1, "a.mkv: Operation not permitted", {}, ProbeFailure.PERMISSION_DENIED),
        (1, "", {"permission": True}, ProbeFailure.PERMISSION_DENIED),
        (1, "a.mkv: No such file or directory", {}, ProbeFailure.LINK_GONE),
        (1, "", {"exists": False}, ProbeFailure.LINK_GONE),
        (1, "a.mkv: Input/output error", {}, ProbeFailure.UNREACHABLE),
        (1, "a.mkv: Stale file handle", {}, ProbeFailure.UNREACHABLE),
        (1, "a.mkv: Transport endpoint is not connected", {}, ProbeFailure.UNREACHABLE),
        (1, "[mov,mp4] moov atom not found\na.mp4: Invalid data found when "
            "processing input", {}, ProbeFailure.INVALID),
        (1, "[matroska,webm] EBML header parsing failed\na.mkv: Invalid data "
            "found when processing input", {}, ProbeFailure.NOT_MEDIA),
        (1, "something new", {}, ProbeFailure.UNKNOWN),
        (-11, "", {}, ProbeFailure.UNKNOWN),
        (None, "", {}, ProbeFailure.UNKNOWN),
        (1, "a.mkv: Permission denied", {"timed_out": True}, ProbeFailure.TIMEOUT),
        (1, "No such file or directory", {"permission": True},
         ProbeFailure.PERMISSION_DENIED),
        (1, "Input/output error", {"exists": False}, ProbeFailure.LINK_GONE),
    ],
)  # fmt: skip
def test_classify_probe_failure(
    returncode: int | None, stderr: str, flags: dict[str, bool], failure: ProbeFailure
) -> None:
    options = {"timed_out": False, "exists": True, "permission": False, **flags}
    assert classify_probe_failure(returncode, stderr, **options) is failure


def test_probe_failure_values_are_the_references() -> None:
    assert {f.value for f in ProbeFailure} == {
        "permission_denied", "unreachable", "timeout", "invalid",
        "link_gone", "not_media", "unknown",
    }  # fmt: skip


# -- languages ------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("ger", "ger"), ("deu", "ger"), ("de", "ger"), ("DE", "ger"),
        ("fre", "fre"), ("fra", "fre"), ("fr", "fre"), ("en", "eng"),
        ("eng", "eng"), ("zh", "chi"), ("zho", "chi"), ("cmn", "chi"),
        ("cze", "cze"), ("ces", "cze"), ("nl", "dut"), ("pt-BR", "por"),
        ("en_US", "eng"), ("zh-Hans", "chi"), (" spa ", "spa"), ("iw", "heb"),
        ("fil", "fil"), ("nb", "nob"), ("und", None), ("zxx", None),
        ("", None), (None, None), ("xx", None), ("sdh", None), ("english", None),
    ],
)  # fmt: skip
def test_normalize_language_to_iso_639_2b(code: str | None, expected: str | None) -> None:
    assert normalize_language(code) == expected
