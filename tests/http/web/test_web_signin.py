"""The web console's cookie sign-in over real HTTP, on both backends: flags, origins, limits, revocation.

The tests share a server per backend: each signs in members of its own and reads only their
devices; the few sign-ins they fail together stay far under the address's limit.
"""

from __future__ import annotations

import json
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from trio_websocket import ConnectionRejected, open_websocket_url

from reelhouse.storage import open_store

from ...tls import shared_tls_context
from ..conftest import RunningServer, start_server
from ..members import add_member, login
from ..shared_server import backend, server, shared_server  # noqa: F401  (fixtures)

PASSWORD = "correct horse battery"
COOKIE = "reelhouse_session"


def _browser(server: RunningServer, **headers: str) -> httpx.AsyncClient:
    """A client that behaves like the console's own pages: same Origin, cookies kept, no key."""
    own = {"Origin": server.base_url, **headers}
    return httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, headers=own, timeout=10.0, follow_redirects=False)


async def _sign_in(browser: httpx.AsyncClient, name: str, **body: Any) -> httpx.Response:
    return await browser.post("/web/login", json={"name": name, **body})


def _set_cookie(answer: httpx.Response) -> Any:
    header = answer.headers["set-cookie"]
    parsed = SimpleCookie()
    parsed.load(header)
    return parsed[COOKIE], header.lower()


async def test_json_sign_in_sets_an_httponly_samesite_cookie_that_opens_the_player_api(server: RunningServer) -> None:
    with trio.fail_after(30):
        user_id = await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
        firefox = "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0"
        async with _browser(server, **{"User-Agent": firefox}) as browser:
            answer = await _sign_in(browser, "Ann", password=PASSWORD)
            items = await browser.get("/api/v1/items")
            home = await browser.get("/web/")
        async with open_store(server.database_url) as store:
            rows = await store.fetch_all("SELECT kind, client, name FROM devices WHERE user_id = ?", (user_id,))
        async with server.client() as admin:
            entries = (await admin.get("/activity", params={"limit": 50})).json()["entries"]
    morsel, header = _set_cookie(answer)
    assert answer.status_code == 200 and answer.json()["userId"] == user_id
    assert "token" not in answer.json()  # the token lives in the HttpOnly cookie only
    assert morsel.value.startswith("rhd_")
    assert "httponly" in header and "samesite=lax" in header and "secure" not in header
    assert int(morsel["max-age"]) == 30 * 86400
    assert [(row["kind"], row["client"], row["name"]) for row in rows] == [("web", "Reelhouse Web", "Firefox on Android")]
    assert items.status_code == 200 and home.status_code == 200 and "Continue watching" in home.text, home.text
    assert any(e["action"] == "user.login" and e.get("userId") in (user_id, None) for e in entries)


async def test_pin_sign_in_and_session_only_login_gives_a_session_cookie(server: RunningServer) -> None:
    with trio.fail_after(30):
        kid = await add_member(server, "Kid", pin="2468")
        async with open_store(server.database_url) as store:  # no command sets it yet: as the API would store it
            await store.execute("UPDATE users SET policy = ? WHERE id = ?", ('{"sessionOnlyLogin": true}', kid))
        async with _browser(server) as browser:
            answer = await _sign_in(browser, "Kid", pin="2468")
    morsel, header = _set_cookie(answer)
    assert answer.status_code == 200
    assert morsel.value.startswith("rhd_") and "max-age" not in header and "expires" not in header


