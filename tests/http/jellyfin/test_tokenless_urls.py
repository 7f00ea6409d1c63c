"""Images and external subtitles without a token (an ``<img>`` tag, a player handed a subtitle's
``DeliveryUrl``: no header) with the ``tag`` this server handed out (issue 27: signed tags,
docs/players.md), over real HTTP, with the published jellyfin-apiclient-python
building the URLs: the tag opens that image or subtitle of that item only, and a new poster has a
new tag."""

from __future__ import annotations

import io
import time
from typing import Any

import httpx
from PIL import Image

from ...media_factory import MediaFactory
from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .served import SCAN_TIMEOUT_S, Served, served, wait_for_scan  # noqa: F401  (fixtures)
from .test_python_client import signed_in_client, the_series


def movie_of(client: Any) -> dict[str, Any]:
    found = client.jellyfin.get_user_items(include_item_types="Movie", recursive=True)["Items"]
    assert [m["Name"] for m in found] == ["Arrival"]
    return dict(found[0])


def tokenless_url(client: Any, item_id: str, **params: Any) -> str:
    """The URL the client builds for an ``<img>`` tag: no api_key in it."""
    return str(client.jellyfin.image_url(item_id, include_apikey=False, **params))


def rescan(native: httpx.Client, library_id: str) -> None:
    """Scan the library again and wait for that scan (not the last one) to end."""
    before = status_of(native, library_id).get("finishedAt")
    assert native.post(f"/libraries/{library_id}/scan", json={"mode": "full"}).status_code == 200
    deadline = time.monotonic() + SCAN_TIMEOUT_S
    while status_of(native, library_id).get("finishedAt") == before:
        assert time.monotonic() < deadline, "the scan did not end"
        time.sleep(0.05)
    wait_for_scan(native, library_id)


def status_of(native: httpx.Client, library_id: str) -> dict[str, Any]:
    return dict(next(s for s in native.get("/scans/status").json() if s["libraryId"] == library_id))


def test_a_tokenless_image_request_needs_the_tag_handed_out_for_that_image(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-tags")
    movie, series = movie_of(client), the_series(client)
    movie_tag, series_tag = movie["ImageTags"]["Primary"], series["ImageTags"]["Primary"]
    assert len(movie_tag) == 32 and movie_tag != series_tag

    shown = httpx.get(tokenless_url(client, movie["Id"], tag=movie_tag, max_width=80))
    assert shown.status_code == 200 and shown.headers["content-type"] == "image/jpeg"
    assert shown.headers["cache-control"].startswith("public")  # the current tag: immutable
    for url in (
        tokenless_url(client, movie["Id"]),  # no tag
        tokenless_url(client, movie["Id"], tag="0" * 32),  # a made-up one
        tokenless_url(client, movie["Id"], tag=movie_tag[:-1]),
        tokenless_url(client, movie["Id"], tag=series_tag),  # another item's
        tokenless_url(client, series["Id"], tag=movie_tag),
        tokenless_url(client, movie["Id"], image_type="Backdrop", tag=movie_tag),  # another image of it
        tokenless_url(client, movie["Id"], image_type="Primary", index=1, tag=movie_tag),
        tokenless_url(client, "0" * 32, tag=movie_tag),  # no such item: 401 too, nothing told
    ):
        answer = httpx.get(url)
        assert answer.status_code == 401, url
    assert httpx.head(tokenless_url(client, series["Id"], tag=series_tag)).status_code == 200
    assert httpx.get(f"{served.url}/emby/items/{series['Id']}/images/primary", params={"tag": series_tag}).status_code == 200


def test_a_token_still_opens_images_without_a_tag_and_holds_the_library_rules(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-tags-token")
    movie = movie_of(client)
    token = {"X-Emby-Token": client.config.data["auth.token"]}
    plain = httpx.get(f"{served.url}/Items/{movie['Id']}/Images/Primary", headers=token)
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
    bob = signed_in_client(served, name="Bob", device_id="py-device-tags-bob")  # sees no library
    refused = httpx.get(f"{served.url}/Items/{movie['Id']}/Images/Primary", params={"tag": movie["ImageTags"]["Primary"]},
                        headers={"X-Emby-Token": bob.config.data["auth.token"]})  # fmt: skip
    assert refused.status_code == 404
    assert httpx.get(f"{served.url}/Items/{movie['Id']}/Images/Primary", headers={"X-Emby-Token": "rhd_nope"}).status_code == 401


def test_the_indexed_image_route_scales_to_max_height(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-tags-indexed")
    series = the_series(client)
    url = f"{served.url}/Items/{series['Id']}/Images/Primary/0"
    answer = httpx.get(url, params={"maxHeight": 90, "tag": series["ImageTags"]["Primary"]})
    assert answer.status_code == 200
    assert Image.open(io.BytesIO(answer.content)).size == (60, 90)  # 200 x 300, aspect kept
    token = {"X-Emby-Token": client.config.data["auth.token"]}
    assert httpx.get(f"{served.url}/Items/{series['Id']}/Images/Primary/1", headers=token).status_code == 404


def test_a_new_poster_gets_a_new_tag_and_the_old_one_opens_nothing(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-tags-new")
    movie = movie_of(client)
    old_tag = movie["ImageTags"]["Primary"]
    old = httpx.get(tokenless_url(client, movie["Id"], tag=old_tag))
    assert old.status_code == 200
    MediaFactory.image(served.media_root / "Movies" / "Arrival (2016)" / "poster.jpg", color="orange")
    with served.native() as native:
        rescan(native, served.movies_id)
    new_tag = movie_of(client)["ImageTags"]["Primary"]
    assert new_tag != old_tag
    assert httpx.get(tokenless_url(client, movie["Id"], tag=old_tag)).status_code == 401
    new = httpx.get(tokenless_url(client, movie["Id"], tag=new_tag))
    assert new.status_code == 200 and new.content != old.content


def test_a_subtitles_delivery_url_is_fetched_with_no_header_and_only_as_handed_out(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-subtitle")
    movie = movie_of(client)
    source = client.jellyfin.get_play_info(movie["Id"])["MediaSources"][0]
    external = [s for s in source["MediaStreams"] if s["Type"] == "Subtitle" and s["IsExternal"]]
    url = external[0]["DeliveryUrl"]
    assert client.config.data["auth.token"] not in url and "api_key" not in url.lower()
    answer = httpx.get(served.url + url)  # what a player handed the URL does: no header at all
    assert answer.status_code == 200 and "Hello" in answer.text
    path, tag = url.split("?tag=")
    other_index = path.replace(f"/Subtitles/{external[0]['Index']}/", f"/Subtitles/{external[0]['Index'] + 1}/")
    for wrong in (path, f"{path}?tag={'0' * 32}", f"{path}?tag={tag[:-1]}", f"{other_index}?tag={tag}",
                  url.replace(movie["Id"], "0" * 32)):  # fmt: skip
        assert httpx.get(served.url + wrong).status_code == 401, wrong
    token = {"X-Emby-Token": client.config.data["auth.token"]}
    assert httpx.get(served.url + path, headers=token).status_code == 200  # a token needs no tag
