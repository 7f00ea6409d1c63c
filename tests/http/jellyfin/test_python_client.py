"""jellyfin-apiclient-python (PyPI), the published client, against the server over real HTTP on both backends."""

from __future__ import annotations

from typing import Any

import httpx
from jellyfin_apiclient_python import JellyfinClient

from .served import PASSWORD, Served, backend, served  # noqa: F401  (fixtures)


def signed_in_client(served: Served, name: str = "Ann", password: str = PASSWORD, device_id: str = "py-device-1") -> JellyfinClient:
    client = JellyfinClient(allow_multiple_clients=True)
    client.config.app("Reelhouse tests", "1.0.0", "Test device", device_id)
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
