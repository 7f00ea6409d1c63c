"""Signing in and credentials on the Jellyfin surface (issue 27): every way a client sends its token,
a PIN, the native sign-in limits and activity entries, logout, and the public routes; over real
HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import trio

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ...tls import shared_tls_context
from ..conftest import RunningServer
from ..members import add_member
from .surface import PASSWORD, authorization, jellyfin, sign_in

LIMIT_S = 60
NAME_LIMIT = 5  # failures a minute for one name from one address (storage/signin_limits.py)


async def test_every_way_a_client_sends_its_token_is_taken_and_a_logout_ends_it(server: RunningServer) -> None:
    ann = await add_member(server, "Ann", password=PASSWORD)
    token = await sign_in(server, "Ann", device_id="ann-phone")
    ways: list[dict[str, Any]] = [
        {"headers": {"Authorization": f'{authorization("ann-phone")}, Token="{token}"'}},
        {"headers": {"X-Emby-Authorization": f'Emby DeviceId="ann-phone", Token="{token}"'}},
        {"headers": {"X-Emby-Token": token}},
        {"headers": {"X-MediaBrowser-Token": token}},
        {"params": {"api_key": token}},
        {"params": {"ApiKey": token}},
    ]
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, timeout=10.0) as client:
        with trio.fail_after(LIMIT_S):
            for way in ways:
                answer = await client.get("/Users/Me", **way)
                assert answer.status_code == 200 and answer.json()["Name"] == "Ann", way
            assert (await client.get("/Users/Me", headers={"X-Emby-Token": "rhd_forged"})).status_code == 401
            assert (await client.get(f"/Users/{ann}", headers={"X-Emby-Token": token})).json()["Id"] == ann
            assert (await client.get("/Users", headers={"X-Emby-Token": token})).status_code == 403
            logout = await client.post("/Sessions/Logout", headers={"X-Emby-Token": token})
            assert logout.status_code == 204
            assert (await client.get("/Users/Me", headers={"X-Emby-Token": token})).status_code == 401
            native = await client.get(f"{server.api_url}/items", headers={"Authorization": f"Bearer {token}"})
            assert native.status_code == 401


async def test_the_public_routes_need_no_token_and_the_others_do(server: RunningServer) -> None:
    await add_member(server, "Root", password=PASSWORD, admin=True)
    await sign_in(server, "Root")
    async with jellyfin(server, None) as anonymous, jellyfin(server, server.key) as key:
        with trio.fail_after(LIMIT_S):
            public_users = (await anonymous.get("/Users/Public")).json()
            assert [(u["Name"], u["HasPassword"]) for u in public_users] == [("Root", True)]
            assert not {"Policy", "Configuration", "LastLoginDate", "LastActivityDate"} & set(public_users[0])
            assert (await key.get(f"/Users/{public_users[0]['Id']}")).json()["Policy"]["IsAdministrator"] is True
            ping = await anonymous.get("/System/Ping")
            assert ping.status_code == 200 and ping.json() == "Jellyfin Server"
            assert (await anonymous.post("/System/Ping")).status_code == 200
            assert (await anonymous.get("/QuickConnect/Enabled")).json() is False
            public = (await anonymous.get("/System/Info/Public")).json()
            assert public["StartupWizardCompleted"] is True and len(public["Id"]) == 32
            for path in ("/System/Info", "/UserViews", "/Items", "/Sessions", "/Library/VirtualFolders"):
                refused = await anonymous.get(path)
                assert refused.status_code == 401 and refused.json()["status"] == 401, path
            info = (await key.get("/System/Info")).json()
            assert info["Id"] == public["Id"] and "Version" in info
            assert (await key.get("/Users/Me")).status_code == 400  # an API key has no user


async def test_a_pin_signs_in_and_the_native_sign_in_limits_and_activity_hold(server: RunningServer) -> None:
    await add_member(server, "Kid", pin="4321")
    await add_member(server, "Ann", password=PASSWORD)
    async with jellyfin(server, None) as anonymous:
        with trio.fail_after(LIMIT_S):
            assert await sign_in(server, "Kid", password="4321", device_id="kid-tablet")
            wrong = {"Username": "Ann", "Pw": "not the password"}
            for _ in range(NAME_LIMIT):
                refused = await anonymous.post("/Users/AuthenticateByName", json=wrong,
                                               headers={"Authorization": authorization("guess")})  # fmt: skip
                assert refused.status_code == 401 and refused.json()["status"] == 401
            right = {"Username": "Ann", "Pw": PASSWORD}
            limited = await anonymous.post("/Users/AuthenticateByName", json=right,
                                           headers={"Authorization": authorization("guess")})  # fmt: skip
            assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
            assert limited.json()["status"] == 429
            async with server.client() as native:
                while len(await failures(native, "Ann")) < NAME_LIMIT:
                    await trio.sleep(0.05)
                devices = (await native.get("/devices")).json()
    device_names = [d["device"] for d in (devices.get("items", []) if isinstance(devices, dict) else devices)]
    assert device_names.count("Test device") == 1  # Kid's tablet; Ann's refused sign-ins made no device


async def failures(native: httpx.AsyncClient, name: str) -> list[dict[str, Any]]:
    entries = (await native.get("/activity", params={"limit": 50})).json()["entries"]
    return [e for e in entries if e["action"] == "user.login_failed" and name in str(e)]
