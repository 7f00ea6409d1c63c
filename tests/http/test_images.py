"""GET /images/items/{id} over a real socket: selection, tags, conditional requests, not found, containment.

Every rule runs on SQLite; the selection smoke test on both backends.
Renditions: test_image_service.py; ranges and hung mounts: test_file_ranges.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import trio
from werkzeug.http import http_date

from reelhouse.http import file_body

from .image_server import (  # noqa: F401 (fixtures)
    LIMIT_S,
    POSTER_TAG,
    URL,
    Api,
    Refusing,
    ServerFactory,
    api,
    assert_error,
    decode,
    refusing,
    shared_images,
    start,
    write_image,
)

# -- selection and originals -------------------------------------------------------


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)
async def test_the_primary_image_is_served_as_stored_by_default(start: ServerFactory, database_url: str) -> None:
    api = await start(database_url=database_url)
    response = await api.get()
    assert response.status_code == 200
    assert response.content == (api.media / "poster.jpg").read_bytes()
    assert response.headers["content-type"] == "image/jpeg"
    assert response.headers["content-length"] == str(len(response.content))
    assert "vary" not in response.headers


async def test_kind_and_index_pick_the_image_served_with_its_own_type(api: Api) -> None:
    png = await api.get(kind="backdrop")
    webp = await api.get(kind="backdrop", index="1")
    assert (png.headers["content-type"], png.content) == ("image/png", (api.media / "fanart.png").read_bytes())
    assert (webp.headers["content-type"], decode(webp).size) == ("image/webp", (320, 180))


@pytest.mark.parametrize(("name", "value"), [("kind", "poster"), ("index", "-1"), ("index", "x"), ("index", "10001")])
async def test_an_unknown_kind_or_bad_index_is_field_invalid(refusing: Refusing, name: str, value: str) -> None:
    assert_error(await refusing.get(**{name: value}), 400, "field_invalid", name)


async def test_every_image_response_has_etag_last_modified_and_accept_ranges(api: Api) -> None:
    modified = datetime.fromtimestamp((api.media / "poster.jpg").stat().st_mtime, UTC)
    for response in (await api.get(), await api.get(maxWidth="50")):
        assert response.headers["etag"].startswith(f'"{POSTER_TAG}')
        assert response.headers["last-modified"] == http_date(modified)
        assert response.headers["accept-ranges"] == "bytes"
    original, rendition = (await api.get()).headers["etag"], (await api.get(maxWidth="50")).headers["etag"]
    assert original == f'"{POSTER_TAG}"' and rendition != original


async def test_an_image_replaced_in_the_catalogue_is_served_new_on_the_next_request(api: Api) -> None:
    """Regression guard for the remembered sources: a catalogue write is seen at once."""
    assert (await api.get(maxWidth="50")).status_code == 200
    first = await api.get()
    assert first.content == (api.media / "poster.jpg").read_bytes()
    replacement = write_image(api.media / "replacement.png", (60, 90), "PNG", color=(10, 200, 10))
    await api.add_image("primary", 0, replacement, "replacementtag")
    second = await api.get()
    assert (second.content, second.headers["etag"]) == (replacement.read_bytes(), '"replacementtag"')
    rendition = await api.get(maxWidth="50")
    assert rendition.headers["etag"].startswith('"replacementtag-') and decode(rendition).getpixel((5, 5))[1] > 150


async def test_an_original_rewritten_on_disk_behind_the_catalogue_is_served_whole(api: Api) -> None:
    """Regression guard: a remembered size must not cut a grown file short (or pad a shrunk one)."""
    poster = api.media / "poster.jpg"
    assert (await api.get()).content == poster.read_bytes()
    write_image(poster, (400, 600), "JPEG", color=(10, 10, 200))  # no rescan: the catalogue is unchanged
    grown = await api.get()
    assert grown.content == poster.read_bytes()
    assert grown.headers["content-length"] == str(poster.stat().st_size)


async def test_an_original_that_keeps_changing_while_read_is_503_with_the_error_body(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looked up anew once; a second change answers 503 with Retry-After, never a wrong length."""
    opened: list[Path] = []

    def always_changed(self: Any, inspect: Any, *, with_body: bool = True) -> tuple[str, bytes]:
        opened.append(self.path)
        raise file_body.SourceChanged()

    monkeypatch.setattr(file_body.FileRange, "open", always_changed)
    response = await api.get()
    assert_error(response, 503, "service_unavailable")
    assert response.headers["retry-after"] == str(file_body.RETRY_AFTER_SECONDS)
    assert len(opened) == 2


# -- tags and cache headers -------------------------------------------------------------


async def test_the_current_tag_makes_the_response_immutable(api: Api) -> None:
    for params in ({"tag": POSTER_TAG}, {"tag": POSTER_TAG, "maxWidth": "90"}):
        assert (await api.get(**params)).headers["cache-control"] == "public, max-age=31536000, immutable"


