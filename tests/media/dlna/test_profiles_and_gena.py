"""DLNA.ORG_PN profiles where DLNA defines one, and GENA's SUBSCRIBE headers and NOTIFY bodies."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from reelhouse.media.dlna import gena
from reelhouse.media.dlna.profiles import Format, profile


@pytest.mark.parametrize(("media", "expected"), [
    (Format("mp4", "h264", "aac", 320, 240), "AVC_MP4_MP_SD_AAC_MULT5"),
    (Format("m4v", "h264", "aac", 1280, 720), "AVC_MP4_MP_HD_720p_AAC"),
    (Format("mp4", "h264", "aac", 1920, 1080), "AVC_MP4_MP_HD_1080i_AAC"),
    (Format("ts", "mpeg2video", "mp2", 1920, 1080), "MPEG_TS_HD_NA_ISO"),
    (Format("m2ts", "h264", "ac3", 1920, 1080), "AVC_TS_MP_HD_AC3_ISO"),
    (Format("mpg", "mpeg2video", "mp2", 720, 576), "MPEG_PS_PAL"),
    (Format("vob", "mpeg2video", "ac3", 720, 480), "MPEG_PS_NTSC"),
    (Format("mkv", "h264", "aac", 1920, 1080), None),
    (Format("mp4", "hevc", "aac", 1920, 1080), None),
    (Format("mp4", "h264", "aac", 3840, 2160), None),
    (Format("mp4", "h264", "aac", None, None), None),
])  # fmt: skip
def test_a_profile_is_named_only_where_dlna_defines_one(media: Format, expected: str | None) -> None:
    assert profile(media) == expected


def test_callbacks_must_be_http_urls_at_the_subscribers_own_address() -> None:
    assert gena.callbacks("<http://10.0.0.5:4000/ev><http://10.0.0.5:4001/>", "10.0.0.5") == (
        "http://10.0.0.5:4000/ev", "http://10.0.0.5:4001/")  # fmt: skip
    for header in ("<http://10.0.0.6/ev>", "<https://10.0.0.5/ev>", "http://10.0.0.5/ev", "", "<http://10.0.0.5/>" * 5,
                   f"<http://10.0.0.5/{'x' * 600}>"):  # fmt: skip
        with pytest.raises(gena.BadSubscription):
            gena.callbacks(header, "10.0.0.5")


def test_timeouts_are_kept_within_bounds_and_notify_bodies_are_property_sets() -> None:
    assert [gena.timeout_seconds(h) for h in ("Second-300", "Second-5", "Second-99999", "infinite", None)] == [
        300, 60, 1800, 1800, 1800]  # fmt: skip
    body = ElementTree.fromstring(gena.property_set((("SystemUpdateID", "7"), ("ContainerUpdateIDs", "lib.a,3"))))
    values = [child[0].text for child in body]
    assert values == ["7", "lib.a,3"]
