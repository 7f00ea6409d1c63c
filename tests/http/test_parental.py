"""Parental controls hold for a member's device token on the native API and the Jellyfin surface.

A live server (a real process) per backend holds four ffmpeg-made movies
with NFO ratings, genres and tags; Kid sees every library.  Whatever rule
Kid is given (fixed cases, then hypothesis), no blocked movie is reachable
through a list, a detail, a search, an image or a stream, on either
surface, and every admitted one is.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jellyfin_apiclient_python import JellyfinClient

from reelhouse.http.jellyfin import ids
from reelhouse.server_time_zone import server_time_zone
from reelhouse.storage import open_store
from reelhouse.storage.live_sessions import save_live_session
from reelhouse.storage.members import MemberChanges, add_user, find_user_by_name, update_member
from reelhouse.storage.parental_time import live_watched_seconds_since, watched_seconds_since
from reelhouse.storage.play_history import record_playback

from ..conftest import BACKENDS
from ..media_factory import MediaFactory
from ..storage.play_samples import ended
from ..tls import shared_tls_context
from .jellyfin.served import create_library
from .live_server import LiveServer, live_server, module_database

PASSWORD = "correct horse battery"
TIMEOUT_S = 15.0
# name -> (NFO rating, genres, tags); Plain has no NFO: unrated, its library's unratedAge (0) counts.
MOVIES: dict[str, tuple[str | None, tuple[str, ...], tuple[str, ...]]] = {
    "Toy": ("G", ("Animation",), ()),
    "Arrival": ("Rated PG-13", ("Drama",), ("aliens",)),
    "Blood": ("R", ("Horror",), ()),
    "Plain": (None, (), ()),
}
AGES = {"Toy": 0, "Arrival": 13, "Blood": 17, "Plain": 0}
EMPTY_RULE = {"blockedGenres": [], "blockedTags": [], "blockedItems": [], "allowedItems": []}


@dataclass(frozen=True)
class Library:
    server: LiveServer
    database_url: str
    movie_ids: dict[str, str]  # name -> id
    token: str  # Kid's device token


def nfo(rating: str | None, genres: tuple[str, ...], tags: tuple[str, ...], title: str) -> str:
    parts = [f"<title>{title}</title>", *(f"<genre>{g}</genre>" for g in genres), *(f"<tag>{t}</tag>" for t in tags)]
    if rating:
        parts.append(f"<mpaa>{rating}</mpaa>")
    return f"<?xml version='1.0' encoding='UTF-8'?><movie>{''.join(parts)}</movie>"


def make_movies(root: Path, media: MediaFactory) -> Path:
    for year, (name, (rating, genres, tags)) in enumerate(MOVIES.items(), start=2001):
        folder = root / f"{name} ({year})"
        media.video(folder / f"{name} ({year}).mkv")
        MediaFactory.image(folder / "poster.jpg")
        if rating or genres or tags:
            (folder / f"{name} ({year}).nfo").write_text(nfo(rating, genres, tags, name))
    return root


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def library(backend: str, tmp_path_factory: pytest.TempPathFactory, media: MediaFactory) -> Iterator[Library]:
    root = tmp_path_factory.mktemp(f"parental-{backend}")
    movies = make_movies(root / "media", media)
    with module_database(backend, root) as url, live_server(url, root / "data") as server:
        with httpx.Client(verify=shared_tls_context(), base_url=server.api_url, headers=server.auth, timeout=TIMEOUT_S) as client:
            library_id = create_library(client, "Films", movies, "movies")
            page = client.get("/items", params={"libraryId": library_id, "recursive": "true"}).json()
        trio.run(_add_kid, url)
        with httpx.Client(verify=shared_tls_context(), base_url=server.api_url, timeout=TIMEOUT_S) as anonymous:
            login = anonymous.post("/auth/login", json={"name": "Kid", "password": PASSWORD,
                                                        "deviceName": "Tablet", "client": "TestPlayer"})  # fmt: skip
        assert login.status_code == 200, login.text
        yield Library(server, url, {item["name"]: item["id"] for item in page["items"]}, login.json()["token"])


async def _add_kid(database_url: str) -> None:
    async with open_store(database_url) as store:
        await add_user(store, "Kid", is_admin=False, password=PASSWORD)
        await update_member(store, "Kid", MemberChanges(all_libraries=True))


def set_rule(library: Library, raw: dict[str, Any] | None) -> None:
    async def change() -> None:
        async with open_store(library.database_url) as store:
            # Every list given: `parental` fields are merged over the rule already set.
            full = None if raw is None else {**EMPTY_RULE, **raw}
            changes = MemberChanges(clear_parental=True) if full is None else MemberChanges(parental=full)
            await update_member(store, "Kid", changes)

    trio.run(change)


def expected(library: Library, raw: dict[str, Any]) -> set[str]:
    """The reference's rule over the four movies, read plainly."""
    names = {v: k for k, v in library.movie_ids.items()}
    blocked = {names[i] for i in raw.get("blockedItems", [])}
    allowed = {names[i] for i in raw.get("allowedItems", [])}
    hidden_values = {v.lower() for v in (*raw.get("blockedGenres", []), *raw.get("blockedTags", []))}
    seen = set()
    for name, (_rating, genres, tags) in MOVIES.items():
        if name in blocked:
            continue
        values = {v.lower() for v in (*genres, *tags)}
        if name in allowed or (not values & hidden_values and AGES[name] <= raw["maxAge"]):
            seen.add(name)
    return seen