async def test_a_stale_tag_or_no_tag_serves_the_current_image_to_be_revalidated(api: Api) -> None:
    stale = await api.get(tag="0000000000000000")
    untagged = await api.get()
    assert stale.status_code == 200 and stale.content == untagged.content
    assert stale.headers["cache-control"] == untagged.headers["cache-control"] == "no-cache"


# -- conditional requests ---------------------------------------------------------------


@pytest.mark.parametrize("params", [{}, {"maxWidth": "64"}])
async def test_if_none_match_and_if_modified_since_give_304(api: Api, params: dict[str, str]) -> None:
    first = await api.get(**params)
    by_tag = await api.get(headers={"If-None-Match": first.headers["etag"]}, **params)
    by_date = await api.get(headers={"If-Modified-Since": first.headers["last-modified"]}, **params)
    for response in (by_tag, by_date):
        assert response.status_code == 304 and response.content == b""
        assert response.headers["etag"] == first.headers["etag"]
        assert response.headers["accept-ranges"] == "bytes" and "last-modified" in response.headers


async def test_a_304_never_renders(api: Api) -> None:
    etag = f'"{POSTER_TAG}-77-0-0-0-jpeg"'
    response = await api.get(maxWidth="77", headers={"If-None-Match": etag})
    assert response.status_code == 304 and api.cached_files() == []


@pytest.mark.parametrize("params", [{}, {"maxWidth": "64"}])
async def test_if_match_and_if_unmodified_since_failures_give_412(api: Api, params: dict[str, str]) -> None:
    wrong_tag = await api.get(headers={"If-Match": '"something-else"'}, **params)
    too_old = await api.get(headers={"If-Unmodified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"}, **params)
    for response in (wrong_tag, too_old):
        assert_error(response, 412, "bad_request")
        assert "etag" in response.headers and response.headers["accept-ranges"] == "bytes"
    current = await api.get(**params)
    assert (await api.get(headers={"If-Match": current.headers["etag"]}, **params)).status_code == 200


# -- not found ------------------------------------------------------------------------------


async def test_unknown_item_missing_image_and_vanished_file_are_404(api: Api) -> None:
    assert_error(await api.get("/images/items/nope"), 404, "not_found")
    assert_error(await api.get(kind="logo"), 404, "not_found")
    assert_error(await api.get(kind="backdrop", index="7"), 404, "not_found")
    (api.media / "poster.jpg").unlink()
    assert_error(await api.get(), 404, "not_found")
    assert_error(await api.get(maxWidth="40"), 404, "not_found")


async def test_head_gives_the_headers_without_the_body(api: Api) -> None:
    with trio.fail_after(LIMIT_S):
        response = await api.client.head(URL, params={"maxWidth": "90"})
    assert response.status_code == 200 and response.content == b""
    assert int(response.headers["content-length"]) > 0 and response.headers["etag"]


async def test_head_of_a_stored_image_gives_its_type_and_length_without_the_body(api: Api) -> None:
    size = (api.media / "fanart.png").stat().st_size
    with trio.fail_after(LIMIT_S):
        response = await api.client.head(URL, params={"kind": "backdrop"})
    assert response.status_code == 200 and response.content == b""
    assert response.headers["content-type"] == "image/png"
    assert int(response.headers["content-length"]) == size


# -- containment and sniffing (issue 12, item 1) ------------------------------------------------


async def test_non_image_poster_is_not_served(api: Api) -> None:
    """A catalogued image whose file is no image (whatever its name) is 404, never its bytes."""
    text = api.media / "notes.jpg"
    text.write_bytes(b"root:$6$secret:19000:0:99999:7:::\n")
    await api.add_image("logo", 0, text, "notes0")
    for response in (await api.get(kind="logo"), await api.get(kind="logo", maxWidth="50")):
        assert_error(response, 404, "not_found")
        assert b"secret" not in response.content
    with trio.fail_after(LIMIT_S):
        head = await api.client.head(URL, params={"kind": "logo"})
    assert head.status_code == 404


async def test_image_symlinked_to_secret_is_not_served(api: Api, tmp_path: Path) -> None:
    """A catalogued path that resolves outside the library's roots is 404, even a real image."""
    outside = write_image(tmp_path / "private.jpg", (50, 50), "JPEG", color=(1, 2, 3))
    link = api.media / "linked.jpg"
    link.symlink_to(outside)
    await api.add_image("banner", 0, link, "linked0")
    await api.add_image("art", 0, outside, "outside0")  # not even through a link
    for kind in ("banner", "art"):
        for response in (await api.get(kind=kind), await api.get(kind=kind, maxWidth="20")):
            assert_error(response, 404, "not_found")
            assert outside.read_bytes() not in response.content
