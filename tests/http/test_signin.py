"""POST /auth/login and /auth/logout over real HTTP, on both backends.

The tests share a server per backend: each signs in members of its own, and those that
fail sign-ins stay well under the address's limit (30 in 10 minutes) together. The ones
that trip a limit, count every refusal or hash, or restart take a server of their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage._store import now_ms
from reelhouse.storage.devices import device_id_of, hash_token
from reelhouse.storage.members import _accounts as users
from reelhouse.storage.signin_limits import PIN_LOCK_FAILURES, Failure, record_failure

from .conftest import RunningServer, start_server
from .members import add_member, login, token_for
from .shared_server import backend, server, shared_server  # noqa: F401  (fixtures; own_server and own_client: conftest.py)

PASSWORD = "correct horse battery"


async def test_password_sign_in_returns_a_device_token_accepted_on_player_endpoints(server: RunningServer) -> None:
    with trio.fail_after(30):
        user_id = await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
        answer = await login(server, "ann", password=PASSWORD, deviceId="tv-1")
        body = answer.json()
        async with server.client(key=body["token"]) as player:
            items = await player.get("/items")
            search = await player.get("/search", params={"q": "x"})
    assert answer.status_code == 200
    assert body["userId"] == user_id and body["token"].startswith("rhd_")
    assert body["deviceId"] == device_id_of(body["token"])
    assert items.status_code == 200 and search.status_code == 200


async def test_device_token_is_refused_with_403_on_the_admin_api(server: RunningServer) -> None:
    with trio.fail_after(30):
        await add_member(server, "Root", password=PASSWORD, admin=True)
        token = await token_for(server, "Root", password=PASSWORD)
        async with server.client(key=token) as player:
            answers = [
                await player.get("/system/status"),
                await player.get("/users"),
                await player.get("/devices"),
                await player.get("/activity"),
                await player.get("/libraries"),
                await player.post("/libraries", json={"name": "x", "paths": ["/tmp"]}),
                await player.get("/jobs"),
            ]
    for answer in answers:
        assert answer.status_code == 403, answer.request.url
        assert answer.json()["code"] == "forbidden"


async def test_only_a_hash_of_the_device_token_is_stored(server: RunningServer) -> None:
    with trio.fail_after(30):
        user_id = await add_member(server, "Hal", password=PASSWORD)
        token = await token_for(server, "Hal", password=PASSWORD)
        async with open_store(server.database_url) as store:
            tokens = await store.fetch_all("SELECT * FROM device_tokens WHERE user_id = ?", (user_id,))
            devices = await store.fetch_all("SELECT * FROM devices WHERE user_id = ?", (user_id,))
    assert [row["token_hash"] for row in tokens] == [hash_token(token)]
    for row in [*tokens, *devices]:
        assert all(token not in str(value) for value in tuple(row))


async def test_wrong_password_unknown_name_and_disabled_member_are_invalid_credentials(server: RunningServer) -> None:
    with trio.fail_after(30):
        await add_member(server, "Ivy", password=PASSWORD)
        await add_member(server, "Off", password=PASSWORD, disabled=True)
        answers = [
            await login(server, "Ivy", password="wrong"),
            await login(server, "Nobody", password=PASSWORD),
            await login(server, "Off", password=PASSWORD),
        ]
    for answer in answers:
        assert answer.status_code == 401 and answer.json()["code"] == "invalid_credentials"


async def test_password_required_and_name_alone(server: RunningServer) -> None:
    with trio.fail_after(30):
        await add_member(server, "Jo", password=PASSWORD)
        await add_member(server, "Kid")
        required = await login(server, "Jo")
        alone = await login(server, "Kid")
    assert required.status_code == 401 and required.json()["code"] == "password_required"
    assert alone.status_code == 200


async def test_sign_in_by_name_alone_hashes_as_often_for_an_unknown_name_as_for_a_known_one(
    own_server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with trio.fail_after(60):
        await add_member(own_server, "Kid")
        await add_member(own_server, "Jo", password=PASSWORD)
        await add_member(own_server, "Pat", pin="1357")
        await add_member(own_server, "Off", disabled=True)
        hashed: list[int] = []
        verify = users._verify

        def counting(*args: Any) -> bool:
            hashed.append(1)
            return verify(*args)

        monkeypatch.setattr(users, "_verify", counting)
        costs, codes = {}, {}
        # An unknown name, a member without secrets, one with a password, one with a PIN, a disabled one.
        for name in ("Nobody", "Kid", "Jo", "Pat", "Off"):
            before = len(hashed)
            answer = await login(own_server, name)
            costs[name], codes[name] = len(hashed) - before, answer.json().get("code", answer.status_code)
    assert codes == {"Nobody": "invalid_credentials", "Kid": 200, "Jo": "password_required", "Pat": "wrong_pin",
                     "Off": "invalid_credentials"}
    assert costs == {"Nobody": 1, "Kid": 1, "Jo": 1, "Pat": 1, "Off": 1}


async def test_pin_sign_in_and_wrong_pin(server: RunningServer) -> None:
    with trio.fail_after(30):
        await add_member(server, "Liv", pin="4321")
        right = await login(server, "Liv", pin="4321")
        wrong = await login(server, "Liv", pin="0000")
    assert right.status_code == 200
    assert wrong.status_code == 401 and wrong.json()["code"] == "wrong_pin"


async def lock_pin(server: RunningServer, name: str, user_id: str) -> None:
    """Enough PIN failures for the lock, from many addresses over the last hour: no rate limit applies."""
    async with open_store(server.database_url) as store:
        start = now_ms() - 3_600_000
        for n in range(PIN_LOCK_FAILURES):
            await record_failure(store, Failure(name, f"10.0.0.{n}", "pin", user_id), start + n * 1000)


async def test_pin_lock_after_20_failures_in_24_hours_is_403_and_a_password_sign_in_clears_it(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(60):
        user_id = await add_member(server, "Max", password=PASSWORD, pin="2468")
        await lock_pin(server, "max", user_id)
        locked = await login(server, "Max", pin="2468")
        shown = (await client.get(f"/users/{user_id}")).json()
        assert (await login(server, "Max", password=PASSWORD)).status_code == 200
        unlocked = await login(server, "Max", pin="2468")
        cleared = (await client.get(f"/users/{user_id}")).json()
    assert locked.status_code == 403 and locked.json()["code"] == "pin_locked"
    assert shown["pinLocked"] is True
    assert unlocked.status_code == 200 and cleared["pinLocked"] is False


async def test_five_wrong_passwords_then_429_with_retry_after_even_for_the_right_one(own_server: RunningServer) -> None:
    with trio.fail_after(60):
        await add_member(own_server, "Ned", password=PASSWORD)
        wrong = [await login(own_server, "Ned", password=f"guess {n}") for n in range(5)]
        limited = await login(own_server, "Ned", password=PASSWORD)
    assert all(answer.status_code == 401 for answer in wrong)
    assert limited.status_code == 429
    assert limited.json()["code"] == "too_many_requests"
    retry_after = int(limited.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    assert limited.json()["params"]["retryAfterSeconds"] == retry_after


async def test_refusals_the_limits_do_not_bound_are_counted_on_one_activity_entry_not_a_row_each(
    own_server: RunningServer, own_client: httpx.AsyncClient
) -> None:
    with trio.fail_after(90):
        await add_member(own_server, "Ned", password=PASSWORD)
        await lock_pin(own_server, "max", await add_member(own_server, "Max", password=PASSWORD, pin="2468"))
        wrong = [(await login(own_server, "Ned", password=f"guess {n}")).status_code for n in range(5)]
        limited = [(await login(own_server, "Ned", password=PASSWORD)).status_code for _ in range(40)]
        locked = [(await login(own_server, "Max", pin="2468")).status_code for _ in range(10)]
        answer = await own_client.get("/activity", params={"limit": 200})
    assert wrong == [401] * 5 and limited == [429] * 40 and locked == [403] * 10
    failed = [e for e in answer.json()["entries"] if e["action"] == "user.login_failed"]
    by_reason: dict[str, list[dict[str, Any]]] = {}
    for entry in failed:
        by_reason.setdefault(entry["details"]["reason"], []).append(entry)
    assert len(by_reason["invalid_credentials"]) == 5  # each counted toward the limit: a row each
    # One entry a minute: a minute's boundary may fall among the attempts.
    for reason, attempts in (("tooManyRequests", 40), ("pin_locked", 10)):
        assert 1 <= len(by_reason[reason]) <= 2
        assert sum(entry["details"]["count"] for entry in by_reason[reason]) == attempts


async def test_api_keys_are_not_limited_by_failed_sign_ins(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(60):
        await add_member(server, "Oz", password=PASSWORD)
        for n in range(6):
            await login(server, "Oz", password=f"guess {n}")
        assert (await client.get("/system/status")).status_code == 200


async def test_logout_ends_the_sign_in(server: RunningServer) -> None:
    with trio.fail_after(30):
        await add_member(server, "Pia", password=PASSWORD)
        token = await token_for(server, "Pia", password=PASSWORD)
        async with server.client(key=token) as player:
            out = await player.post("/auth/logout")
            after = await player.get("/items")
    assert out.status_code == 204
    assert after.status_code == 401


async def test_logout_with_an_api_key_is_403(client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        answer = await client.post("/auth/logout")
    assert answer.status_code == 403


async def test_a_restart_is_no_way_around_the_sign_in_limit(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    with trio.fail_after(90):
        first = await start_server(nursery, database_url, tmp_path / "data")
        await add_member(first, "Quin", password=PASSWORD)
        for n in range(5):
            assert (await login(first, "Quin", password=f"guess {n}")).status_code == 401
        first.shutdown.set()
        await first.stopped.wait()  # serve() returned: the data folder's lock is free
        second = await start_server(nursery, database_url, tmp_path / "data")
        limited = await login(second, "Quin", password=PASSWORD)
        second.shutdown.set()
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1


async def test_parallel_wrong_passwords_get_no_more_guesses_than_the_limit(own_server: RunningServer) -> None:
    with trio.fail_after(60):
        await add_member(own_server, "Rae", password=PASSWORD)
        statuses: list[int] = []

        async def guess(n: int) -> None:
            statuses.append((await login(own_server, "Rae", password=f"guess {n}")).status_code)

        async with trio.open_nursery() as nursery:
            for n in range(12):
                nursery.start_soon(guess, n)
    assert sorted(statuses) == [401] * 5 + [429] * 7
