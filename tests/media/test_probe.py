"""probe: in-process probes (PyAV) equal to the ffprobe reference on real media;
ffprobe's command line and JSON, failures, languages."""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.media.probe import (
    DynamicRange,
    ProbeError,
    ProbeFailure,
    ProbeResult,
    StreamType,
    classify_probe_failure,
    container_name,
    normalize_language,
    resolution_name,
)
from reelhouse.media.probe_av import library_versions, quiet_logging, read_media_info
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


def _encoders() -> str:
    done = subprocess.run(
        ["ffmpeg", "-hide_banner", "-encoders"],
        capture_output=True, text=True, timeout=FFMPEG_TIMEOUT, check=True,
    )  # fmt: skip
    return done.stdout


def _ffmpeg(*args: str | Path) -> None:
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", *map(str, args)],
        capture_output=True, timeout=FFMPEG_TIMEOUT, check=True,
    )  # fmt: skip


def _ffprobe(path: Path) -> Probed:
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
    encoders = _encoders()
    srt = root / "in.srt"
    srt.write_text(SRT)
    files: dict[str, Path] = {}

    files["mkv"] = root / "-Movie: with subs.mkv"
    _ffmpeg(
        *TINY_VIDEO, *TINY_AUDIO, "-i", srt, "-t", "1",
        "-map", "0:v", "-map", "1:a", "-map", "2:s", *X264, "-c:a", "aac", "-c:s", "srt",
        "-metadata:s:a:0", "language=deu", "-metadata:s:a:0", "title=Stereo",
        "-metadata:s:s:0", "language=en", "-metadata:s:s:0", "title=Signs",
        "-disposition:a:0", "default", "-disposition:s:0", "forced", files["mkv"],
    )  # fmt: skip
    files["mp4"] = root / "movie.m4v"
    _ffmpeg(
        "-f", "lavfi", "-i", "testsrc=size=1280x536:rate=5", *TINY_AUDIO, "-t", "0.6",
        *X264, "-c:a", "aac", "-ac", "2", "-metadata:s:a:0", "language=fra",
        "-f", "mp4", files["mp4"],
    )  # fmt: skip
    files["ts"] = root / "show.ts"
    _ffmpeg(*TINY_VIDEO, "-t", "0.6", *X264, "-color_trc", "arib-std-b67", files["ts"])
    files["cover"] = root / "song.m4a"
    _ffmpeg(
        *TINY_AUDIO, "-f", "lavfi", "-i", "testsrc=size=32x32", "-t", "0.5",
        "-map", "0:a", "-map", "1:v", "-frames:v", "1", "-c:a", "aac", "-c:v", "png",
        "-disposition:v:0", "attached_pic", "-f", "mp4", files["cover"],
    )  # fmt: skip
    if "libx265" in encoders:
        files["hdr10"] = root / "hdr.mkv"
        _ffmpeg(
            *TINY_VIDEO, "-t", "0.4", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", "log-level=none", "-pix_fmt", "yuv420p10le",
            "-color_primaries", "bt2020", "-color_trc", "smpte2084",
            "-colorspace", "bt2020nc", files["hdr10"],
        )  # fmt: skip
        hevc = root / "hevc.mp4"
        _ffmpeg(
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
    return {name: _ffprobe(path) for name, path in files.items()}


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


def _parsed(samples: dict[str, Probed], name: str) -> ProbeResult:
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
        position = _find_box(data, start, end, kind)
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


def _find_box(data: bytearray, start: int, end: int, kind: bytes) -> int:
    position = start
    while position + 8 <= end:
        size, found = struct.unpack_from(">I4s", data, position)
        if found == kind:
            return position
        position += size
    raise AssertionError(f"no {kind!r} box")


def _reference(probed: Probed) -> ProbeResult | ProbeFailure:
    """What the ffprobe reference made of a file: its result, or its failure."""
    if probed.returncode != 0:
        exists = probed.path.exists()
        return classify_probe_failure(probed.returncode, probed.stderr, timed_out=False, exists=exists, permission=False)
    try:
        return parse_probe(probed.stdout, path_container_hint=str(probed.path))
    except ProbeError as exc:
        return exc.failure


def _in_process(path: Path) -> ProbeResult | ProbeFailure:
    try:
        return read_media_info(str(path))
    except ProbeError as exc:
        return exc.failure


# -- in-process probes equal the ffprobe reference --------------------------


def test_every_test_file_probes_in_process_as_ffprobe_probes_it(samples: dict[str, Probed]) -> None:
    quiet_logging()
    assert len(samples) > 15
    for name, probed in samples.items():
        assert _in_process(probed.path) == _reference(probed), name


def test_dolby_vision_is_read_from_the_configuration_record_and_the_codec_tag(samples: dict[str, Probed]) -> None:
    if "dovi-record" not in samples:
        pytest.skip("ffmpeg has no libx265 encoder")
    quiet_logging()
    for name in ("dovi-record", "dovi-tag"):
        reference = _reference(samples[name])
        assert isinstance(reference, ProbeResult) and reference.streams[0].dynamic_range is DynamicRange.DOLBY_VISION
        assert _in_process(samples[name].path) == reference


def test_damaged_files_and_non_media_give_the_reference_failure(samples: dict[str, Probed]) -> None:
    quiet_logging()
    expected = {
        "truncated": ProbeFailure.INVALID,
        "text": ProbeFailure.NOT_MEDIA,
        "random": ProbeFailure.NOT_MEDIA,
        "empty": ProbeFailure.NOT_MEDIA,
        "missing": ProbeFailure.LINK_GONE,
    }
    assert {name: _in_process(samples[name].path) for name in expected} == expected


@needs_ffmpeg
def test_in_process_probe_reads_a_url_like_path_as_a_local_file(tmp_path: Path) -> None:
    assert _in_process(Path("http://127.0.0.1:9/a.mkv")) is ProbeFailure.LINK_GONE


def test_in_process_probe_of_an_unreadable_file_is_permission_denied(samples: dict[str, Probed], tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    locked = tmp_path / "locked.mkv"
    shutil.copyfile(samples["mkv"].path, locked)
    locked.chmod(0)
    assert _in_process(locked) is ProbeFailure.PERMISSION_DENIED


def test_library_versions_name_pyav_and_libavformat() -> None:
    versions = library_versions()
    assert versions["av"] and versions["ffmpeg"] and versions["libavformat"].count(".") == 2


# -- ffprobe_args ---------------------------------------------------------


def test_args_ask_for_json_format_and_streams_of_a_file_url() -> None:
    args = ffprobe_args("/media/a.mkv")
    assert args[0] == "ffprobe"
    assert args[-2:] == ["-i", "file:/media/a.mkv"]
    for flag in ("-show_format", "-show_streams"):
        assert flag in args
    assert args[args.index("-print_format") + 1] == "json"
    assert args[args.index("-protocol_whitelist") + 1] == "file"
    assert args[args.index("-v") + 1] == "error"


def test_args_take_another_executable() -> None:
    assert ffprobe_args("a.mkv", executable="/opt/ff/ffprobe")[0] == "/opt/ff/ffprobe"


@needs_ffmpeg
def test_args_read_a_url_like_path_as_a_local_file() -> None:
    probed = _ffprobe(Path("http://127.0.0.1:9/a.mkv"))
    assert probed.returncode != 0
    assert "No such file or directory" in probed.stderr


# -- real ffprobe output --------------------------------------------------


def test_mkv_with_dash_and_colon_in_its_name_probes(samples: dict[str, Probed]) -> None:
    result = _parsed(samples, "mkv")
    assert result.container == "mkv"
    assert result.format_name == "matroska,webm"
    assert result.size == samples["mkv"].path.stat().st_size
    assert result.bitrate and result.bitrate > 0
    assert result.runtime_ticks is not None
    assert 9_000_000 <= result.runtime_ticks <= 12_000_000
    assert [s.type for s in result.streams] == [
        StreamType.VIDEO, StreamType.AUDIO, StreamType.SUBTITLE,
    ]  # fmt: skip


def test_mkv_video_stream_has_size_tier_and_sdr(samples: dict[str, Probed]) -> None:
    video = _parsed(samples, "mkv").streams[0]
    assert (video.index, video.codec, video.width, video.height) == (0, "h264", 320, 240)
    assert video.resolution_name == "SD"
    assert video.dynamic_range is DynamicRange.SDR
    assert video.channels is None and video.language is None


def test_mkv_audio_stream_language_is_normalised_to_639_2b(
    samples: dict[str, Probed],
) -> None:
    audio = _parsed(samples, "mkv").streams[1]
    assert (audio.codec, audio.channels, audio.sample_rate) == ("aac", 1, 48000)
    assert audio.channel_layout == "mono"
    assert audio.language == "ger"
    assert audio.title == "Stereo"
    assert audio.is_default and not audio.is_forced
    assert audio.width is None and audio.resolution_name is None
    assert audio.dynamic_range is None


def test_mkv_subtitle_stream_is_forced_english_subrip(samples: dict[str, Probed]) -> None:
    subtitle = _parsed(samples, "mkv").streams[2]
    assert (subtitle.index, subtitle.codec) == (2, "subrip")
    assert subtitle.language == "eng"
    assert subtitle.is_forced and not subtitle.is_default
    assert subtitle.title == "Signs"


def test_mp4_family_takes_the_extension_and_wide_video_is_720p(
    samples: dict[str, Probed],
) -> None:
    result = _parsed(samples, "mp4")
    assert result.container == "m4v"
    video, audio = result.streams
    assert (video.width, video.height, video.resolution_name) == (1280, 536, "720p")
    assert audio.language == "fre"
    assert audio.bitrate and audio.bitrate > 0
    assert (audio.channels, audio.channel_layout) == (2, "stereo")


def test_transport_stream_is_mpegts_and_hlg_is_detected(samples: dict[str, Probed]) -> None:
    result = _parsed(samples, "ts")
    assert result.container == "mpegts"
    assert result.streams[0].color_transfer == "arib-std-b67"
    assert result.streams[0].dynamic_range is DynamicRange.HLG


def test_cover_art_is_not_a_video_stream(samples: dict[str, Probed]) -> None:
    result = _parsed(samples, "cover")
    assert [s.type for s in result.streams] == [StreamType.AUDIO]
    assert result.container == "m4a"


def test_hevc_with_pq_transfer_is_hdr10(samples: dict[str, Probed]) -> None:
    if "hdr10" not in samples:
        pytest.skip("ffmpeg has no libx265 encoder")
    video = _parsed(samples, "hdr10").streams[0]
    assert video.codec == "hevc"
    assert video.color_transfer == "smpte2084"
    assert video.dynamic_range is DynamicRange.HDR10


def test_text_file_fails_as_not_media(samples: dict[str, Probed]) -> None:
    probed = samples["text"]
    assert probed.returncode != 0
    failure = classify_probe_failure(
        probed.returncode, probed.stderr, timed_out=False, exists=True, permission=False
    )
    assert failure is ProbeFailure.NOT_MEDIA


def test_truncated_mp4_fails_as_invalid(samples: dict[str, Probed]) -> None:
    probed = samples["truncated"]
    assert probed.returncode != 0
    failure = classify_probe_failure(
        probed.returncode, probed.stderr, timed_out=False, exists=True, permission=False
    )
    assert failure is ProbeFailure.INVALID


def test_vanished_file_fails_as_link_gone_from_stderr_alone(
    samples: dict[str, Probed],
) -> None:
    probed = samples["missing"]
    failure = classify_probe_failure(
        probed.returncode, probed.stderr, timed_out=False, exists=True, permission=False
    )
    assert failure is ProbeFailure.LINK_GONE


def test_failed_run_prints_empty_json_which_is_invalid(samples: dict[str, Probed]) -> None:
    with pytest.raises(ProbeError) as caught:
        parse_probe(samples["text"].stdout, path_container_hint="avi")
    assert caught.value.failure is ProbeFailure.INVALID


# -- hand-written ffprobe JSON --------------------------------------------


def _document(*streams: dict[str, object], **fmt: object) -> str:
    format_section: dict[str, object] = {"format_name": "matroska,webm", **fmt}
    return json.dumps({"streams": list(streams), "format": format_section})


def _video(**fields: object) -> dict[str, object]:
    return {"index": 0, "codec_type": "video", "codec_name": "hevc",
            "width": 3840, "height": 2160, **fields}  # fmt: skip


DOVI_RECORD = {
    "side_data_type": "DOVI configuration record",
    "dv_version_major": 1, "dv_version_minor": 0, "dv_profile": 8, "dv_level": 6,
    "rpu_present_flag": 1, "el_present_flag": 0, "bl_present_flag": 1,
    "dv_bl_signal_compatibility_id": 1,
}  # fmt: skip


@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        (_video(color_transfer="smpte2084"), DynamicRange.HDR10),
        (_video(color_transfer="arib-std-b67"), DynamicRange.HLG),
        (_video(color_transfer="bt709"), DynamicRange.SDR),
        (_video(), DynamicRange.SDR),
        (_video(color_transfer="smpte2084", side_data_list=[DOVI_RECORD]),
         DynamicRange.DOLBY_VISION),
        (_video(codec_tag_string="dvh1"), DynamicRange.DOLBY_VISION),
        (_video(codec_tag_string="dvhe", color_transfer="smpte2084"),
         DynamicRange.DOLBY_VISION),
        (_video(side_data_list=[{"side_data_type": "Mastering display metadata"}],
                color_transfer="smpte2084"), DynamicRange.HDR10),
    ],
)
def test_dynamic_range_of_video_streams(
    stream: dict[str, object], expected: DynamicRange
) -> None:
    result = parse_probe(_document(stream), path_container_hint="x.mkv")
    assert result.streams[0].dynamic_range is expected
    assert result.streams[0].resolution_name == "4K"


