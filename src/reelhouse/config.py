"""Server configuration.

Precedence, lowest first: built-in defaults < the TOML file (``--config`` or
``REELHOUSE_CONFIG``) < ``REELHOUSE_*`` environment variables (a setting in a
table as ``REELHOUSE_SCAN__MAX_CONCURRENT_FULL_SCANS``) < command-line flags.
The layers are merged key by key, then validated once. ``conf/default.toml`` documents every setting with its default.

:func:`load_settings` raises :class:`ConfigError` with one readable line for
any invalid value; the command line turns that into exit code 2.
"""

from __future__ import annotations

import os
import socket
import tomllib
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ENV_PREFIX = "REELHOUSE_"
CONFIG_ENV = "REELHOUSE_CONFIG"
DEFAULT_BIND = "127.0.0.1:8096"


class ConfigError(Exception):
    """The configuration is invalid; the message names the setting and why."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScanSettings(_Section):
    max_concurrent_full_scans: int = Field(2, ge=1, le=64)
    probe_concurrency: int = Field(4, ge=1, le=8)
    probe_timeout_seconds: float = Field(30.0, gt=0, le=3600)
    monitor_debounce_seconds: float = Field(2.0, gt=0, le=600)
    progress_interval_seconds: float = Field(0.25, gt=0, le=60)


class HttpSettings(_Section):
    max_connections: int = Field(256, ge=1, le=100_000)
    keep_alive_seconds: float = Field(5.0, gt=0, le=3600)


class ScheduleSettings(_Section):
    # How often the running server looks for rule changes made from the command line.
    reload_poll_seconds: float = Field(2.0, gt=0, le=300)
    # idle: no playback session and no scan for this long.
    idle_minutes: float = Field(10.0, gt=0, le=1440)
    job_retention_hours: float = Field(24.0, gt=0, le=24 * 365)
    scan_error_retention_days: float = Field(30.0, gt=0, le=3650)
    history_ip_retention_days: float = Field(90.0, gt=0, le=3650)
    backup_keep: int = Field(7, ge=1, le=1000)


class UpdateSettings(_Section):
    check_enabled: bool = False
    release_url: str = ""


class Settings(_Section):
    """Every setting of the server; see conf/default.toml for the meaning."""

    bind: str = DEFAULT_BIND
    data_dir: Path = Path("data")
    database_url: str = ""
    server_name: str = ""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    shutdown_grace_seconds: float = Field(10.0, gt=0, le=300)
    ffprobe_path: str = "ffprobe"
    image_cache_max_bytes: int = Field(512 * 1024 * 1024, ge=0)
    time_zone: str = ""
    scan: ScanSettings = ScanSettings()
    http: HttpSettings = HttpSettings()
    update: UpdateSettings = UpdateSettings()
    schedule: ScheduleSettings = ScheduleSettings()

    @field_validator("time_zone")
    @classmethod
    def _time_zone_is_known(cls, value: str) -> str:
        if value:
            try:
                ZoneInfo(value)
            except (KeyError, ValueError):
                raise ValueError("must be an IANA time zone name, e.g. Europe/Berlin") from None
        return value

    @field_validator("bind")
    @classmethod
    def _bind_is_host_port(cls, value: str) -> str:
        host, sep, port = value.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError("must be HOST:PORT, e.g. 127.0.0.1:8096")
        return value

    @field_validator("database_url")
    @classmethod
    def _database_url_is_known(cls, value: str) -> str:
        known = ("", "sqlite://", "postgresql://", "postgres://")
        if value and not any(value.startswith(p) for p in known if p):
            raise ValueError("must start with sqlite:// or postgresql://")
        return value

    @property
    def host(self) -> str:
        return self.bind.rpartition(":")[0]

    @property
    def port(self) -> int:
        return int(self.bind.rpartition(":")[2])

    @property
    def effective_database_url(self) -> str:
        """The database URL, defaulting to SQLite inside the data directory."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'reelhouse.db').resolve()}"

    @property
    def effective_server_name(self) -> str:
        return self.server_name or socket.gethostname()



def load_settings(
    config_file: str | os.PathLike[str] | None = None,
    flags: dict[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the settings from file, environment and flags (highest wins).

    Raises ConfigError for an unreadable file or any invalid value.
    """
    environ = os.environ if environ is None else environ
    path = config_file or environ.get(CONFIG_ENV) or None
    values = _read_toml(Path(path)) if path else {}
    _deep_merge(values, _from_environ(environ))
    _deep_merge(values, {k: v for k, v in (flags or {}).items() if v is not None})
    try:
        return Settings(**values)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from None


def _from_environ(environ: Mapping[str, str]) -> dict[str, Any]:
    """``REELHOUSE_SCAN__PROBE_CONCURRENCY=3`` -> ``{"scan": {"probe_concurrency": "3"}}``."""
    values: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or name == CONFIG_ENV:
            continue
        *sections, key = name.removeprefix(ENV_PREFIX).lower().split("__")
        target = values
        for section in sections:
            target = target.setdefault(section, {})
        target[key] = raw
    return values


def _deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> None:
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _deep_merge(base[key], value)
        else:
            base[key] = value


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None


def _describe(exc: ValidationError, path: str | os.PathLike[str] | None) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "settings"
    source = f" (config file {path}, environment or flags)" if path else ""
    return f"invalid setting {where}: {first['msg']}{source}"
