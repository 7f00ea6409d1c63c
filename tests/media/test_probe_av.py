"""In-process probes (PyAV) equal the ffprobe reference on real media."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reelhouse.media.probe import (
    DynamicRange,
    ProbeFailure,
    ProbeResult,
)
from reelhouse.media.probe_av import library_versions, quiet_logging

from .probe_samples import (  # noqa: F401 (fixture)
    Probed,
    in_process_answer,
    needs_ffmpeg,
    reference_answer,
    run_ffmpeg,
    run_ffprobe,
    samples,
)

# -- in-process probes equal the ffprobe reference --------------------------


def test_every_test_file_probes_in_process_as_ffprobe_probes_it(samples: dict[str, Probed]) -> None:
    quiet_logging()
    assert len(samples) > 15
    for name, probed in samples.items():
        assert in_process_answer(probed.path) == reference_answer(probed), name


def test_dolby_vision_is_read_from_the_configuration_record_and_the_codec_tag(samples: dict[str, Probed]) -> None:
    if "dovi-record" not in samples:
        pytest.skip("ffmpeg has no libx265 encoder")
    quiet_logging()
    for name in ("dovi-record", "dovi-tag"):
        reference = reference_answer(samples[name])
        assert isinstance(reference, ProbeResult) and reference.streams[0].dynamic_range is DynamicRange.DOLBY_VISION
        assert in_process_answer(samples[name].path) == reference


def test_damaged_files_and_non_media_give_the_reference_failure(samples: dict[str, Probed]) -> None:
    quiet_logging()
    expected = {
        "truncated": ProbeFailure.INVALID,
        "text": ProbeFailure.NOT_MEDIA,
        "random": ProbeFailure.NOT_MEDIA,
        "empty": ProbeFailure.NOT_MEDIA,
        "missing": ProbeFailure.LINK_GONE,
    }
    assert {name: in_process_answer(samples[name].path) for name in expected} == expected


@needs_ffmpeg
def test_in_process_probe_reads_a_url_like_path_as_a_local_file(tmp_path: Path) -> None:
    assert in_process_answer(Path("http://127.0.0.1:9/a.mkv")) is ProbeFailure.LINK_GONE


def test_in_process_probe_of_an_unreadable_file_is_permission_denied(samples: dict[str, Probed], tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    locked = tmp_path / "locked.mkv"
    shutil.copyfile(samples["mkv"].path, locked)
    locked.chmod(0)
    assert in_process_answer(locked) is ProbeFailure.PERMISSION_DENIED


def test_library_versions_name_pyav_and_libavformat() -> None:
    versions = library_versions()
    assert versions["av"] and versions["ffmpeg"] and versions["libavformat"].count(".") == 2