def reachable(library: Library) -> dict[str, set[str]]:
    """For each way in, the movies Kid reaches through it."""
    headers = {"Authorization": f"Bearer {library.token}"}
    found: dict[str, set[str]] = {}
    with httpx.Client(verify=shared_tls_context(), base_url=library.server.api_url, headers=headers, timeout=TIMEOUT_S) as native, \
         httpx.Client(verify=shared_tls_context(), base_url=library.server.base_url, headers={"X-Emby-Token": library.token},
                      timeout=TIMEOUT_S) as jellyfin:  # fmt: skip
        listed = native.get("/items", params={"recursive": "true", "includeTotal": "true", "limit": "2"}).json()
        assert listed["totalCount"] >= len(listed["items"])
        found["list-total"] = {str(listed["totalCount"])}
        found["list"] = _walk(native, listed)
        jf = jellyfin.get("/Items", params={"Recursive": "true", "IncludeItemTypes": "Movie"}).json()
        found["jellyfin-list"] = {item["Name"] for item in jf["Items"]}
        for name, item_id in library.movie_ids.items():
            guid = ids.item_guid(item_id)
            ways = {
                "detail": native.get(f"/items/{item_id}").status_code == 200,
                "image": native.get(f"/images/items/{item_id}").status_code == 200,
                "stream": native.get(f"/videos/{item_id}/stream", headers={"Range": "bytes=0-0"}).status_code == 206,
                "search": any(i["id"] == item_id for i in native.get("/search", params={"q": name}).json()["items"]),
                "jellyfin-detail": jellyfin.get(f"/Items/{guid}").status_code == 200,
                "jellyfin-image": jellyfin.get(f"/Items/{guid}/Images/Primary").status_code == 200,
                "jellyfin-stream": jellyfin.get(f"/Videos/{guid}/stream", params={"static": "true"},
                                                headers={"Range": "bytes=0-0"}).status_code == 206,
            }
            for way, ok in ways.items():
                found.setdefault(way, set())
                if ok:
                    found[way].add(name)
    return found


def _walk(native: httpx.Client, page: dict[str, Any]) -> set[str]:
    names = {item["name"] for item in page["items"]}
    while page.get("nextCursor"):
        page = native.get("/items", params={"recursive": "true", "limit": "2", "cursor": page["nextCursor"]}).json()
        names |= {item["name"] for item in page["items"]}
    return names


def assert_exactly(library: Library, raw: dict[str, Any]) -> None:
    want = expected(library, raw)
    found = reachable(library)
    assert found.pop("list-total") == {str(len(want))}
    for way, names in found.items():
        assert names == want, (way, raw)


def test_without_a_rule_kid_reaches_every_movie_every_way(library: Library) -> None:
    set_rule(library, None)
    assert_exactly(library, {"maxAge": 18})


def test_max_age_12_hides_pg13_and_r_but_keeps_g_and_unrated(library: Library) -> None:
    set_rule(library, {"maxAge": 12})
    assert_exactly(library, {"maxAge": 12})
    assert expected(library, {"maxAge": 12}) == {"Toy", "Plain"}


def test_an_allowed_item_passes_the_age_limit_but_a_blocked_one_never_does(library: Library) -> None:
    ids_ = library.movie_ids
    raw = {"maxAge": 0, "allowedItems": [ids_["Blood"], ids_["Arrival"]], "blockedItems": [ids_["Arrival"]],
           "blockedGenres": ["animation"]}  # fmt: skip
    set_rule(library, raw)
    assert_exactly(library, raw)
    assert expected(library, raw) == {"Blood", "Plain"}


