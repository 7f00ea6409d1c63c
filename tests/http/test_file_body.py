"""Stored images streamed by GET /images/items/{id}: ranges across chunks, If-Range, hung mounts."""

from __future__ import annotations

import random

import httpx
import pytest

from reelhouse.http import file_body
from reelhouse.http import image_sources as image_sources_module

from .image_server import (  # noqa: F401 (fixtures)
    Api,
    HungMount,
    api,
    assert_error,
    hung_mount,
    start,
)

# -- ranges --------------------------------------------------------------------------------


@pytest.mark.parametrize("params", [{}, {"maxWidth": "64"}])
async def test_a_single_range_gives_206_with_content_range(api: Api, params: dict[str, str]) -> None:
    whole = (await api.get(**params)).content
    part = await api.get(headers={"Range": "bytes=10-29"}, **params)
    assert part.status_code == 206 and part.content == whole[10:30]
    assert part.headers["content-range"] == f"bytes 10-29/{len(whole)}"
    tail = await api.get(headers={"Range": "bytes=-5"}, **params)
    assert tail.content == whole[-5:]


async def test_a_stored_file_of_many_chunks_is_served_whole_and_in_ranges_across_them(api: Api) -> None:
    chunk = file_body.READ_CHUNK_BYTES
    stored = b"\xff\xd8\xff" + random.Random(7).randbytes(3 * chunk)  # JPEG magic, then noise
    path = api.media / "big-thumb.jpg"
    path.write_bytes(stored)
    await api.add_image("thumb", 0, path, "bigthumb")
    whole = await api.get(kind="thumb")
    assert whole.status_code == 200 and whole.content == stored
    assert whole.headers["content-type"] == "image/jpeg"
    first, last = chunk - 10, 2 * chunk + 10  # starts in the first chunk, ends in the third
    part = await api.get(kind="thumb", headers={"Range": f"bytes={first}-{last}"})
    assert part.status_code == 206 and part.content == stored[first : last + 1]
    assert part.headers["content-type"] == "image/jpeg"  # sniffed from the file's head, not the range's


@pytest.mark.parametrize("hung", ["_stat", "open"])
async def test_a_stored_image_on_a_hung_mount_is_503_not_a_hung_request(
    api: Api, hung_mount: HungMount, monkeypatch: pytest.MonkeyPatch, hung: str
) -> None:
    if hung == "_stat":
        monkeypatch.setattr(image_sources_module, "_stat", hung_mount.hang(image_sources_module._stat))
    else:
        monkeypatch.setattr(file_body.FileRange, "open", hung_mount.hang(file_body.FileRange.open))
    response = await api.get()
    assert_error(response, 503, "service_unavailable")
    assert response.headers["retry-after"] == str(file_body.RETRY_AFTER_SECONDS)
    if hung == "_stat":  # every image request starts with it, renditions too
        assert_error(await api.get(maxWidth="50"), 503, "service_unavailable")


async def test_a_mount_hanging_mid_file_cuts_the_response_short(
    api: Api, hung_mount: HungMount, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = b"\xff\xd8\xff" + random.Random(7).randbytes(3 * file_body.READ_CHUNK_BYTES)
    path = api.media / "big-thumb.jpg"
    path.write_bytes(stored)
    await api.add_image("thumb", 0, path, "bigthumb")
    monkeypatch.setattr(file_body.FileRange, "read", hung_mount.hang(file_body.FileRange.read, after=1))
    with pytest.raises(httpx.RemoteProtocolError):  # fewer bytes than Content-Length, then the end
        await api.get(kind="thumb")
    hung_mount.release()
    assert (await api.get(kind="thumb")).content == stored  # the file threads still serve


async def test_an_unsatisfiable_range_gives_416_with_the_length(api: Api) -> None:
    size = (api.media / "poster.jpg").stat().st_size
    response = await api.get(headers={"Range": f"bytes={size}-"})
    assert_error(response, 416, "bad_request")
    assert response.headers["content-range"] == f"bytes */{size}"


async def test_if_range_serves_the_range_only_while_the_representation_matches(api: Api) -> None:
    first = await api.get()
    matching = await api.get(headers={"Range": "bytes=0-3", "If-Range": first.headers["etag"]})
    by_date = await api.get(headers={"Range": "bytes=0-3", "If-Range": first.headers["last-modified"]})
    changed = await api.get(headers={"Range": "bytes=0-3", "If-Range": '"an-older-version"'})
    assert (matching.status_code, matching.content) == (206, first.content[:4])
    assert by_date.status_code == 206
    assert (changed.status_code, changed.content) == (200, first.content)