@pytest.mark.parametrize(
    ("width", "height", "tier"),
    [
        (None, None, None), (0, 0, None), (720, 576, "SD"), (1279, 719, "SD"),
        (1280, 536, "720p"), (960, 720, "720p"), (1920, 800, "1080p"),
        (1440, 1080, "1080p"), (2560, 1072, "1440p"), (1920, 1440, "1440p"),
        (3840, 1600, "4K"), (2880, 2160, "4K"), (7680, 3200, "8K"),
        (5760, 4320, "8K"), (None, 1080, "1080p"), (15360, 8640, "8K"),
    ],
)  # fmt: skip
def test_resolution_tier_is_reached_by_either_dimension(
    width: int | None, height: int | None, tier: str | None
) -> None:
    assert resolution_name(width, height) == tier


@pytest.mark.parametrize(
    ("format_name", "hint", "container"),
    [
        ("matroska,webm", "a.mkv", "mkv"), ("matroska,webm", "a.webm", "webm"),
        ("matroska,webm", "/x/a.MK3D", "mkv"), ("matroska,webm", "", "mkv"),
        ("mov,mp4,m4a,3gp,3g2,mj2", "a.mp4", "mp4"),
        ("mov,mp4,m4a,3gp,3g2,mj2", "a.MOV", "mov"),
        ("mov,mp4,m4a,3gp,3g2,mj2", ".m4v", "m4v"),
        ("mov,mp4,m4a,3gp,3g2,mj2", "m4v", "m4v"),
        ("mov,mp4,m4a,3gp,3g2,mj2", "a.mkv", "mp4"),
        ("mpegts", "a.m2ts", "mpegts"), ("mpegts", "a.ts", "mpegts"),
        ("mpeg", "VTS_01_1.VOB", "vob"), ("mpeg", "a.mpg", "mpeg"),
        ("avi", "a.avi", "avi"), ("asf", "a.wmv", "asf"), ("flv", "a.flv", "flv"),
        ("", "a.avi", "avi"),
    ],
)  # fmt: skip
def test_container_name_from_format_family_and_extension(
    format_name: str, hint: str, container: str
) -> None:
    assert container_name(format_name, hint) == container


