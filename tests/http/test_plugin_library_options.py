"""Library settings naming plugins, checked against the plugins really installed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.storage import plugin_catalog
from tests.actors.plugins.factory import make_plugin

from .conftest import RunningServer, start_server

CAP_S = 60


@pytest.fixture
async def server_with_plugins(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> AsyncIterator[RunningServer]:
    data_dir = tmp_path / "data"
    plugins = plugin_catalog.plugins_dir(data_dir)
    make_plugin(plugins, "movies", extra='capabilities = ["metadata.movie", "images"]')
    make_plugin(plugins, "series", extra='capabilities = ["metadata.series", "segments"]')
    make_plugin(plugins, "namer", extra='capabilities = ["recognizer"]')
    make_plugin(plugins, "off", extra='capabilities = ["metadata.movie"]')
    plugin_catalog.update_state(data_dir, "off", enabled=False)
    running = await start_server(nursery, database_url, data_dir)
    yield running
    running.shutdown.set()


async def test_creation_without_providers_selects_every_available_installed_one(
    server_with_plugins: RunningServer, tmp_path: Path,
) -> None:
    root = tmp_path / "films"
    root.mkdir()
    with trio.fail_after(CAP_S):
        async with server_with_plugins.client() as client:
            response = await client.post("/libraries", json={
                "name": "Films", "paths": [str(root)], "collectionType": "movies"})
            assert response.status_code == 201, response.text
            options = response.json()["options"]
    assert options["metadataProviders"] == ["movies"]  # enabled, for movies; "off" is disabled
    assert options["recognizers"] == ["namer"]


@pytest.mark.parametrize(("field", "value", "code"), [
    ("imageSources", "series", "image_source_not_installed"),
    ("segmentProviders", "movies", "segment_provider_not_installed"),
    ("recognizers", "ghost", "recognizer_not_installed"),
    ("backgroundPlugins", "ghost", "field_invalid"),
])
async def test_options_naming_plugins_not_installed_or_not_declaring_it_are_400(
    server_with_plugins: RunningServer, tmp_path: Path, field: str, value: str, code: str,
) -> None:
    root = tmp_path / "films"
    root.mkdir()
    with trio.fail_after(CAP_S):
        async with server_with_plugins.client() as client:
            response = await client.post("/libraries", json={
                "name": "Films", "paths": [str(root)], "collectionType": "movies",
                "options": {"remoteAllowedHosts": [], field: [value]}})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == code
    assert response.json()["params"]["field"] == field


async def test_options_naming_installed_plugins_are_accepted(server_with_plugins: RunningServer, tmp_path: Path) -> None:
    root = tmp_path / "films"
    root.mkdir()
    with trio.fail_after(CAP_S):
        async with server_with_plugins.client() as client:
            response = await client.post("/libraries", json={
                "name": "Films", "paths": [str(root)], "collectionType": "movies",
                "options": {"remoteAllowedHosts": [], "imageSources": ["movies"], "segmentProviders": ["series"],
                            "backgroundPlugins": ["off"], "metadataProviders": ["off", "movies", "series"]}})
    assert response.status_code == 201, response.text
    options = response.json()["options"]
    assert options["imageSources"] == ["movies"] and options["segmentProviders"] == ["series"]
    assert options["metadataProviders"] == ["movies"]  # disabled and wrong-kind ones dropped
