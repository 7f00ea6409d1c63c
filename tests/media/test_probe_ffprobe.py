"""ffprobe's command line, its real output on real media, and hand-written ffprobe JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.media.probe import (
    DynamicRange,
    ProbeError,
    ProbeFailure,
    StreamType,
    classify_probe_failure,
    container_name,
    resolution_name,
)
from reelhouse.media.probe_ffprobe import ffprobe_args, parse_probe

from .probe_samples import Probed, needs_ffmpeg, parsed_sample, run_ffmpeg, run_ffprobe, samples  # noqa: F401 (fixture)

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
    probed = run_ffprobe(Path("http://127.0.0.1:9/a.mkv"))
    assert probed.returncode != 0
    assert "No such file or directory" in probed.stderr


# -- real ffprobe output --------------------------------------------------


def test_mkv_with_dash_and_colon_in_its_name_probes(samples: dict[str, Probed]) -> None:
    result = parsed_sample(samples, "mkv")
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
    video = parsed_sample(samples, "mkv").streams[0]
    assert (video.index, video.codec, video.width, video.height) == (0, "h264", 320, 240)
    assert video.resolution_name == "SD"
    assert video.dynamic_range is DynamicRange.SDR
    assert video.channels is None and video.language is None


def test_mkv_audio_stream_language_is_normalised_to_639_2b(
    samples: dict[str, Probed],
) -> None:
    audio = parsed_sample(samples, "mkv").streams[1]
    assert (audio.codec, audio.channels, audio.sample_rate) == ("aac", 1, 48000)
    assert audio.channel_layout == "mono"
    assert audio.language == "ger"
    assert audio.title == "Stereo"
    assert audio.is_default and not audio.is_forced
    assert audio.width is None and audio.resolution_name is None
    assert audio.dynamic_range is None


def test_mkv_subtitle_stream_is_forced_english_subrip(samples: dict[str, Probed]) -> None:
    subtitle = parsed_sample(samples, "mkv").streams[2]
    assert (subtitle.index, subtitle.codec) == (2, "subrip")
    assert subtitle.language == "eng"
    assert subtitle.is_forced and not subtitle.is_default
    assert subtitle.title == "Signs"


def test_mp4_family_takes_the_extension_and_wide_video_is_720p(
    samples: dict[str, Probed],
) -> None:
    result = parsed_sample(samples, "mp4")
    assert result.container == "m4v"
    video, audio = result.streams
    assert (video.width, video.height, video.resolution_name) == (1280, 536, "720p")
    assert audio.language == "fre"
    assert audio.bitrate and audio.bitrate > 0
    assert (audio.channels, audio.channel_layout) == (2, "stereo")


def test_transport_stream_is_mpegts_and_hlg_is_detected(samples: dict[str, Probed]) -> None:
    result = parsed_sample(samples, "ts")
    assert result.container == "mpegts"
    assert result.streams[0].color_transfer == "arib-std-b67"
    assert result.streams[0].dynamic_range is DynamicRange.HLG


def test_cover_art_is_not_a_video_stream(samples: dict[str, Probed]) -> None:
    result = parsed_sample(samples, "cover")
    assert [s.type for s in result.streams] == [StreamType.AUDIO]
    assert result.container == "m4a"


def test_hevc_with_pq_transfer_is_hdr10(samples: dict[str, Probed]) -> None:
    if "hdr10" not in samples:
        pytest.skip("ffmpeg has no libx265 encoder")
    video = parsed_sample(samples, "hdr10").streams[0]
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
    | st.dictionaries(st.sampled_from([*sorted(_video()), "tags", "disposition",
                      "side_data_list", "streams", "format", "duration"]),
                      inner, max_size=6),
    max_leaves=12,
)  # fmt: skip


_json_objects = st.dictionaries(
    st.sampled_from([*sorted(_video()), "codec_type", "tags", "disposition",
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
