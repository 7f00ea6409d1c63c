"""The ``reelhouse`` command line, run as a real process."""

from __future__ import annotations

from pathlib import Path

import pytest

from reelhouse.storage import open_store
from reelhouse.storage.members import credentials_by_name, verify_password

from .conftest import migrated_copy
from .server_process import clean_environ, run_cli


@pytest.fixture
async def database_url(database_url: str) -> str:
    """Migrated already (a copy, tests/conftest.py): the commands open it as after `reelhouse migrate`."""
    await migrated_copy(database_url)
    return database_url


def db_args(tmp_path: Path, database_url: str) -> list[str]:
    return ["--data-dir", str(tmp_path / "data"), "--database", database_url]


async def test_apikey_create_prints_the_key_alone_on_the_last_line(tmp_path: Path, database_url: str) -> None:
    done = await run_cli([*db_args(tmp_path, database_url), "apikey", "create", "backup script"])
    assert done.returncode == 0, done.stderr
    last = done.stdout.decode().rstrip("\n").splitlines()[-1]
    assert last.startswith("rhk_") and len(last) >= 36 and " " not in last


async def test_apikey_list_shows_id_name_created_revoked(tmp_path: Path, database_url: str) -> None:
    await run_cli([*db_args(tmp_path, database_url), "apikey", "create", "one"])
    listed = await run_cli([*db_args(tmp_path, database_url), "apikey", "list"])
    key_id, name, created, revoked = listed.stdout.decode().strip().split("\t")
    assert name == "one" and created.endswith("Z") and revoked == "-"
    done = await run_cli([*db_args(tmp_path, database_url), "apikey", "revoke", key_id])
    assert done.returncode == 0
    listed = await run_cli([*db_args(tmp_path, database_url), "apikey", "list"])
    assert listed.stdout.decode().strip().split("\t")[3].endswith("Z")


async def test_revoking_an_unknown_key_fails_with_exit_1(tmp_path: Path, database_url: str) -> None:
    done = await run_cli([*db_args(tmp_path, database_url), "apikey", "revoke", "nope"])
    assert done.returncode == 1
    assert b"nope" in done.stderr and b"Traceback" not in done.stderr


async def test_user_add_reads_the_password_from_stdin(tmp_path: Path, database_url: str) -> None:
    done = await run_cli(
        [*db_args(tmp_path, database_url), "user", "add", "alice", "--admin", "--password-stdin"],
        stdin=b"s3cret pass\nignored\n",
    )
    assert done.returncode == 0, done.stderr
    async with open_store(database_url) as store:
        creds = await credentials_by_name(store, "alice")
    assert creds is not None and creds.user.is_admin and creds.password_hash is not None
    assert await verify_password(creds.password_hash, "s3cret pass")


async def test_user_add_without_password_and_user_list(tmp_path: Path, database_url: str) -> None:
    assert (await run_cli([*db_args(tmp_path, database_url), "user", "add", "bob"])).returncode == 0
    listed = await run_cli([*db_args(tmp_path, database_url), "user", "list"])
    fields = listed.stdout.decode().strip().split("\t")
    assert fields[1:3] == ["bob", "member"]


async def test_duplicate_user_fails_with_exit_1_and_one_message(tmp_path: Path, database_url: str) -> None:
    await run_cli([*db_args(tmp_path, database_url), "user", "add", "carol"])
    done = await run_cli([*db_args(tmp_path, database_url), "user", "add", "carol"])
    assert done.returncode == 1
    assert done.stderr.decode().count("\n") == 1


async def test_options_after_the_command_are_accepted(tmp_path: Path, database_url: str) -> None:
    done = await run_cli(["migrate", *db_args(tmp_path, database_url)])
    assert done.returncode == 0, done.stderr


async def test_invalid_configuration_exits_2_with_one_clear_line(tmp_path: Path) -> None:
    env = clean_environ(REELHOUSE_SCAN__PROBE_CONCURRENCY="99")
    done = await run_cli(["--data-dir", str(tmp_path), "migrate"], env=env)
    assert done.returncode == 2
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "scan.probe_concurrency" in lines[0]


async def test_invalid_bind_flag_exits_2(tmp_path: Path) -> None:
    done = await run_cli(["serve", "--bind", "nonsense", "--data-dir", str(tmp_path)])
    assert done.returncode == 2
    assert b"bind" in done.stderr


async def test_config_file_is_read_and_env_overrides_it(tmp_path: Path) -> None:
    config = tmp_path / "reelhouse.toml"
    config.write_text('[scan]\nprobe_concurrency = 42\n')
    done = await run_cli(["--config", str(config), "--data-dir", str(tmp_path), "migrate"])
    assert done.returncode == 2 and b"config file" in done.stderr
    env = clean_environ(REELHOUSE_SCAN__PROBE_CONCURRENCY="3")
    done = await run_cli(["--config", str(config), "--data-dir", str(tmp_path), "migrate"], env=env)
    assert done.returncode == 0, done.stderr
