"""Server configuration, layered by pydantic-settings.

Precedence, lowest first: built-in defaults < the TOML file (``--config`` or
``REELHOUSE_CONFIG``) < ``REELHOUSE_*`` environment variables (a setting in a
table as ``REELHOUSE_SCAN__MAX_CONCURRENT_FULL_SCANS``) < command-line flags.
The layers are merged key by key, then validated once.  ``conf/default.toml``
documents every setting with its default.  The layers are only those
:func:`load_settings` is given: ``Settings()`` alone is the defaults.

:func:`load_settings` raises :class:`ConfigError` with one readable line for
any invalid value; the command line turns that into exit code 2.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)
from pydantic_settings.sources.utils import parse_env_vars

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
    probe_worker_command: tuple[str, ...] = ()  # empty: this Python runs reelhouse's probe worker
    monitor_debounce_seconds: float = Field(2.0, gt=0, le=600)
    progress_interval_seconds: float = Field(0.25, gt=0, le=60)
    health_probe_at_start: bool = True  # the status's mediaProbe check at start-up (a probe worker starts)


class HttpSettings(_Section):
    max_connections: int = Field(256, ge=1, le=100_000)
    keep_alive_seconds: float = Field(5.0, gt=0, le=3600)
    # A WebSocket message (all its frames together) over this many bytes closes the socket with 1009.
    websocket_max_message_bytes: int = Field(64 * 1024, ge=1024, le=16 * 1024 * 1024)
    # A request body may keep the client waited on for body_seconds, plus one second per
    # body_min_bytes_per_second received; then 408 and the connection closes (http/edge/limits.py).
    body_seconds: float = Field(10.0, gt=0, le=3600)
    body_min_bytes_per_second: int = Field(1024, ge=1, le=1024 * 1024 * 1024)
    # This share of max_connections is kept for clients with an API key or a device token:
    # connections without (sign-in, a client before its first request) hold the rest (http/edge/admission.py).
    authenticated_share: float = Field(0.25, ge=0, le=0.9)
    # How long a request waits on a busy part of the server (an actor's answer) before it is 503.
    ask_timeout_seconds: float = Field(10.0, gt=0, le=600)


class ScheduleSettings(_Section):
    # How often the running server looks for rule and plugin changes made from the command line.
    reload_poll_seconds: float = Field(2.0, gt=0, le=300)
    # idle: no playback session and no scan for this long.
    idle_minutes: float = Field(10.0, gt=0, le=1440)
    job_retention_hours: float = Field(24.0, gt=0, le=24 * 365)
    scan_error_retention_days: float = Field(30.0, gt=0, le=3650)
    history_ip_retention_days: float = Field(90.0, gt=0, le=3650)
    # cleanup deletes activity log entries older than this (the audit trail's retention).
    activity_retention_days: float = Field(365.0, gt=0, le=36500)
    backup_keep: int = Field(7, ge=1, le=1000)
    # `backup restore` refuses an archive whose entries inflate past this many bytes in all.
    restore_max_bytes: int = Field(32 << 30, ge=4096, le=1 << 50)


class PlaybackSettings(_Section):
    # A session with no report for this long ends by itself (api-decisions.md: 5 minutes).
    idle_end_seconds: float = Field(300.0, gt=0, le=86400)
    # After a remote stop, the session ends when the player reports stopped, or after this long.
    stop_wait_seconds: float = Field(10.0, gt=0, le=600)
    # A live session saves its last known state at most this often (0: at every report), so that
    # a server killed meanwhile records it at its next start, ended by a crash.
    save_interval_seconds: float = Field(10.0, ge=0, le=3600)
    # The remote-control socket: a ping this often; no pong within pong_timeout_seconds = dead.
    ping_interval_seconds: float = Field(30.0, gt=0, le=3600)
    pong_timeout_seconds: float = Field(10.0, gt=0, le=3600)


class ScrapeSettings(_Section):
    # A provider image download: every redirect hop and the whole body within this.
    image_download_seconds: float = Field(60.0, gt=0, le=3600)
    # All the images of one item (waits for a download slot included) within this.
    item_images_seconds: float = Field(120.0, gt=0, le=3600)


class ClusterSettings(_Section):
    # PostgreSQL only (docs/cluster.md). A library's leader renews its lease three times per
    # lease_seconds; after a leader's death another node leads within about lease_seconds
    # plus a third of it.
    lease_seconds: float = Field(10.0, ge=1, le=300)
    heartbeat_seconds: float = Field(2.0, gt=0, le=60)
    # A node not heard from for this long is removed from the node list.
    node_expiry_seconds: float = Field(15.0, gt=0, le=3600)
    # Commands between nodes wake by LISTEN/NOTIFY; each side also looks this often.
    command_poll_seconds: float = Field(1.0, gt=0, le=60)
    # How often each node looks for the live playback sessions of nodes that died, to record
    # them as ended by a crash (one small query): within node_expiry_seconds plus this of a death.
    session_sweep_seconds: float = Field(15.0, ge=0.5, le=3600)
    # The address other nodes and the node list show for this node; empty: the bound URL.
    address: str = ""


class UpdateSettings(_Section):
    check_enabled: bool = False
    release_url: str = ""


class MetricsSettings(_Section):
    # GET /metrics (Prometheus text format, an API key required): off unless asked for.
    enabled: bool = False


class WebSettings(_Section):
    # Addresses or networks (CIDR) of reverse proxies whose X-Forwarded-Proto is believed:
    # a request from one of them with "https" gets a Secure cookie (http/web/cookies.py).
    trusted_proxies: tuple[str, ...] = ()
    # How long a web sign-in's cookie lasts, unless the member has sessionOnlyLogin.
    cookie_days: float = Field(30.0, gt=0, le=3650)

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or network (e.g. 10.0.0.0/8)") from None
        return value
class DlnaSettings(_Section):
    # A UPnP AV MediaServer for televisions and VLC (docs/dlna.md): off unless asked for.
    enabled: bool = False
    # Network interfaces SSDP announces and answers on (names such as "eth0"); empty: none.
    interfaces: list[str] = []
    # The member whose library access applies to every DLNA client; empty: no library is shown.
    member: str = ""


class Settings(BaseSettings):
    """Every setting of the server; see conf/default.toml for the meaning."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="forbid", frozen=True
    )

    bind: str = DEFAULT_BIND
    data_dir: Path = Path("data")
    database_url: str = ""
    server_name: str = ""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["text", "json"] = "text"  # reelhouse.logs
    access_log: bool = False  # one line per request (http/access_log.py)
    shutdown_grace_seconds: float = Field(10.0, gt=0, le=300)
    ffprobe_path: str = "ffprobe"
    image_cache_max_bytes: int = Field(512 * 1024 * 1024, ge=0)
    time_zone: str = ""
    malloc_arena_max: int = Field(2, ge=0, le=1024)  # reelhouse.process.native_memory; 0: glibc's default
    tracemalloc_seconds: float = Field(0.0, ge=0, le=86400)  # reelhouse.process.memory_trace; 0: off
    scan: ScanSettings = ScanSettings()
    http: HttpSettings = HttpSettings()
    update: UpdateSettings = UpdateSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    playback: PlaybackSettings = PlaybackSettings()
    scrape: ScrapeSettings = ScrapeSettings()
    metrics: MetricsSettings = MetricsSettings()
    cluster: ClusterSettings = ClusterSettings()
    web: WebSettings = WebSettings()
    dlna: DlnaSettings = DlnaSettings()

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

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Highest first: flags (the constructor's arguments), environment, file."""
        path, environ = _LAYERS.get()
        return (init_settings, _Environment(settings_cls, environ), TomlConfigSettingsSource(settings_cls, path))

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



_LAYERS: ContextVar[tuple[Path | None, Mapping[str, str]]] = ContextVar("reelhouse_config_layers", default=(None, {}))


class _Environment(EnvSettingsSource):
    """``REELHOUSE_*`` from a given mapping; a name that is no setting is an error, not ignored."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = {name: value for name, value in environ.items() if name != CONFIG_ENV}
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self._environ, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)

    def __call__(self) -> dict[str, Any]:
        values = super().__call__()
        prefix = ENV_PREFIX.lower()
        for name in self.env_vars:
            key = name.removeprefix(prefix).partition("__")[0]
            if name.startswith(prefix) and key not in self.settings_cls.model_fields:
                values[key] = self.env_vars[name]  # refused by extra="forbid", by its name
        return values


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
    given = {key: value for key, value in (flags or {}).items() if value is not None}
    try:
        with _layers(Path(path) if path else None, environ):
            return Settings(**given)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except SettingsError:  # a list or table from the environment that is not JSON
        raise ConfigError(_describe_environment(environ)) from None


@contextmanager
def _layers(path: Path | None, environ: Mapping[str, str]) -> Iterator[None]:
    if path is not None:
        try:  # the TOML source skips a missing file; a file named must be there
            path.open("rb").close()
        except OSError as exc:
            raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    token = _LAYERS.set((path, environ))
    try:
        yield
    finally:
        _LAYERS.reset(token)


def _describe_environment(environ: Mapping[str, str]) -> str:
    # pydantic-settings names only the section; the variables of structured settings are named instead.
    tables = {f"{ENV_PREFIX}{name}".upper() for name, field in Settings.model_fields.items()
              if isinstance(field.default, BaseModel)}
    names = sorted(key for key in environ if key.upper().startswith(ENV_PREFIX) and (
        "__" in key or key.upper() in tables))
    return (f"invalid setting in the environment ({', '.join(names) or 'REELHOUSE_*'}): "
            "a list or a whole table is JSON, e.g. REELHOUSE_DLNA__INTERFACES='[\"lo\"]'")


def _describe(exc: ValidationError, path: str | os.PathLike[str] | None) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "settings"
    source = f" (config file {path}, environment or flags)" if path else ""
    return f"invalid setting {where}: {first['msg']}{source}"
