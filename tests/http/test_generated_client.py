"""A client generated from the served OpenAPI document by openapi-python-client (PyPI) installs and works.

The document is fetched from a real server, the generator (the published
package, as a user runs it) writes a package, pip installs it into a
fresh virtual environment with its own dependencies, and a program in
that environment lists the libraries and their items through it.

The document does not depend on the backend: the test runs on SQLite only.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
import trio

from ..media_factory import MediaFactory
from ..sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .conftest import RunningServer
from .scanning import create_library, wait_for_state

GENERATE_S = 300.0
INSTALL_S = 600.0
PACKAGE = "reelhouse_client"
GENERATOR_CONFIG = Path(__file__).parents[2] / "docs" / "openapi-python-client.yaml"

PROGRAM = """
import json, sys
from reelhouse_client import AuthenticatedClient
from reelhouse_client.api.libraries import list_libraries
from reelhouse_client.api.items import list_items

client = AuthenticatedClient(base_url=sys.argv[1], token=sys.argv[2])
with client:
    libraries = list_libraries.sync(client=client)
    page = list_items.sync(client=client, library_id=libraries[0].id, recursive=True)
print(json.dumps({"libraries": [l.name for l in libraries], "items": [i.name for i in page.items]}))
"""


def _generator() -> str:
    found = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("openapi-python-client is not installed (pip install -e '.[test]')")
    return found


async def _run(argv: list[str], seconds: float, cwd: Path) -> str:
    # The generator formats its output with ruff, which it looks for on PATH (this venv's).
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with trio.fail_after(seconds):
        done = await trio.run_process(argv, cwd=cwd, capture_stdout=True, capture_stderr=True, check=False, env=env)
    assert done.returncode == 0, (argv[:3], done.stdout.decode()[-3000:], done.stderr.decode()[-3000:])
    return done.stdout.decode()


async def _client_for(document: dict, folder: Path) -> str:
    """The python of a venv with the client generated from ``document`` installed."""
    (folder / "openapi.json").write_text(json.dumps(document, sort_keys=True))
    # With the configuration docs/openapi-python-client.yaml gives users; no warning allowed.
    await _run([_generator(), "generate", "--path", "openapi.json", "--meta", "setup", "--output-path", "client",
                "--config", str(GENERATOR_CONFIG), "--fail-on-warning"], GENERATE_S, folder)
    assert (folder / "client" / PACKAGE / "api" / "libraries" / "list_libraries.py").is_file()
    await _run([sys.executable, "-m", "venv", "venv"], INSTALL_S, folder)
    venv_python = str(folder / "venv" / "bin" / "python")
    await _run([venv_python, "-m", "pip", "install", "--quiet", "./client"], INSTALL_S, folder)
    return venv_python


@pytest.mark.long
async def test_a_generated_python_client_installs_and_lists_libraries_and_items(
    server: RunningServer, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, media: MediaFactory
) -> None:
    _generator()
    media.video(tmp_path / "films" / "Amelie (2001)" / "Amelie (2001).mkv")
    async with server.client() as client:
        with trio.fail_after(20):
            document = (await client.get("/openapi.json")).json()
        library = await create_library(client, "Films", [tmp_path / "films"])
        await wait_for_state(client, library["id"])
    venv_python = await _client_for(document, tmp_path_factory.mktemp("generated-client"))

    (tmp_path / "program.py").write_text(PROGRAM)
    listed = json.loads(await _run([venv_python, "program.py", server.base_url, server.key], 60, tmp_path))
    assert listed == {"libraries": ["Films"], "items": ["Amelie"]}
