"""Real media for the probe tests: made with ffmpeg once per session, probed by the ffprobe
reference; Dolby Vision MP4s built by hand; the reference's and the in-process answers."""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from reelhouse.media.probe import (
    ProbeError,
    ProbeFailure,
    ProbeResult,
    classify_probe_failure,
)
from reelhouse.media.probe_av import read_media_info
from reelhouse.media.probe_ffprobe import FFPROBE_ENV, ffprobe_args, parse_probe

from ..media_factory import MediaFactory, VideoSpec

FFMPEG_TIMEOUT = 30
HAVE_FFMPEG = shutil.which("ffmpeg") is not None and shutil.which("ffprobe") is not None
needs_ffmpeg = pytest.mark.skipif(not HAVE_FFMPEG, reason="ffmpeg/ffprobe not installed")

SRT = "1\n00:00:00,000 --> 00:00:00,500\nHello\n\n"
TINY_VIDEO = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=5"]
TINY_AUDIO = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"]
X264 = ["-c:v", "libx264", "-preset", "ultrafast"]


@dataclass(frozen=True, slots=True)
class Probed:
    path: Path
    returncode: int
    stdout: str
    stderr: str


def ffmpeg_encoders() -> str:
    done = subprocess.run(
        ["ffmpeg", "-hide_banner", "-encoders"],
        capture_output=True, text=True, timeout=FFMPEG_TIMEOUT, check=True,
    )  # fmt: skip
    return done.stdout


def run_ffmpeg(*args: str | Path) -> None:
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", *map(str, args)],
        capture_output=True, timeout=FFMPEG_TIMEOUT, check=True,
    )  # fmt: skip


def run_ffprobe(path: Path) -> Probed:
    done = subprocess.run(
        ffprobe_args(str(path)),
        capture_output=True, text=True, timeout=FFMPEG_TIMEOUT,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", **FFPROBE_ENV},
    )  # fmt: skip
    return Probed(path, done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="session")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Probed]:
    """Tiny real files, each probed once with ffprobe_args."""
    if not HAVE_FFMPEG:
        pytest.skip("ffmpeg/ffprobe not installed")
    root = tmp_path_factory.mktemp("probe")
    encoders = ffmpeg_encoders()
    srt = root / "in.srt"
    srt.write_text(SRT)
    files: dict[str, Path] = {}

    files["mkv"] = root / "-Movie: with subs.mkv"
    run_ffmpeg(
        *TINY_VIDEO, *TINY_AUDIO, "-i", srt, "-t", "1",
        "-map", "0:v", "-map", "1:a", "-map", "2:s", *X264, "-c:a", "aac", "-c:s", "srt",
        "-metadata:s:a:0", "language=deu", "-metadata:s:a:0", "title=Stereo",
        "-metadata:s:s:0", "language=en", "-metadata:s:s:0", "title=Signs",
        "-disposition:a:0", "default", "-disposition:s:0", "forced", files["mkv"],
    )  # fmt: skip
    files["mp4"] = root / "movie.m4v"
    run_ffmpeg(
        "-f", "lavfi", "-i", "testsrc=size=1280x536:rate=5", *TINY_AUDIO, "-t", "0.6",
        *X264, "-c:a", "aac", "-ac", "2", "-metadata:s:a:0", "language=fra",
        "-f", "mp4", files["mp4"],
    )  # fmt: skip
    files["ts"] = root / "show.ts"
    run_ffmpeg(*TINY_VIDEO, "-t", "0.6", *X264, "-color_trc", "arib-std-b67", files["ts"])
    files["cover"] = root / "song.m4a"
    run_ffmpeg(
        *TINY_AUDIO, "-f", "lavfi", "-i", "testsrc=size=32x32", "-t", "0.5",
        "-map", "0:a", "-map", "1:v", "-frames:v", "1", "-c:a", "aac", "-c:v", "png",
        "-disposition:v:0", "attached_pic", "-f", "mp4", files["cover"],
    )  # fmt: skip
    if "libx265" in encoders:
        files["hdr10"] = root / "hdr.mkv"
        run_ffmpeg(
            *TINY_VIDEO, "-t", "0.4", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", "log-level=none", "-pix_fmt", "yuv420p10le",
            "-color_primaries", "bt2020", "-color_trc", "smpte2084",
            "-colorspace", "bt2020nc", files["hdr10"],
        )  # fmt: skip
        hevc = root / "hevc.mp4"
        run_ffmpeg(
            *TINY_VIDEO, "-t", "0.4", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", "log-level=none", "-tag:v", "hvc1", "-pix_fmt", "yuv420p10le",
            "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", hevc,
        )  # fmt: skip
        files["dovi-record"] = root / "dv-record.mp4"
        files["dovi-record"].write_bytes(with_dolby_vision(hevc.read_bytes(), record=True))
        files["dovi-tag"] = root / "dv-tag.mp4"
        files["dovi-tag"].write_bytes(with_dolby_vision(hevc.read_bytes(), tag=b"dvh1"))
    files["text"] = root / "notes.avi"
    files["text"].write_text("this is not a video\n" * 20)
    files["truncated"] = root / "cut.mp4"
    files["truncated"].write_bytes(files["mp4"].read_bytes()[:2000])
    files["missing"] = root / "gone.mkv"
    files["empty"] = root / "empty.mkv"
    files["empty"].write_bytes(b"")
    files["random"] = root / "noise.mkv"
    files["random"].write_bytes(random.Random(19).randbytes(64 * 1024))
    factory = MediaFactory(root / "factory-cache")
    for index, spec in enumerate(FACTORY_SPECS):
        files[f"factory-{index}"] = factory.video(root / "factory" / spec.key, spec)
    return {name: run_ffprobe(path) for name, path in files.items()}


