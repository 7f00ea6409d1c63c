"""GET /users and /users/{id} over real HTTP: read only, effective policy, no secret.

The tests share a server per backend: each adds members of its own and reads those.
"""

from __future__ import annotations

import httpx
import trio

from .conftest import RunningServer
from .members import add_member, login
from .shared_server import backend, server, shared_server  # noqa: F401  (fixtures)

PASSWORD = "correct horse battery"


async def test_users_list_every_member_with_the_effective_policy(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        admin_id = await add_member(server, "Ada", password=PASSWORD, admin=True)
        member_id = await add_member(server, "Bob", pin="1234")
        listed = (await client.get("/users")).json()
    users = [u for u in listed if u["id"] in (admin_id, member_id)]  # the neighbours' members aside
    by_name = {u["name"]: u for u in users}
    assert [u["name"] for u in users] == ["Ada", "Bob"]
    ada, bob = by_name["Ada"], by_name["Bob"]
    assert ada["id"] == admin_id and ada["isAdmin"] and ada["hasPassword"] and not ada["hasPin"]
    assert bob["id"] == member_id and not bob["isAdmin"] and not bob["hasPassword"] and bob["hasPin"]
    for user in users:
        assert user["planAccess"] == "full" and user["pinLocked"] is False
        assert user["parentalEditable"] is False  # no licence permits parental edits
        assert "avatarTag" not in user and "lastLoginAt" not in user
        assert user["createdAt"].endswith("Z")
        assert isinstance(user["policy"]["accessibleLibraries"], list)
    assert ada["policy"]["allLibraries"] is True and ada["policy"]["allowDownload"] is True
    assert bob["policy"]["allLibraries"] is False and bob["policy"]["accessibleLibraries"] == []
    assert bob["policy"]["allowDownload"] is True  # no parental controls: unrestricted


async def test_one_user_and_unknown_user_is_404(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        member_id = await add_member(server, "Cleo", password=PASSWORD)
        one = await client.get(f"/users/{member_id}")
        missing = await client.get("/users/nobody")
    assert one.status_code == 200 and one.json()["name"] == "Cleo"
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


async def test_last_login_at_appears_after_a_sign_in(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        member_id = await add_member(server, "Dora", password=PASSWORD)
        assert (await login(server, "Dora", password=PASSWORD)).status_code == 200
        user = (await client.get(f"/users/{member_id}")).json()
    assert user["lastLoginAt"].endswith("Z")


async def test_creating_or_changing_members_over_the_api_is_refused_and_changes_nothing(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(30):
        member_id = await add_member(server, "Eve", password=PASSWORD)
        before = (await client.get("/users")).json()
        answers = [
            await client.post("/users", json={"name": "Mallory"}),
            await client.put(f"/users/{member_id}", json={"isAdmin": True}),
            await client.patch(f"/users/{member_id}", json={"policy": {"isAdmin": True}}),
            await client.post(f"/users/{member_id}", json={"isAdmin": True}),
            await client.delete(f"/users/{member_id}"),
        ]
        after = (await client.get("/users")).json()
    for answer in answers:
        assert answer.status_code == 405
        assert answer.json()["code"] and answer.json()["message"]
    assert after == before