async def test_a_cross_origin_or_unlabelled_state_change_with_the_cookie_is_forbidden_origin(
    server: RunningServer,
) -> None:
    with trio.fail_after(30):
        await add_member(server, "Bea", password=PASSWORD, all_libraries=True)
        async with _browser(server) as browser:
            await _sign_in(browser, "Bea", password=PASSWORD)
            foreign = await browser.post("/api/v1/me/played/nothing", headers={"Origin": "http://evil.example"})
            cross_site = await browser.post("/api/v1/me/played/nothing", headers={"Sec-Fetch-Site": "cross-site"})
            own = await browser.post("/api/v1/me/played/nothing")
            logout = await browser.post("/web/logout", headers={"Origin": "http://evil.example"})
            reading = await browser.get("/api/v1/items", headers={"Origin": "http://evil.example"})
        async with _browser(server) as bare:
            bare.headers.pop("Origin")
            bare.cookies.set(COOKIE, browser.cookies[COOKIE])
            unlabelled = await bare.post("/api/v1/me/played/nothing")
            login_elsewhere = await bare.post(
                "/web/login", json={"name": "Bea", "password": PASSWORD}, headers={"Origin": "http://evil.example"}
            )
    for refused in (foreign, cross_site, logout, unlabelled, login_elsewhere):
        assert refused.status_code == 403, refused.request.url
        assert refused.json()["code"] == "forbidden_origin"
    assert own.status_code == 404  # past the origin check: the item does not exist
    assert reading.status_code == 200  # reading is not a state change (CORS keeps the answer from the other site)


async def test_the_cookie_never_opens_an_api_key_route_and_keys_and_tokens_are_unaffected(
    server: RunningServer,
) -> None:
    with trio.fail_after(30):
        await add_member(server, "Root", password=PASSWORD, admin=True)
        async with _browser(server) as browser:
            await _sign_in(browser, "Root", password=PASSWORD)
            admin_routes = [
                await browser.get("/api/v1/users"),
                await browser.get("/api/v1/system/status"),
                await browser.post("/api/v1/libraries", json={"name": "x", "paths": ["/tmp"]}),
            ]
            with_key = await browser.get("/api/v1/users", headers={"Authorization": f"Bearer {server.key}"})
        token = (await login(server, "Root", password=PASSWORD)).json()["token"]
        async with server.client(key=token) as player:
            player_items = await player.get("/items")
    for answer in admin_routes:
        assert answer.status_code == 403 and answer.json()["code"] == "forbidden"
    assert with_key.status_code == 200 and player_items.status_code == 200


async def test_sign_out_revokes_the_cookie_token_and_clears_the_cookie(server: RunningServer) -> None:
    with trio.fail_after(30):
        pia = await add_member(server, "Pia", password=PASSWORD, all_libraries=True)
        async with _browser(server) as browser:
            await _sign_in(browser, "Pia", password=PASSWORD)
            token = browser.cookies[COOKIE]
            out = await browser.post("/web/logout", json={})
        async with _browser(server) as replay:
            replay.cookies.set(COOKIE, token)
            after = await replay.get("/api/v1/items")
            page = await replay.get("/web/")
        async with open_store(server.database_url) as store:
            left = await store.fetch_all("SELECT id FROM devices WHERE user_id = ?", (pia,))
    assert (
        out.status_code == 204
        and f"{COOKIE}=;" in out.headers["set-cookie"]
        and "max-age=0" in out.headers["set-cookie"].lower()
    )
    assert after.status_code == 401
    assert page.status_code == 302 and page.headers["location"].endswith("/web/login")
    assert left == []


async def test_web_and_native_sign_ins_share_the_limits(server: RunningServer) -> None:
    with trio.fail_after(60):
        await add_member(server, "Ned", password=PASSWORD)
        async with _browser(server) as browser:
            wrong = [await _sign_in(browser, "Ned", password=f"guess {n}") for n in range(3)]
            wrong += [await login(server, "Ned", password=f"native {n}") for n in range(2)]
            limited = await _sign_in(browser, "Ned", password=PASSWORD)
    assert [answer.status_code for answer in wrong] == [401] * 5
    assert wrong[0].json()["code"] == "invalid_credentials"
    assert limited.status_code == 429 and limited.json()["code"] == "too_many_requests"
    assert int(limited.headers["Retry-After"]) >= 1 and COOKIE not in limited.headers.get("set-cookie", "")


