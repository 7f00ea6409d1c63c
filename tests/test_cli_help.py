"""The command line as a newcomer meets it: help on every argument, one line for a bad database, completion."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
import trio

from reelhouse.cli._parser import build_parser as _parser
from reelhouse.media.schedule import CORE_TASKS

from .conftest import postgres_problem
from .server_process import CLI_TIMEOUT_S, clean_environ, run_cli

# What a command needs when it runs, never to print help or the version.
HEAVY_MODULES = ("trio", "httpx", "pydantic", "pydantic_settings", "asyncpg", "psycopg", "sqlite3", "croniter",
                 "shtab", "importlib.metadata", "reelhouse.config", "reelhouse.storage", "reelhouse.runtime",
                 "reelhouse.server")


def _parsers(parser: argparse.ArgumentParser, path: str = "reelhouse") -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.extend(_parsers(sub, f"{path} {name}"))
    return found


def test_every_argument_of_every_command_has_help_text() -> None:
    missing = [
        f"{path}: {action.dest}"
        for path, parser in _parsers(_parser())
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction) and not action.help
    ]
    assert missing == []


def test_bind_is_an_option_of_serve_only() -> None:
    with_bind = [path for path, parser in _parsers(_parser())
                 if any("--bind" in action.option_strings for action in parser._actions)]
    assert with_bind == ["reelhouse serve"]


def test_schedule_set_help_lists_the_task_names() -> None:
    [set_help] = [parser.format_help() for path, parser in _parsers(_parser()) if path == "reelhouse schedule set"]
    flat = " ".join(set_help.split())
    assert all(task in flat for task in CORE_TASKS)


async def test_schedule_reset_says_reset_not_reseted(tmp_path: Path) -> None:
    done = await run_cli(["--data-dir", str(tmp_path / "data"), "schedule", "reset", "backup"], cold=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == "backup: reset to its default rules"
    paused = await run_cli(["--data-dir", str(tmp_path / "data"), "schedule", "pause", "backup"], cold=True)
    assert paused.stdout.decode().strip() == "backup: paused"


async def test_a_bash_completion_script_is_printed() -> None:
    done = await run_cli(["--print-completion", "bash"], cold=True)
    assert done.returncode == 0, done.stderr
    script = done.stdout.decode()
    assert "complete" in script and "reelhouse" in script and "schedule" in script


@pytest.mark.skipif(postgres_problem() is not None, reason=str(postgres_problem()))
@pytest.mark.parametrize(("url", "reason"), [
    ("postgresql://no_such_role@127.0.0.1:5432/test", 'role "no_such_role" does not exist'),
    ("postgresql://root@127.0.0.1:5432/no_such_database", 'database "no_such_database" does not exist'),
])
@pytest.mark.parametrize("command", [["serve", "--bind", "127.0.0.1:0"], ["apikey", "list"]])
async def test_a_database_that_cannot_be_opened_is_one_line_and_exit_2(
    tmp_path: Path, url: str, reason: str, command: list[str]
) -> None:
    done = await run_cli([*command, "--data-dir", str(tmp_path / "data"), "--database", url], cold=True)
    assert done.returncode == 2
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1, done.stderr.decode()
    assert lines[0].startswith("reelhouse: cannot connect to PostgreSQL at 127.0.0.1:5432/") and reason in lines[0]


async def test_nothing_listening_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = await run_cli(["serve", "--bind", "127.0.0.1:0", "--data-dir", str(tmp_path / "data"),
                          "--database", "postgresql://root@127.0.0.1:1/test"], cold=True)
    assert done.returncode == 2
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reelhouse: cannot connect to PostgreSQL at 127.0.0.1:1/test")


def _unmeasured(env: dict[str, str]) -> dict[str, str]:
    """``env`` without `make coverage`'s request to measure: coverage itself imports sqlite3 (its data file)."""
    return {name: value for name, value in env.items() if not name.startswith("COVERAGE_PROCESS_")}


@pytest.mark.parametrize("argv", [["--help"], ["schedule", "set", "--help"], ["--version"], ["no-such-command"]])
async def test_help_version_and_usage_errors_import_no_command_modules(argv: list[str]) -> None:
    # The parser's modules only: --help ran in 370 ms on a busy machine with
    # the store, trio and httpx imported (benchmarks measure the time; this holds the cause).
    probe = (f"import sys\nfrom reelhouse.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
             f"print('MODULES', *sorted(sys.modules))")
    with trio.fail_after(CLI_TIMEOUT_S):
        done = await trio.run_process([sys.executable, "-c", probe], capture_stdout=True, capture_stderr=True,
                                      check=False, env=_unmeasured(clean_environ()))
    [modules_line] = [line for line in done.stdout.decode().splitlines() if line.startswith("MODULES ")]
    loaded = set(modules_line.split()[1:])
    assert sorted(name for name in HEAVY_MODULES if name in loaded) == (["importlib.metadata"] if argv == ["--version"]
                                                                        else [])
