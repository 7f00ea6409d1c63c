"""Configuration precedence and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from reelhouse.config import ConfigError, Settings, load_settings

DEFAULT_TOML = Path(__file__).parents[1] / "conf" / "default.toml"


def test_default_toml_documents_exactly_the_defaults() -> None:
    assert load_settings(DEFAULT_TOML, environ={}) == Settings()


def test_every_setting_appears_in_default_toml() -> None:
    text = DEFAULT_TOML.read_text()
    for name, field in Settings.model_fields.items():
        assert f"{name} =" in text or f"[{name}]" in text
        sub = getattr(field.annotation, "model_fields", {})
        for sub_name in sub:
            assert f"{sub_name} =" in text


def test_precedence_defaults_file_env_flags(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('bind = "127.0.0.1:1000"\nserver_name = "file"\n[scan]\nprobe_concurrency = 2\nmax_concurrent_full_scans = 5\n')
    env = {"REELHOUSE_BIND": "127.0.0.1:2000", "REELHOUSE_SCAN__PROBE_CONCURRENCY": "3"}
    settings = load_settings(config, flags={"bind": "127.0.0.1:3000"}, environ=env)
    assert settings.bind == "127.0.0.1:3000"  # flag beats env and file
    assert settings.server_name == "file"  # file beats default
    assert settings.scan.probe_concurrency == 3  # env beats file
    assert settings.scan.max_concurrent_full_scans == 5  # file value in the same table survives


def test_config_file_from_environment(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('server_name = "from-env-file"\n')
    assert load_settings(environ={"REELHOUSE_CONFIG": str(config)}).server_name == "from-env-file"


@pytest.mark.parametrize(
    ("environ", "needle"),
    [
        ({"REELHOUSE_BIND": "nope"}, "bind"),
        ({"REELHOUSE_SHUTDOWN_GRACE_SECONDS": "-1"}, "shutdown_grace_seconds"),
        ({"REELHOUSE_DATABASE_URL": "mysql://x"}, "database_url"),
        ({"REELHOUSE_LOG_LEVEL": "loud"}, "log_level"),
        ({"REELHOUSE_NO_SUCH_SETTING": "1"}, "no_such_setting"),
        ({"REELHOUSE_CLUSTER__SESSION_SWEEP_SECONDS": "0.1"}, "session_sweep_seconds"),
    ],
)
def test_invalid_value_is_one_clear_error(environ: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings(environ=environ)
    assert needle in str(raised.value)
    assert "\n" not in str(raised.value)


def test_unreadable_or_invalid_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_settings(tmp_path / "missing.toml", environ={})
    bad = tmp_path / "bad.toml"
    bad.write_text("bind = ")
    with pytest.raises(ConfigError):
        load_settings(bad, environ={})


def test_default_database_is_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    settings = load_settings(flags={"data_dir": str(tmp_path)}, environ={})
    assert settings.effective_database_url == f"sqlite:///{tmp_path / 'reelhouse.db'}"


def test_a_list_setting_from_the_environment_is_json() -> None:
    settings = load_settings(environ={"REELHOUSE_DLNA__INTERFACES": '["lo", "eth0"]',
                                      "REELHOUSE_SCAN": '{"probe_concurrency": 3}',
                                      "REELHOUSE_SCAN__MAX_CONCURRENT_FULL_SCANS": "5"})
    assert settings.dlna.interfaces == ["lo", "eth0"]
    assert (settings.scan.probe_concurrency, settings.scan.max_concurrent_full_scans) == (3, 5)


@pytest.mark.parametrize(("environ", "needle"), [
    ({"REELHOUSE_DLNA__INTERFACES": "lo"}, "REELHOUSE_DLNA__INTERFACES"),  # was a SettingsError traceback
    ({"REELHOUSE_SCAN": "fast"}, "REELHOUSE_SCAN"),
])
def test_an_environment_value_of_the_wrong_shape_is_one_clear_error(environ: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings(environ=environ)
    assert needle in str(raised.value) and "\n" not in str(raised.value)