def test_bytes_input_and_stream_fallbacks_for_bitrate_and_duration() -> None:
    audio = {"index": 1, "codec_type": "audio", "codec_name": "eac3",
             "channels": 6, "sample_rate": "48000",
             "tags": {"BPS-eng": "640000", "DURATION-eng": "ignored",
                      "DURATION": "01:02:03.500000000", "LANGUAGE": "spa"}}  # fmt: skip
    document = _document(_video(), audio, size="1000000").encode()
    result = parse_probe(document, path_container_hint="a.mkv")
    assert result.runtime_ticks == 3723_5000000
    assert result.bitrate == round(1_000_000 * 8 / 3723.5)
    assert result.streams[1].bitrate == 640000
    assert result.streams[1].language == "spa"
    assert result.streams[1].sample_rate == 48000


def test_format_duration_and_bitrate_win_over_streams() -> None:
    video = _video(duration="99.0")
    result = parse_probe(
        _document(video, duration="12.3456789", bit_rate="5000", size="77"),
        path_container_hint="a.mkv",
    )
    assert (result.runtime_ticks, result.bitrate, result.size) == (123456789, 5000, 77)


def test_unknown_duration_leaves_runtime_and_bitrate_unknown() -> None:
    result = parse_probe(_document(_video(), size="10"), path_container_hint="a.mkv")
    assert result.runtime_ticks is None and result.bitrate is None


