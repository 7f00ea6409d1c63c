"""Nothing outside a library's folders is served through the Jellyfin surface (issue 27, item 3): not a
stream, a download or an external subtitle, whatever the catalogue says or a symbolic link points at,
and a member's answers never show a local path; over real HTTP on both backends."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import trio

from reelhouse.http.jellyfin import ids
from reelhouse.storage import open_store

from ...catalog_factory import catalog
from ..conftest import RunningServer
from ..members import add_member
from .surface import PASSWORD, jellyfin, real_id, sign_in

LIMIT_S = 60
VIDEO_BYTES = b"\x1a\x45\xdf\xa3" + bytes(range(256)) * 4  # what the stream route serves, as it is


@dataclass(frozen=True)
class Files:
    root: Path
    inside: str  # a movie whose file and subtitles are in the library
    escaped: str  # a movie whose file the catalogue places outside it
    linked: str  # a movie whose file is a symbolic link out of it


async def files_in_and_out(server: RunningServer, tmp_path: Path) -> Files:
    root, outside = tmp_path / "library", tmp_path / "outside"
    (root / "Inside").mkdir(parents=True)
    outside.mkdir()
    (root / "Inside" / "Inside.mkv").write_bytes(VIDEO_BYTES)
    (root / "Inside" / "Inside.en.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nInside\n")
    (outside / "secret.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nSecret\n")
    (outside / "Escaped.mkv").write_bytes(VIDEO_BYTES)
    (root / "Inside" / "linked.srt").symlink_to(outside / "secret.srt")
    (root / "Linked.mkv").symlink_to(outside / "Escaped.mkv")
    async with open_store(server.database_url) as store:
        async with catalog(store) as cat:
            library = cat.library("Films", "movies")
            inside, escaped = cat.movie(library, "Inside", id=real_id()), cat.movie(library, "Escaped", id=real_id())
            linked = cat.movie(library, "Linked", id=real_id())
            source = real_id()  # a GUID of its own spells it back (DeliveryUrl)
            cat.source(inside, path=str(root / "Inside" / "Inside.mkv"), size=len(VIDEO_BYTES), id=source)
            cat.stream(source, "Video", "h264", 0, width=640, height=360)
            for idx, path in ((2, root / "Inside" / "Inside.en.srt"), (3, outside / "secret.srt"),
                              (4, root / "Inside" / "linked.srt"), (5, root / ".." / "outside" / "secret.srt")):
                cat.stream(source, "Subtitle", "subrip", idx, is_external=True, external_path=str(path))  # fmt: skip
            cat.source(escaped, path=str(outside / "Escaped.mkv"), size=len(VIDEO_BYTES))
            cat.source(linked, path=str(root / "Linked.mkv"), size=len(VIDEO_BYTES))
        await store.execute("UPDATE library_paths SET path = ? WHERE library_id = ?", (str(root), library))
    return Files(root, ids.item_guid(inside), ids.item_guid(escaped), ids.item_guid(linked))


async def test_only_files_inside_the_library_are_streamed_downloaded_or_read_as_subtitles(
    server: RunningServer, tmp_path: Path
) -> None:
    files = await files_in_and_out(server, tmp_path)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Ann")) as ann:
        with trio.fail_after(LIMIT_S):
            info = await ann.get(f"/Items/{files.inside}/PlaybackInfo")
            assert info.status_code == 200
            subtitles = {s["Index"]: s["DeliveryUrl"] for s in info.json()["MediaSources"][0]["MediaStreams"]
                         if s["Type"] == "Subtitle"}  # fmt: skip
            assert sorted(subtitles) == [2, 3, 4, 5]
            read = {index: await ann.get(url) for index, url in subtitles.items()}
            assert read[2].status_code == 200 and "Inside" in read[2].text
            for index in (3, 4, 5):
                assert read[index].status_code == 404 and "Secret" not in read[index].text, index

            stream = await ann.get(f"/Videos/{files.inside}/stream.mkv", params={"static": "true"})
            assert stream.status_code == 200 and stream.content == VIDEO_BYTES
            again = await ann.get(f"/Videos/{files.inside}/stream", headers={"If-None-Match": stream.headers["ETag"]})
            assert again.status_code == 304
            ranged = await ann.get(f"/Videos/{files.inside}/stream", headers={"Range": "bytes=4-7"})
            assert ranged.status_code == 206 and ranged.content == VIDEO_BYTES[4:8]
            download = await ann.get(f"/Items/{files.inside}/Download")
            assert download.status_code == 200 and download.headers["Content-Disposition"] == "attachment"
            for movie in (files.escaped, files.linked):
                for path in (f"/Videos/{movie}/stream", f"/Videos/{movie}/stream.mkv", f"/Items/{movie}/Download"):
                    assert (await ann.get(path, params={"static": "true"})).status_code == 404, path

            detail = await ann.get(f"/Items/{files.inside}", params={"Fields": "MediaSources,Path"})
            page = await ann.get("/Items", params={"Recursive": "true", "Fields": "MediaSources,Path,MediaStreams"})
            for answer in (info, detail, page):
                assert str(tmp_path) not in answer.text
                assert '"Path"' not in json.dumps(answer.json())