def test_the_published_jellyfin_client_lists_only_what_the_rule_admits(library: Library) -> None:
    set_rule(library, {"maxAge": 12, "blockedTags": ["aliens"]})
    client = JellyfinClient(allow_multiple_clients=True)
    client.config.app("Reelhouse tests", "1.0.0", "Tablet", "parental-device")
    client.config.data["auth.ssl"] = False
    client.auth.connect_to_address(library.server.base_url)
    assert client.auth.login(library.server.base_url, "Kid", PASSWORD)
    client.authenticate({"Servers": [client.auth.credentials.get_credentials()["Servers"][0]]}, discover=False)
    page = client.jellyfin.get_user_items(include_item_types="Movie", recursive=True, sort_by="SortName")
    assert [item["Name"] for item in page["Items"]] == ["Plain", "Toy"] and page["TotalRecordCount"] == 2


def test_downloads_are_refused_under_parental_controls_unless_allowed(library: Library) -> None:
    set_rule(library, {"maxAge": 18})
    users = httpx.get(f"{library.server.api_url}/users", headers=library.server.auth, timeout=TIMEOUT_S).json()
    kid = next(u for u in users if u["name"] == "Kid")
    assert kid["policy"]["allowDownload"] is False and kid["policy"]["parental"]["maxAge"] == 18
    guid = ids.item_guid(library.movie_ids["Toy"])
    download = httpx.get(f"{library.server.base_url}/Items/{guid}/Download", timeout=TIMEOUT_S,
                         headers={"X-Emby-Token": library.token, "Range": "bytes=0-0"})  # fmt: skip
    stream = httpx.get(f"{library.server.api_url}/videos/{library.movie_ids['Toy']}/stream", timeout=TIMEOUT_S,
                       headers={"Authorization": f"Bearer {library.token}", "Range": "bytes=0-0"})  # fmt: skip
    assert download.status_code == 403 and stream.status_code == 206


rules = st.fixed_dictionaries(
    {"maxAge": st.sampled_from([0, 7, 12, 16, 18])},
    optional={
        "blockedGenres": st.lists(st.sampled_from(["horror", "Drama", "animation"]), max_size=2),
        "blockedTags": st.lists(st.sampled_from(["Aliens", "none"]), max_size=1),
        "blockedItems": st.lists(st.sampled_from(list(MOVIES)), max_size=2),
        "allowedItems": st.lists(st.sampled_from(list(MOVIES)), max_size=2),
    },
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=rules)
def test_no_blocked_movie_is_reachable_and_every_admitted_one_is(library: Library, raw: dict[str, Any]) -> None:
    for key in ("blockedItems", "allowedItems"):
        if key in raw:
            raw = {**raw, key: [library.movie_ids[name] for name in raw[key]]}
    set_rule(library, raw)
    assert_exactly(library, raw)


def start_playing(library: Library) -> httpx.Response:
    return httpx.post(f"{library.server.api_url}/sessions/playing", json={"itemId": library.movie_ids["Toy"]},
                      headers={"Authorization": f"Bearer {library.token}"}, timeout=TIMEOUT_S)  # fmt: skip


def test_playback_outside_every_window_is_refused_with_parental_time(library: Library) -> None:
    # A window of one minute every day, twelve hours away from now.
    now = datetime.now(server_time_zone())
    minute = (now.hour * 60 + now.minute + 720) % 1440
    set_rule(library, {"maxAge": 18, "windows": [{"days": [0, 1, 2, 3, 4, 5, 6], "startMinute": minute,
                                                  "endMinute": (minute + 1) % 1440}]})  # fmt: skip
    refused = start_playing(library)
    set_rule(library, {"maxAge": 18, "windows": []})
    allowed = start_playing(library)
    assert refused.status_code == 403 and refused.json()["code"] == "parental_time"
    assert refused.json()["params"]["reason"] == "window"
    assert allowed.status_code == 200, allowed.text


def test_playback_past_the_daily_limit_is_refused_with_parental_time(library: Library) -> None:
    async def played_two_minutes() -> None:
        async with open_store(library.database_url) as store:
            kid = await find_user_by_name(store, "Kid")
            assert kid is not None
            at = int(time.time() * 1000) - 1000
            await record_playback(store, ended(member_id=kid.id, item_id=library.movie_ids["Plain"],
                                               started_at_ms=at, ended_at_ms=at, watched_sec=120.0))  # fmt: skip

    set_rule(library, {"maxAge": 18, "dailyLimitMinutes": 3})
    within = start_playing(library)
    trio.run(played_two_minutes)
    set_rule(library, {"maxAge": 18, "dailyLimitMinutes": 2})
    past = start_playing(library)
    assert within.status_code == 200, within.text
    assert past.status_code == 403 and past.json()["code"] == "parental_time"
    assert past.json()["params"] == {"reason": "dailyLimit", "limitMinutes": 2}