def test_data_and_attachment_streams_are_skipped_and_codec_defaults() -> None:
    streams = [
        _video(codec_name=None),
        {"index": 1, "codec_type": "data", "codec_name": "bin_data"},
        {"index": 2, "codec_type": "attachment", "codec_name": "ttf"},
        {"index": 3, "codec_type": "subtitle", "codec_name": "hdmv_pgs_subtitle",
         "tags": {"title": "English (Forced)", "language": "und"},
         "disposition": {"default": 0, "forced": 0, "hearing_impaired": 1}},
    ]  # fmt: skip
    result = parse_probe(_document(*streams), path_container_hint="a.mkv")
    assert [s.index for s in result.streams] == [0, 3]
    assert result.streams[0].codec == "unknown"
    subtitle = result.streams[1]
    assert subtitle.is_forced and subtitle.is_hearing_impaired
    assert subtitle.language is None


@pytest.mark.parametrize(
    ("text", "failure"),
    [
        ("", ProbeFailure.INVALID),
        ("{", ProbeFailure.INVALID),
        (b"\xff\xfe\x00garbage", ProbeFailure.INVALID),
        ("[]", ProbeFailure.INVALID),
        ("{}", ProbeFailure.INVALID),
        ('{"format": "x"}', ProbeFailure.INVALID),
        ('{"format": {"format_name": "matroska,webm"}}', ProbeFailure.NOT_MEDIA),
        ('{"format": {}, "streams": "nope"}', ProbeFailure.NOT_MEDIA),
        (_document({"index": 0, "codec_type": "subtitle", "codec_name": "ass"}),
         ProbeFailure.NOT_MEDIA),
        (_document(_video(), format_name="png_pipe"), ProbeFailure.NOT_MEDIA),
        (_document(_video(), format_name="image2"), ProbeFailure.NOT_MEDIA),
        (_document(_video(), format_name="tty"), ProbeFailure.NOT_MEDIA),
        (_document(_video(disposition={"attached_pic": 1}), format_name="mp3"),
         ProbeFailure.NOT_MEDIA),
    ],
)
def test_unusable_output_raises_probe_error_with_its_failure(
    text: str | bytes, failure: ProbeFailure
) -> None:
    with pytest.raises(ProbeError) as caught:
        parse_probe(text, path_container_hint="a.mkv")
    assert caught.value.failure is failure
    assert caught.value.message


