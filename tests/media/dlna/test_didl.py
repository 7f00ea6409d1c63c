"""DIDL-Lite documents: what televisions read, readable by a published DIDL-Lite parser."""

from __future__ import annotations

import didl_lite.didl_lite as didl_lite

from reelhouse.media.dlna.didl import (
    MOVIE_CLASS,
    VIDEO_CLASS,
    Container,
    VideoItem,
    document,
    duration,
    protocol_info,
)


def test_duration_is_hours_minutes_seconds_and_milliseconds() -> None:
    assert duration(0) == "0:00:00.000"
    assert duration(10_000_000 * 3725 + 5_000_000) == "1:02:05.500"


def test_protocol_info_allows_byte_seeking_and_streaming() -> None:
    info = protocol_info("video/mp4")
    assert info.startswith("http-get:*:video/mp4:DLNA.ORG_OP=01;DLNA.ORG_CI=0;DLNA.ORG_FLAGS=")
    assert len(info.rpartition("DLNA.ORG_FLAGS=")[2]) == 32


def test_containers_and_items_read_back_strictly_with_python_didl_lite() -> None:
    objects: list[Container | VideoItem] = [
        Container("lib.1", "0", "Films & <Shows>", child_count=2, album_art_url="http://h/a?x=1&y=2"),
        VideoItem("m1", "lib.1", 'Amélie "2001"', MOVIE_CLASS, "http://h/dlna/media/m1", "video/x-matroska",
                  date="2001-04-25", runtime_ticks=10_000_000 * 7200, width=1920, height=1080, size=123,
                  album_art_url="http://h/dlna/art/m1"),
        VideoItem("e1", "s1", "No file", VIDEO_CLASS, None, "video/mpeg"),
    ]
    read = didl_lite.from_xml_string(document(objects), strict=True)
    folder, movie, episode = read
    assert isinstance(folder, didl_lite.StorageFolder) and folder.title == "Films & <Shows>"
    assert folder.child_count == "2" and folder.album_art_uri == "http://h/a?x=1&y=2"
    assert isinstance(movie, didl_lite.Movie) and movie.title == 'Amélie "2001"' and movie.date == "2001-04-25"
    resource = movie.res[0]
    assert (resource.uri, resource.size, resource.duration, resource.resolution) == (
        "http://h/dlna/media/m1", "123", "2:00:00.000", "1920x1080")
    assert isinstance(episode, didl_lite.VideoItem) and episode.res == []