def _watched_today_and_playing_elsewhere(library: Library, leave_seconds: float) -> int:
    """A session of Kid's playing on another device (its last saved state) that leaves about
    ``leave_seconds`` of a daily limit; the limit's minutes."""

    async def setup() -> int:
        async with open_store(library.database_url) as store:
            kid = await find_user_by_name(store, "Kid")
            assert kid is not None
            local = datetime.now(server_time_zone())
            midnight = int(local.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)
            await store.execute("DELETE FROM playback_live WHERE session_id = 'elsewhere'")
            baseline = await watched_seconds_since(store, kid.id, midnight)
            baseline += await live_watched_seconds_since(store, kid.id, midnight)
            minutes = int(baseline // 60) + 2
            at = int(time.time() * 1000) - 1000
            await save_live_session(store, ended(session_id="elsewhere", member_id=kid.id, started_at_ms=at,
                                                 ended_at_ms=at, watched_sec=minutes * 60 - baseline - leave_seconds))
            return minutes

    return trio.run(setup)


def _forget_elsewhere(library: Library) -> None:
    async def forget() -> None:
        async with open_store(library.database_url) as store:
            await store.execute("DELETE FROM playback_live WHERE session_id = 'elsewhere'")

    trio.run(forget)


def test_a_session_still_playing_counts_toward_the_daily_limit(library: Library) -> None:
    minutes = _watched_today_and_playing_elsewhere(library, leave_seconds=-1.0)  # one second past it
    set_rule(library, {"maxAge": 18, "dailyLimitMinutes": minutes})
    try:
        refused = start_playing(library)
    finally:
        _forget_elsewhere(library)
        set_rule(library, {"maxAge": 18, "dailyLimitMinutes": 0})
    assert refused.status_code == 403 and refused.json()["code"] == "parental_time"
    assert refused.json()["params"]["reason"] == "dailyLimit"


def test_a_playing_session_is_stopped_when_the_daily_limit_is_reached(library: Library) -> None:
    minutes = _watched_today_and_playing_elsewhere(library, leave_seconds=1.0)
    set_rule(library, {"maxAge": 18, "dailyLimitMinutes": minutes})
    try:
        started = start_playing(library)
        assert started.status_code == 200, started.text
        session_id = started.json()["sessionId"]
        with httpx.Client(verify=shared_tls_context(), base_url=library.server.api_url, headers=library.server.auth, timeout=TIMEOUT_S) as admin:
            deadline = time.monotonic() + TIMEOUT_S  # the session has one second of play left
            record = None
            while record is None and time.monotonic() < deadline:
                time.sleep(0.1)
                page = admin.get("/admin/playback/history", params={"limit": 200}).json()
                record = next((r for r in page["records"] if r.get("endReason") == "parentalTime"), None)
            live = admin.get("/admin/playback/sessions").json()
    finally:
        _forget_elsewhere(library)
        set_rule(library, {"maxAge": 18, "dailyLimitMinutes": 0})
    assert record is not None and record["itemId"] == library.movie_ids["Toy"]
    assert session_id not in {session["id"] for session in live}

def test_resume_leaves_out_what_a_later_rule_blocks(library: Library) -> None:
    async def half_watched() -> None:  # as the watch state records a stopped session
        async with open_store(library.database_url) as store:
            kid = await find_user_by_name(store, "Kid")
            assert kid is not None
            await store.execute(
                "INSERT INTO watch_state (user_id, item_id, position_ms, last_played_at) VALUES (?, ?, 1500, ?)",
                (kid.id, library.movie_ids["Blood"], int(time.time() * 1000)),
            )

    set_rule(library, None)
    trio.run(half_watched)
    headers = {"Authorization": f"Bearer {library.token}"}
    with httpx.Client(verify=shared_tls_context(), base_url=library.server.api_url, headers=headers, timeout=TIMEOUT_S) as native:
        before = native.get("/me/resume").json()
        set_rule(library, {"maxAge": 12})
        after = native.get("/me/resume").json()
    assert [item["id"] for item in before["items"]] == [library.movie_ids["Blood"]]
    assert after["items"] == []