def test_odd_field_types_are_ignored_not_raised() -> None:
    video = _video(width="wide", height=True, bit_rate="NaN", index="0",
                   disposition="none", tags=["x"], side_data_list={"a": 1})  # fmt: skip
    result = parse_probe(
        _document(video, duration="inf", size=None), path_container_hint="a.mkv"
    )
    stream = result.streams[0]
    assert (stream.index, stream.width, stream.height, stream.bitrate) == (0, None, None, None)
    assert result.runtime_ticks is None


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(sorted(_video()) + ["tags", "disposition",
                      "side_data_list", "streams", "format", "duration"]),
                      inner, max_size=6),
    max_leaves=12,
)  # fmt: skip


_json_objects = st.dictionaries(
    st.sampled_from(sorted(_video()) + ["codec_type", "tags", "disposition",
                    "side_data_list", "duration", "format_name", "size"]),
    _json_values | st.sampled_from(["video", "audio", "subtitle", "mov,mp4"]),
    max_size=8,
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    document=_json_values
    | st.fixed_dictionaries({"format": _json_objects, "streams": st.lists(_json_objects)})
)
def test_any_json_gives_a_result_or_a_probe_error(document: object) -> None:
    try:
        parse_probe(json.dumps(document), path_container_hint="a.mkv")
    except ProbeError:
        pass


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
