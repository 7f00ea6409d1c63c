"""probe_worker's wire format: answers are JSON the server checks field by field, never pickles."""

from __future__ import annotations

import pickle

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.media.probe import DynamicRange, MediaStreamInfo, ProbeFailure, ProbeResult, StreamType
from reelhouse.media.probe_worker import FrameDecoder, decode_answer, encode_answer, encode_request

RESULT = ProbeResult(
    container="mkv", format_name="matroska,webm", size=1234, bitrate=5000, runtime_ticks=10_000_000,
    streams=(
        MediaStreamInfo(0, StreamType.VIDEO, "hevc", width=3840, height=2160, resolution_name="4K",
                        color_transfer="smpte2084", dynamic_range=DynamicRange.DOLBY_VISION, is_default=True),
        MediaStreamInfo(1, StreamType.AUDIO, "eac3", bitrate=640000, channels=6, channel_layout="5.1(side)",
                        sample_rate=48000, language="ger", title="Deutsch"),
        MediaStreamInfo(2, StreamType.SUBTITLE, "subrip", language="eng", is_forced=True, is_hearing_impaired=True),
    ),
)  # fmt: skip


def _body(frame: bytes) -> bytes:
    decoder = FrameDecoder()
    decoder.feed(frame)
    body = decoder.next_body()
    assert body is not None
    return body


def test_a_result_survives_the_wire_unchanged() -> None:
    assert decode_answer(_body(encode_answer(("ok", RESULT)))) == ("ok", RESULT)


def test_failures_and_ready_survive_the_wire() -> None:
    assert decode_answer(_body(encode_answer(("failed", ("invalid", "moov atom not found"))))) == (
        "failed", (ProbeFailure.INVALID, "moov atom not found"),
    )  # fmt: skip
    assert decode_answer(_body(encode_answer(("ready", {"av": "18.1.0"})))) == ("ready", {"av": "18.1.0"})


def test_text_that_json_cannot_carry_fails_that_file_only() -> None:
    odd = ProbeResult("\udcff", "avi", None, None, None, RESULT.streams)  # a surrogate-escaped name
    kind, (failure, _message) = decode_answer(_body(encode_answer(("ok", odd))))
    assert (kind, failure) == ("failed", ProbeFailure.UNKNOWN)


class _Boom:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("a pickle ran code",))


@pytest.mark.parametrize(
    "body",
    [
        pickle.dumps(("ok", RESULT)),
        pickle.dumps(_Boom()),
        b"",
        b"{}",
        orjson.dumps(["ok", ["mkv", "matroska", 1, 2, 3, [[0, "Video"]]]]),
        orjson.dumps(["ok", ["mkv", "matroska", True, 2, 3, []]]),
        orjson.dumps(["ok", ["mkv", "matroska", 1, 2, 3, [[0, "Picture", *[None] * 15]]]]),
        orjson.dumps(["failed", "exploded", "?"]),
        orjson.dumps(["hello"]),
    ],
)
def test_anything_else_is_refused(body: bytes) -> None:
    with pytest.raises(ValueError):
        decode_answer(body)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=5) | st.sampled_from(["ok", "failed", "ready", "Video"]),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | _json.map(orjson.dumps))
def test_any_bytes_decode_to_an_answer_or_a_value_error(body: bytes) -> None:
    try:
        decode_answer(body)
    except ValueError:
        pass


def test_requests_and_frames_split_anywhere_are_reassembled() -> None:
    stream = encode_request(["/a.mkv", "/b é.mkv"]) + encode_answer(("ok", RESULT))
    decoder = FrameDecoder()
    bodies = []
    for byte in stream:
        decoder.feed(bytes([byte]))
        while (body := decoder.next_body()) is not None:
            bodies.append(body)
    assert pickle.loads(bodies[0]) == ["/a.mkv", "/b é.mkv"]
    assert decode_answer(bodies[1]) == ("ok", RESULT)


def test_an_oversized_frame_is_refused() -> None:
    decoder = FrameDecoder()
    decoder.feed((1 << 30).to_bytes(4, "big"))
    with pytest.raises(ValueError):
        decoder.next_body()
