"""The plugin catalog on disk: install, update, remove, bundled plugins."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reelhouse.storage import plugin_catalog as catalog
from tests.actors.plugins.factory import make_plugin


def test_install_copies_the_plugin_and_an_update_remembers_the_previous_version(tmp_path: Path) -> None:
    data = tmp_path / "data"
    entry = catalog.install(data, make_plugin(tmp_path / "v1", "demo", version="1.0"))
    assert (catalog.plugins_dir(data) / "demo" / "plugin.toml").is_file()
    assert entry.state.installed_at_ms > 0 and entry.state.previous_version is None
    catalog.update_state(data, "demo", settings={"apiKey": "k"})
    catalog.install(data, make_plugin(tmp_path / "v2", "demo", version="2.0"))
    [found] = [e for e in catalog.discover(data, None) if e.id == "demo"]
    assert found.manifest is not None and found.manifest.version == "2.0"
    assert found.state.previous_version == "1.0"
    assert found.state.settings == {"apiKey": "k"}  # an update keeps the settings
    assert stat.S_IMODE(os.stat(data / catalog.STATE_FILE).st_mode) == 0o600


def test_remove_keeps_the_settings_and_the_plugin_reads_not_installed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    catalog.install(data, make_plugin(tmp_path / "src", "demo"))
    catalog.update_state(data, "demo", settings={"apiKey": "k"})
    catalog.remove(data, "demo")
    [found] = catalog.discover(data, None)
    assert (found.installed, found.manifest, found.state.settings) == (False, None, {"apiKey": "k"})
    with pytest.raises(catalog.PluginCatalogError):
        catalog.remove(data, "demo")


def test_a_directory_that_is_not_a_plugin_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(catalog.PluginCatalogError):
        catalog.install(tmp_path / "data", tmp_path / "empty")
    with pytest.raises(catalog.PluginCatalogError):
        catalog.update_state(tmp_path / "data", "ghost", enabled=False)


def test_an_unreadable_manifest_is_listed_with_its_error(tmp_path: Path) -> None:
    data = tmp_path / "data"
    broken = catalog.plugins_dir(data) / "broken"
    broken.mkdir(parents=True)
    (broken / "plugin.toml").write_text('id = "broken"\n')
    [found] = catalog.discover(data, None)
    assert found.installed and found.manifest is None and "name" in (found.manifest_error or "")


def test_the_bundled_example_is_found_as_bundled_and_off_until_enabled(tmp_path: Path) -> None:
    [hello] = [e for e in catalog.discover(tmp_path / "data") if e.id == "hello"]
    assert hello.bundled and hello.bundled_version == "1.0.0" and not hello.state.enabled
    assert hello.state.installed_at_ms > 0
    catalog.update_state(tmp_path / "data", "hello", settings={"greeting": "hi"})  # configuring is not enabling
    assert not catalog.load_states(tmp_path / "data")["hello"].enabled
    catalog.update_state(tmp_path / "data", "hello", enabled=True)
    [hello] = [e for e in catalog.discover(tmp_path / "data") if e.id == "hello"]
    assert hello.state.enabled


def test_the_fingerprint_changes_with_every_change(tmp_path: Path) -> None:
    data = tmp_path / "data"
    before = catalog.fingerprint(data, None)
    catalog.install(data, make_plugin(tmp_path / "src", "demo"))
    installed = catalog.fingerprint(data, None)
    assert installed != before
    os.utime(data / catalog.STATE_FILE, ns=(1, 1))
    catalog.update_state(data, "demo", enabled=False)
    assert catalog.fingerprint(data, None) != installed


def test_an_install_in_progress_or_a_retired_copy_is_not_listed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_plugin(catalog.plugins_dir(data), ".demo-staging", extra="")
    catalog.install(data, make_plugin(tmp_path / "src", "demo"))
    catalog.install(data, make_plugin(tmp_path / "src2", "demo", version="2"))
    assert [e.id for e in catalog.discover(data, None)] == ["demo"]
    assert sorted(p.name for p in catalog.plugins_dir(data).iterdir()) == [".demo-staging", "demo"]
