"""jellyfin-apiclient-python (PyPI), the published client, against the server over real HTTP."""

from __future__ import annotations

import json
import queue
import subprocess
import time
from typing import Any

import httpx
from jellyfin_apiclient_python import JellyfinClient

from reelhouse.http.jellyfin import ids

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .served import PASSWORD, Served, served  # noqa: F401  (fixtures)

SOCKET_TIMEOUT_S = 20.0


def signed_in_client(served: Served, name: str = "Ann", password: str = PASSWORD, device_id: str = "py-device-1",
                     device_name: str = "Test device") -> JellyfinClient:  # fmt: skip
    client = JellyfinClient(allow_multiple_clients=True)
    client.config.app("Reelhouse tests", "1.0.0", device_name, device_id)
    client.config.data["auth.ssl"] = False
    state = client.auth.connect_to_address(served.url)
    assert state["State"].name == "ServerSignIn", state
    answer = client.auth.login(served.url, name, password)
    assert answer, "the sign-in failed"
    client.authenticate({"Servers": [client.auth.credentials.get_credentials()["Servers"][0]]}, discover=False)
    return client


def test_a_member_signs_in_and_reads_who_they_are(served: Served) -> None:
    client = signed_in_client(served)
    me: dict[str, Any] = client.jellyfin.get_user()
    assert me["Name"] == "Ann"
    assert me["Policy"]["IsAdministrator"] is False
    info = client.jellyfin.get_system_info_new()
    assert info["Version"].startswith("10.")


def test_the_sign_in_is_a_device_row_and_an_activity_entry_of_the_native_api(served: Served) -> None:
    signed_in_client(served, device_id="py-device-audit")
    with served.native() as native:
        devices = native.get("/devices").json()
        activity = native.get("/activity", params={"limit": 50}).json()
    assert any(d["client"] == "Reelhouse tests" and d["device"] == "Test device" for d in _items(devices))
    assert any(e["action"] == "user.login" for e in _items(activity))


def test_a_wrong_password_is_refused_and_recorded(served: Served) -> None:
    client = JellyfinClient(allow_multiple_clients=True)
    client.config.app("Reelhouse tests", "1.0.0", "Test device", "py-device-wrong")
    client.config.data["auth.ssl"] = False
    client.auth.connect_to_address(served.url)
    assert client.auth.login(served.url, "Ann", "not the password") == {}


def test_public_users_leave_out_hidden_members(served: Served) -> None:
    names = {u["Name"] for u in httpx.get(f"{served.url}/Users/Public").json()}
    assert "Ann" in names and "Bob" not in names


def test_paths_match_in_any_case_and_under_emby(served: Served) -> None:
    for path in ("/system/info/public", "/SYSTEM/INFO/PUBLIC", "/emby/System/Info/Public", "/System/Info/Public/"):
        answer = httpx.get(f"{served.url}{path}")
        assert answer.status_code == 200, path
        assert answer.json()["ProductName"] == "Jellyfin Server"


def test_a_request_without_a_token_is_401_in_jellyfins_error_shape(served: Served) -> None:
    answer = httpx.get(f"{served.url}/System/Info")
    assert answer.status_code == 401
    assert answer.json()["status"] == 401


def _items(page: Any) -> list[dict[str, Any]]:
    return (page.get("items") or page.get("entries") or []) if isinstance(page, dict) else page


def views_by_name(client: JellyfinClient) -> dict[str, dict[str, Any]]:
    return {view["Name"]: view for view in client.jellyfin.get_views()["Items"]}


def the_series(client: JellyfinClient) -> dict[str, Any]:
    shows = views_by_name(client)["Shows"]
    found = client.jellyfin.get_user_items(parent_id=shows["Id"], include_item_types="Series")["Items"]
    assert [s["Name"] for s in found] == ["Severance"]
    return found[0]


