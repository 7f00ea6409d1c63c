"""One version, from pyproject.toml: the package and the command line agree, and it is a release number."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.version import Version

import reelhouse

from .server_process import run_cli

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _declared() -> str:
    return str(tomllib.loads(PYPROJECT.read_text())["project"]["version"])


def test_the_package_version_is_the_one_pyproject_declares_and_a_valid_release_number() -> None:
    assert reelhouse.__version__ == version("reelhouse") == _declared()
    assert not Version(reelhouse.__version__).is_devrelease


async def test_reelhouse_version_prints_the_version_and_succeeds() -> None:
    done = await run_cli(["--version"], cold=True)
    assert done.returncode == 0
    assert done.stdout.decode().strip() == f"reelhouse {_declared()}"