async def test_a_form_sign_in_redirects_home_or_shows_the_error_as_a_sentence(server: RunningServer) -> None:
    with trio.fail_after(30):
        await add_member(server, "Flo", password=PASSWORD, all_libraries=True)
        async with _browser(server) as browser:
            root = await browser.get("/")
            unsigned = await browser.get("/web/")
            page = await browser.get("/web/login")
            wrong = await browser.post("/web/login", data={"name": "Flo", "password": "nope"})
            right = await browser.post("/web/login", data={"name": "Flo", "password": PASSWORD})
            home = await browser.get("/web/")
    assert root.status_code == 302 and root.headers["location"].endswith("/web/")
    assert unsigned.status_code == 302 and unsigned.headers["location"].endswith("/web/login")
    assert page.status_code == 200 and 'name="viewport"' in page.text
    assert wrong.status_code == 401 and "The name or the password is wrong." in wrong.text
    assert right.status_code == 303 and right.headers["location"].endswith("/web/")
    assert home.status_code == 200 and "Flo" in home.text


@pytest.mark.parametrize(("proxies", "secure"), [([], False), (["127.0.0.0/8"], True)])
async def test_the_cookie_is_secure_over_https_said_only_by_a_trusted_proxy(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, proxies: list[str], secure: bool
) -> None:
    with trio.fail_after(60):
        server = await start_server(nursery, database_url, tmp_path / "data", web={"trusted_proxies": proxies})
        await add_member(server, "Sam", password=PASSWORD)
        async with _browser(server, **{"X-Forwarded-Proto": "https"}) as browser:
            answer = await _sign_in(browser, "Sam", password=PASSWORD)
        server.shutdown.set()
    _morsel, header = _set_cookie(answer)
    assert answer.status_code == 200
    assert ("; secure" in header) is secure


async def test_revoking_the_web_device_or_disabling_the_member_ends_the_browser_sign_in(
    server: RunningServer,
) -> None:
    with trio.fail_after(30):
        await add_member(server, "Rex", password=PASSWORD, all_libraries=True)
        async with _browser(server) as browser:
            device_id = (await _sign_in(browser, "Rex", password=PASSWORD)).json()["deviceId"]
            before = await browser.get("/api/v1/items")
            async with server.client() as admin:
                listed = (await admin.get("/devices")).json()
                revoked = await admin.delete(f"/devices/{device_id}")
            after = await browser.get("/api/v1/items")
            page = await browser.get("/web/")
    devices = listed["items"] if isinstance(listed, dict) else listed
    assert [d["kind"] for d in devices if d["id"] == device_id] == ["web"]
    assert before.status_code == 200 and revoked.status_code == 204
    assert after.status_code == 401
    assert page.status_code == 302 and page.headers["location"].endswith("/web/login")


async def test_the_cookie_opens_the_remote_control_socket_only_from_the_consoles_own_origin(
    server: RunningServer,
) -> None:
    with trio.fail_after(30):
        await add_member(server, "Wes", password=PASSWORD, all_libraries=True)
        async with _browser(server) as browser:
            await _sign_in(browser, "Wes", password=PASSWORD)
            cookie = f"{COOKIE}={browser.cookies[COOKIE]}".encode()
        url = server.api_url.replace("http://", "ws://") + "/sessions/socket"
        statuses = {}
        for name, origin in (("foreign", b"http://evil.example"), ("none", None)):
            headers = [(b"Cookie", cookie)] + ([(b"Origin", origin)] if origin else [])
            with pytest.raises(ConnectionRejected) as rejected:
                async with open_websocket_url(url, extra_headers=headers):
                    pass
            statuses[name] = rejected.value.status_code
        own = [(b"Cookie", cookie), (b"Origin", server.base_url.encode())]
        async with open_websocket_url(url, extra_headers=own) as socket:
            await socket.send_message(json.dumps({"type": "pong"}))
            accepted = not socket.closed
    assert statuses == {"foreign": 403, "none": 403}
    assert accepted