def the_episodes(client: JellyfinClient) -> list[dict[str, Any]]:
    series = the_series(client)
    seasons = client.jellyfin.get_seasons(series["Id"])["Items"]
    assert [s["IndexNumber"] for s in seasons] == [1]
    episodes = client.jellyfin.get_episodes(series["Id"], season_id=seasons[0]["Id"])["Items"]
    assert all(e["SeasonId"] == seasons[0]["Id"] and e["SeriesId"] == series["Id"] for e in episodes)
    return episodes


def test_views_are_the_members_libraries(served: Served) -> None:
    views = views_by_name(signed_in_client(served))
    assert {name: v["CollectionType"] for name, v in views.items()} == {"Films": "movies", "Shows": "tvshows"}
    assert all(v["Type"] == "CollectionFolder" and len(v["Id"]) == 32 for v in views.values())


def test_a_member_browses_movies_with_counts_and_paging(served: Served) -> None:
    client = signed_in_client(served)
    films = views_by_name(client)["Films"]
    page = client.jellyfin.get_user_items(parent_id=films["Id"], include_item_types="Movie", recursive=True,
                                          sort_by="SortName", limit=10, start_index=0)  # fmt: skip
    assert page["TotalRecordCount"] == 1
    movie = page["Items"][0]
    assert movie["Name"] == "Arrival" and movie["ProductionYear"] == 2016 and movie["Type"] == "Movie"
    assert movie["UserData"]["Played"] is False and "Primary" in movie["ImageTags"]
    assert client.jellyfin.get_user_items(parent_id=films["Id"], include_item_types="Audio")["Items"] == []


def test_a_member_browses_a_series_seasons_and_episodes_in_order(served: Served) -> None:
    episodes = the_episodes(signed_in_client(served))
    assert [(e["ParentIndexNumber"], e["IndexNumber"]) for e in episodes] == [(1, 1), (1, 2), (1, 3)]
    assert all(e["SeriesName"] == "Severance" for e in episodes)


def test_an_item_in_full_has_media_sources_from_the_probe(served: Served) -> None:
    client = signed_in_client(served)
    episode = the_episodes(client)[0]
    full = client.jellyfin.get_item(episode["Id"])
    assert full["Id"] == episode["Id"]
    source = full["MediaSources"][0]
    kinds = {s["Type"] for s in source["MediaStreams"]}
    assert {"Video", "Audio"} <= kinds
    assert source["SupportsDirectPlay"] is True and source["SupportsTranscoding"] is False


def test_images_are_served_resized_by_the_image_route(served: Served) -> None:
    client = signed_in_client(served)
    series = the_series(client)
    url = client.jellyfin.image_url(series["Id"], "Primary", tag=series["ImageTags"]["Primary"], max_width=100)
    answer = httpx.get(url)
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/jpeg"
    assert answer.headers["cache-control"].startswith("public")
    filled = httpx.get(f"{served.url}/Items/{series['Id']}/Images/Primary",
                       params={"fillWidth": 40, "fillHeight": 60, "quality": 90, "tag": series["ImageTags"]["Primary"]},
                       headers={"X-Emby-Token": client.config.data["auth.token"]})  # fmt: skip
    assert filled.status_code == 200 and filled.headers["content-type"] == "image/jpeg"
    assert filled.content != answer.content  # another rendition
    assert httpx.get(client.jellyfin.image_url(series["Id"], "Logo")).status_code == 404


