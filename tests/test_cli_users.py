"""`reelhouse user set` as a real process, on both backends."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.activity import list_activity
from reelhouse.storage.members import credentials_by_name, find_user_by_name, get_member, verify_password

from .conftest import migrated_copy
from .server_process import run_cli


@pytest.fixture
async def database_url(database_url: str) -> str:
    """Migrated already (a copy, tests/conftest.py): the commands open it as after `reelhouse migrate`."""
    await migrated_copy(database_url)
    return database_url


def db_args(tmp_path: Path, database_url: str) -> list[str]:
    return ["--data-dir", str(tmp_path / "data"), "--database", database_url]


async def test_user_set_changes_flags_password_and_pin(tmp_path: Path, database_url: str) -> None:
    db = db_args(tmp_path, database_url)
    with trio.fail_after(120):
        assert (await run_cli([*db, "user", "add", "gus"])).returncode == 0
        done = await run_cli(
            [*db, "user", "set", "GUS", "--admin", "--hidden", "--password-stdin", "--pin-stdin"],
            stdin=b"new secret\n4321\n",
        )
        assert done.returncode == 0, done.stderr
        assert b"new secret" not in done.stdout and b"4321" not in done.stdout
        async with open_store(database_url) as store:
            creds = await credentials_by_name(store, "gus")
            assert creds is not None and creds.password_hash is not None and creds.pin_hash is not None
            assert await verify_password(creds.password_hash, "new secret")
            assert await verify_password(creds.pin_hash, "4321")
            user = creds.user
            assert user.is_admin and user.hidden and user.has_pin
        cleared = await run_cli([*db, "user", "set", "gus", "--no-admin", "--disabled", "--clear-pin"])
        assert cleared.returncode == 0, cleared.stderr
        async with open_store(database_url) as store:
            user = await find_user_by_name(store, "gus")
    assert user is not None and not user.is_admin and user.disabled and not user.has_pin


async def test_user_set_library_list_ignores_unknown_ids(tmp_path: Path, database_url: str) -> None:
    db = db_args(tmp_path, database_url)
    with trio.fail_after(120):
        assert (await run_cli([*db, "user", "add", "kid"])).returncode == 0
        async with open_store(database_url) as store:
            await store.execute(
                "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES ('L1', 'Kids', 'movies', 0, 0)"
            )
        done = await run_cli([*db, "user", "set", "kid", "--library", "L1", "nope"])
        assert done.returncode == 0, done.stderr
        async with open_store(database_url) as store:
            user = await find_user_by_name(store, "kid")
            assert user is not None
            view = await get_member(store, user.id)
    assert view is not None and view.granted_libraries == ("L1",)


async def test_user_set_refuses_a_bad_pin_and_an_unknown_member_with_exit_1(tmp_path: Path, database_url: str) -> None:
    db = db_args(tmp_path, database_url)
    with trio.fail_after(120):
        assert (await run_cli([*db, "user", "add", "ann"])).returncode == 0
        bad_pin = await run_cli([*db, "user", "set", "ann", "--pin-stdin"], stdin=b"12ab\n")
        unknown = await run_cli([*db, "user", "set", "nobody", "--admin"])
    assert bad_pin.returncode == 1 and b"PIN" in bad_pin.stderr and b"12ab" not in bad_pin.stderr
    assert unknown.returncode == 1 and b"Traceback" not in unknown.stderr


async def test_command_line_changes_are_in_the_activity_log_without_secrets(tmp_path: Path, database_url: str) -> None:
    db = db_args(tmp_path, database_url)
    with trio.fail_after(120):
        assert (await run_cli([*db, "user", "add", "ann", "--password-stdin"], stdin=b"hunter2 pass\n")).returncode == 0
        assert (await run_cli([*db, "user", "set", "ann", "--pin-stdin"], stdin=b"97531\n")).returncode == 0
        created = await run_cli([*db, "apikey", "create", "script"])
        key_id = created.stdout.decode().split()[3]
        assert (await run_cli([*db, "apikey", "revoke", key_id])).returncode == 0
        async with open_store(database_url) as store:
            entries = list(reversed(await list_activity(store, 50)))
    assert [e.action for e in entries] == ["user.create", "user.update", "apikey.create", "apikey.revoke"]
    assert all(e.actor_kind == "system" for e in entries)
    assert entries[2].target_kind == "apiKey" and entries[3].target_id == key_id
    text = repr(entries)
    assert "hunter2" not in text and "97531" not in text


async def test_user_set_parental_flags_store_a_normalised_rule_and_clear_it(
    tmp_path: Path, database_url: str
) -> None:
    db = db_args(tmp_path, database_url)
    with trio.fail_after(120):
        assert (await run_cli([*db, "user", "add", "kid"])).returncode == 0
        done = await run_cli([
            *db, "user", "set", "kid", "--max-age", "12", "--block-tag", "Gore", "--block-tag", "gore",
            "--block-genre", "Horror", "--block-item", "i2", "--allow-item", "i1", "--daily-limit", "90",
            "--window", "1-5", "21:00-07:00", "--window", "0,6", "08:00-20:00",
        ])  # fmt: skip
        assert done.returncode == 0, done.stderr
        more = await run_cli([*db, "user", "set", "kid", "--block-genre", "war"])  # merged over the rule
        assert more.returncode == 0, more.stderr
        async with open_store(database_url) as store:
            user = await find_user_by_name(store, "kid")
            assert user is not None
            rule = dict(user.policy)["parental"]
        cleared = await run_cli([*db, "user", "set", "kid", "--clear-parental"])
        async with open_store(database_url) as store:
            after = await find_user_by_name(store, "kid")
    assert rule == {
        "maxAge": 12, "blockedTags": ["gore"], "blockedGenres": ["war"], "blockedItems": ["i2"],
        "allowedItems": ["i1"], "dailyLimitMinutes": 90,
        "windows": [{"days": [0, 6], "startMinute": 480, "endMinute": 1200},
                    {"days": [1, 2, 3, 4, 5], "startMinute": 1260, "endMinute": 420}],
    }  # fmt: skip
    assert cleared.returncode == 0 and after is not None and "parental" not in after.policy


async def test_user_set_refuses_bad_parental_values_and_clear_with_parental_with_exit_2(
    tmp_path: Path, database_url: str
) -> None:
    db = db_args(tmp_path, database_url)
    with trio.fail_after(120):
        assert (await run_cli([*db, "user", "add", "kid"])).returncode == 0
        both = await run_cli([*db, "user", "set", "kid", "--max-age", "12", "--clear-parental"])
        age = await run_cli([*db, "user", "set", "kid", "--max-age", "13"])
        window = await run_cli([*db, "user", "set", "kid", "--window", "1-8", "08:00-09:00"])
        async with open_store(database_url) as store:
            user = await find_user_by_name(store, "kid")
    for answer in (both, age, window):
        assert answer.returncode == 2 and b"Traceback" not in answer.stderr
    assert b"field_invalid" in age.stderr
    assert user is not None and "parental" not in user.policy