# What the suite's MediaFactory makes (tests/http/...), and its other codecs
# and containers.
FACTORY_SPECS = (
    VideoSpec(),
    VideoSpec(audio_language="ger", subtitle=True),
    VideoSpec(1280, 720),
    VideoSpec(640, 360),
    VideoSpec(codec="mpeg4", container="avi"),
    VideoSpec(codec="mpeg4", container="mp4", audio_language="jpn"),
    VideoSpec(1920, 1080, codec="mpeg2video", container="ts"),
    VideoSpec(codec="libvpx", container="mkv", subtitle=True),
    VideoSpec(codec="mjpeg", container="mov"),
)


def parsed_sample(samples: dict[str, Probed], name: str) -> ProbeResult:
    probed = samples[name]
    assert probed.returncode == 0, probed.stderr
    return parse_probe(probed.stdout, path_container_hint=probed.path.name)


# A Dolby Vision configuration record (ETSI GS CCM 001, "dvcC"): version
# 1.0, profile 8, level 6, RPU and base layer present, compatibility id 1.
DVCC = struct.pack(">BBH", 1, 0, (8 << 9) | (6 << 3) | 0b101) + bytes([0x10]) + bytes(19)
VISUAL_SAMPLE_ENTRY_FIELDS = 78  # bytes of a video sample entry before its child boxes


def with_dolby_vision(mp4: bytes, *, record: bool = False, tag: bytes | None = None) -> bytes:
    """An MP4 (moov after mdat) whose hvc1 sample entry gets a dvcC box and/or a new fourcc.

    ffmpeg 5.1 cannot write Dolby Vision; this is how a DV file declares it.
    """
    data = bytearray(mp4)
    path = [b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd"]
    ancestors: list[int] = []
    start, end = 0, len(data)
    for kind in path:
        position = find_box(data, start, end, kind)
        ancestors.append(position)
        size = struct.unpack_from(">I", data, position)[0]
        start, end = position + 8, position + size
    entry = start + 8  # stsd: version, flags and entry count
    assert data[entry + 4 : entry + 8] == b"hvc1", "a sample entry other than hvc1"
    if tag is not None:
        data[entry + 4 : entry + 8] = tag
    if record:
        entry_end = entry + struct.unpack_from(">I", data, entry)[0]
        box = struct.pack(">I4s", 8 + len(DVCC), b"dvcC") + DVCC
        data[entry_end:entry_end] = box
        for position in [*ancestors, entry]:
            struct.pack_into(">I", data, position, struct.unpack_from(">I", data, position)[0] + len(box))
    return bytes(data)


def find_box(data: bytearray, start: int, end: int, kind: bytes) -> int:
    position = start
    while position + 8 <= end:
        size, found = struct.unpack_from(">I4s", data, position)
        if found == kind:
            return position
        position += size
    raise AssertionError(f"no {kind!r} box")


def reference_answer(probed: Probed) -> ProbeResult | ProbeFailure:
    """What the ffprobe reference made of a file: its result, or its failure."""
    if probed.returncode != 0:
        exists = probed.path.exists()
        return classify_probe_failure(probed.returncode, probed.stderr, timed_out=False, exists=exists, permission=False)
    try:
        return parse_probe(probed.stdout, path_container_hint=str(probed.path))
    except ProbeError as exc:
        return exc.failure


def in_process_answer(path: Path) -> ProbeResult | ProbeFailure:
    try:
        return read_media_info(str(path))
    except ProbeError as exc:
        return exc.failure