def test_a_member_plays_the_stream_and_seeks_in_it(served: Served) -> None:
    client = signed_in_client(served)
    episode = the_episodes(client)[0]
    info = client.jellyfin.get_play_info(episode["Id"])
    assert info["PlaySessionId"] and info["MediaSources"][0]["SupportsDirectPlay"] is True
    url = client.jellyfin.video_url(episode["Id"], info["MediaSources"][0]["Id"])
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", url],
                           capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert float(json.loads(probe.stdout)["format"]["duration"]) > 0.5
    seek = subprocess.run(["ffmpeg", "-v", "error", "-ss", "0.5", "-i", url, "-frames:v", "1", "-f", "null", "-"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert seek.returncode == 0, seek.stderr
    ranged = httpx.get(url, headers={"Range": "bytes=10-19"})
    assert ranged.status_code == 206 and len(ranged.content) == 10


def test_search_hints_find_an_item_by_name(served: Served) -> None:
    client = signed_in_client(served)
    hints = client.jellyfin._get("Search/Hints", {"searchTerm": "arriv"})["SearchHints"]
    assert [h["Name"] for h in hints] == ["Arrival"]


def test_another_members_libraries_are_404_as_natively(served: Served) -> None:
    client = signed_in_client(served)
    movie = client.jellyfin.get_user_items(include_item_types="Movie", recursive=True)["Items"][0]
    bob = signed_in_client(served, name="Bob", device_id="py-device-bob")
    assert bob.jellyfin.get_views()["Items"] == []
    answer = httpx.get(f"{served.url}/Items/{movie['Id']}", headers={"X-Emby-Token": bob.config.data["auth.token"]})
    assert answer.status_code == 404


def test_a_member_stops_half_way_resumes_finishes_and_next_up_moves_on(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-journey")
    first, second = the_episodes(client)[:2]
    report = {"ItemId": first["Id"], "PlaySessionId": "journey-1", "PositionTicks": 0, "PlayMethod": "DirectPlay"}
    client.jellyfin.session_playing(report)
    with served.native() as native:
        live = native.get("/admin/playback/sessions").json()
    assert any(s["itemId"] == ids.item_id(first["Id"]) for s in _items(live))
    client.jellyfin.session_progress({**report, "PositionTicks": 5_000_000, "IsPaused": True})
    client.jellyfin.session_stop({**report, "PositionTicks": 5_000_000})
    resume = client.jellyfin.get_resume_items()["Items"]
    assert [(r["Id"], r["UserData"]["PlaybackPositionTicks"]) for r in resume] == [(first["Id"], 5_000_000)]
    client.jellyfin.item_played(first["Id"], True)
    assert client.jellyfin.get_item(first["Id"])["UserData"]["Played"] is True
    assert client.jellyfin.get_resume_items()["Items"] == []
    assert [n["Id"] for n in client.jellyfin.get_next(limit=5)["Items"]] == [second["Id"]]
    client.jellyfin.favorite(second["Id"])
    assert client.jellyfin.get_item(second["Id"])["UserData"]["IsFavorite"] is True
    favourites = client.jellyfin.get_user_items(filters="IsFavorite", recursive=True)["Items"]
    assert [f["Id"] for f in favourites] == [second["Id"]]
    played = client.jellyfin.get_user_items(filters="IsPlayed", recursive=True, include_item_types="Episode")
    assert [p["Id"] for p in played["Items"]] == [first["Id"]]
    client.jellyfin.item_played(first["Id"], False)
    client.jellyfin.favorite(second["Id"], False)


def test_an_administrators_stop_reaches_the_clients_socket_as_playstate_stop(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-socket")
    received: queue.Queue[tuple[str, Any]] = queue.Queue()
    client.callback = lambda message, data: received.put((message, data))
    episode = the_episodes(client)[2]
    client.start(websocket=True)
    try:
        _wait_for(received, "WebSocketConnect")
        client.jellyfin.session_playing({"ItemId": episode["Id"], "PlaySessionId": "socket-1", "PositionTicks": 0})
        with served.native() as native:
            session = _wait_until_stoppable(native, ids.item_id(episode["Id"]))
            assert native.post(f"/admin/playback/sessions/{session}/stop").status_code == 204
        assert _wait_for(received, "Playstate") == {"Command": "Stop", "ServerId": client.auth.server_id}
    finally:
        client.stop()


def _wait_for(received: queue.Queue[tuple[str, Any]], wanted: str) -> Any:
    deadline = time.monotonic() + SOCKET_TIMEOUT_S
    while (left := deadline - time.monotonic()) > 0:
        message, data = received.get(timeout=left)
        if message == wanted:
            return data
    raise AssertionError(f"no {wanted} within {SOCKET_TIMEOUT_S} s")


def _wait_until_stoppable(native: httpx.Client, item_id: str) -> str:
    deadline = time.monotonic() + SOCKET_TIMEOUT_S
    while time.monotonic() < deadline:
        for session in _items(native.get("/admin/playback/sessions").json()):
            if session["itemId"] == item_id and session.get("stoppable"):
                return str(session["id"])
        time.sleep(0.05)
    raise AssertionError("the session never became stoppable")


def test_a_revoked_device_is_refused_on_its_next_request_on_both_surfaces(served: Served) -> None:
    client = signed_in_client(served, device_id="py-device-revoked", device_name="Revoked device")
    token = client.config.data["auth.token"]
    assert httpx.get(f"{served.url}/Users/Me", headers={"X-Emby-Token": token}).status_code == 200
    with served.native() as native:
        device = next(d for d in _items(native.get("/devices").json()) if d["device"] == "Revoked device")
        assert native.delete(f"/devices/{device['id']}").status_code == 204
    assert httpx.get(f"{served.url}/Users/Me", headers={"X-Emby-Token": token}).status_code == 401
    native_items = httpx.get(f"{served.server.api_url}/items", headers={"Authorization": f"Bearer {token}"})
    assert native_items.status_code == 401


def test_an_api_key_sees_every_library_and_the_live_sessions(served: Served) -> None:
    key = {"X-Emby-Token": served.server.key}
    views = httpx.get(f"{served.url}/UserViews", headers=key).json()["Items"]
    assert {v["Name"] for v in views} == {"Films", "Shows"}
    client = signed_in_client(served, device_id="py-device-dashboard")
    episode = the_episodes(client)[1]
    client.jellyfin.session_playing({"ItemId": episode["Id"], "PlaySessionId": "dashboard-1", "PositionTicks": 0})
    sessions = httpx.get(f"{served.url}/Sessions", headers=key).json()
    mine = [s for s in sessions if s.get("PlaySessionId") == "dashboard-1"]
    assert [s["NowPlayingItem"]["Id"] for s in mine] == [episode["Id"]]
    assert (mine[0]["NowPlayingItem"]["Name"], mine[0]["NowPlayingItem"]["SeriesName"]) == (episode["Name"], "Severance")
    assert mine[0]["UserName"] == "Ann"
    client.jellyfin.session_stop({"ItemId": episode["Id"], "PlaySessionId": "dashboard-1", "PositionTicks": 0})
    assert httpx.get(f"{served.url}/Sessions", headers={"X-Emby-Token": client.config.data["auth.token"]}).status_code == 403


def test_latest_per_view_shows_new_episodes_as_their_series(served: Served) -> None:
    client = signed_in_client(served)
    views = views_by_name(client)
    shows = client.jellyfin.get_recently_added(parent_id=views["Shows"]["Id"], limit=16, fields="")
    films = client.jellyfin.get_recently_added(parent_id=views["Films"]["Id"], limit=16, fields="")
    assert [(s["Name"], s["Type"]) for s in shows] == [("Severance", "Series")]
    assert [(f["Name"], f["Type"]) for f in films] == [("Arrival", "Movie")]
    everything = client.jellyfin.get_recently_added(limit=16, fields="")
    assert {item["Name"] for item in everything} == {"Severance", "Arrival"}


def test_an_external_subtitle_file_is_served_by_its_delivery_url(served: Served) -> None:
    client = signed_in_client(served)
    movie = client.jellyfin.get_user_items(include_item_types="Movie", recursive=True)["Items"][0]
    source = client.jellyfin.get_play_info(movie["Id"])["MediaSources"][0]
    external = [s for s in source["MediaStreams"] if s["Type"] == "Subtitle" and s["IsExternal"]]
    assert len(external) == 1 and external[0]["DeliveryMethod"] == "External"
    answer = httpx.get(served.url + external[0]["DeliveryUrl"], headers={"X-Emby-Token": client.config.data["auth.token"]})
    assert answer.status_code == 200 and "Hello" in answer.text
