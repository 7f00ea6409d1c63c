"""PluginActor: one per known plugin; owns its process and its status.

Status, first match wins (the reference's plugin status table):

- ``not_installed``: the directory is gone (settings kept)
- ``unknown``: the manifest cannot be read (``lastError`` says why)
- ``incompatible``: built for an older protocol (manifest or handshake);
  never started again, never counted as a crash
- ``disabled``: turned off by the administrator (``disableReason: manual``)
- ``crash_disabled``: crashed ``max_crashes`` times within the window
  (``disableReason: crash``, ``lastErrorCode: crashed``); enabling it again
  clears the count
- ``license_required``: a paid plugin not covered (process stopped)
- ``needs_configuration``: a required setting is unset (``missingRequired``)
- ``starting`` / ``running``: the process is being started / answers calls
- ``restarting``: it crashed and starts again after a backoff
- ``idle``: configured, no process (never used yet, or stopped after
  ``idle_seconds`` without a call); the next use starts it.

The process starts on first use (:class:`Acquire`), so installed plugins
cost nothing until something needs them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio

from reelhouse.media.plugin_manifest import MIN_PROTOCOL_VERSION
from reelhouse.media.plugin_policy import CrashPolicy, CrashWindow
from reelhouse.runtime import Actor, ActorStopped, Ask
from reelhouse.storage.plugin_catalog import PluginEntry

from ..library_settings import entitled
from .connection import PluginCallError, PluginConnection, PluginNotRunning
from .session import IncompatiblePlugin, LaunchSpec, Session, SessionEnd, resolve_argv, run_session
from .stats import PluginStats, Stat

_log = logging.getLogger("reelhouse.plugins")


@dataclass(frozen=True, slots=True)
class Acquire(Ask["Startup"]):
    """Ask: a :class:`Startup` (starting the process if needed); PluginNotRunning when it cannot run."""


@dataclass(frozen=True, slots=True)
class Describe(Ask["PluginView"]):
    """Ask: a :class:`PluginView`."""


@dataclass(frozen=True, slots=True)
class Reconfigure:
    """Tell: the catalog changed (enabled, settings, a new version, removed)."""

    entry: PluginEntry


@dataclass(frozen=True, slots=True)
class IdleCheck:
    """Tell: stop the process if no call ran for the idle time."""


@dataclass(frozen=True, slots=True)
class _Ended:
    generation: int
    end: SessionEnd


@dataclass(frozen=True, slots=True)
class _Launched:
    generation: int
    session: Session | None
    error: Exception | None


class Startup:
    """What :class:`Acquire` answers: the connection, once the process is up."""

    def __init__(self) -> None:
        self._done = trio.Event()
        self._connection: PluginConnection | None = None
        self._error: Exception | None = None

    @classmethod
    def ready(cls, connection: PluginConnection) -> Startup:
        startup = cls()
        startup.finish(connection=connection)
        return startup

    def finish(self, *, connection: PluginConnection | None = None, error: Exception | None = None) -> None:
        if not self._done.is_set():
            self._connection, self._error = connection, error
            self._done.set()

    async def connection(self) -> PluginConnection:
        """Raises PluginNotRunning or PluginCallError when the start failed."""
        await self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._connection is not None
        return self._connection


@dataclass(frozen=True, slots=True)
class _RestartDue:
    generation: int


@dataclass(frozen=True, slots=True)
class HostConfig:
    data_dir: Path
    server_version: str
    policy: CrashPolicy = CrashPolicy()
    idle_seconds: float | None = None  # overrides the manifests' (tests)
    # Whether a license covers a paid feature (or a paid plugin, by its id).
    entitled: Callable[[str], bool] = entitled


@dataclass(frozen=True, slots=True)
class PluginView:
    entry: PluginEntry
    status: str
    enabled: bool
    missing_required: tuple[str, ...]
    concurrency: int
    disable_reason: str | None
    last_error: str | None
    last_error_code: str | None
    paused_until_ms: int | None
    stats: tuple[Stat, ...]
    entitled_features: frozenset[str]


class PluginActor(Actor):
    def __init__(self, entry: PluginEntry, config: HostConfig, stats: PluginStats | None = None) -> None:
        self._entry = entry
        self._config = config
        self._stats = stats or PluginStats(entry.id)
        self._crashes = CrashWindow(config.policy)
        self._session: Session | None = None
        self._startup: Startup | None = None
        self._generation = 0
        self._restart_at: float | None = None
        self._crash_disabled = False
        self._incompatible: str | None = None
        self._last_error: str | None = None
        self._last_error_code: str | None = None

    async def handle(self, msg: object) -> object:
        match msg:
            case Acquire():
                return self._acquire()
            case _Launched():
                self._launched(msg)
            case Describe():
                return self._view()
            case Reconfigure(entry=entry):
                await self._reconfigure(entry)
            case IdleCheck():
                self._idle_check()
            case _Ended(generation=generation, end=end) if generation == self._generation:
                self._ended(end)
            case _RestartDue(generation=generation) if generation == self._generation:
                self._restart_at = None
                self._start_quietly()
            case _Ended() | _RestartDue():
                pass  # about an older session
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    async def on_stop(self) -> None:
        if self._session is not None:
            self._session.stop()
        if self._startup is not None:
            self._startup.finish(error=PluginNotRunning(self._entry.id, "stopped"))

    # -- status ------------------------------------------------------------------

    def status(self) -> str:
        entry = self._entry
        if not entry.installed:
            return "not_installed"
        if entry.manifest is None:
            return "unknown"
        if self._incompatible or entry.manifest.protocol < MIN_PROTOCOL_VERSION:
            return "incompatible"
        if not entry.state.enabled:
            return "disabled"
        if self._crash_disabled:
            return "crash_disabled"
        if entry.manifest.paid and not self._config.entitled(entry.id):
            return "license_required"
        if self._missing():
            return "needs_configuration"
        if self._startup is not None:
            return "starting"
        if self._session is not None:
            return "running"
        if self._restart_at is not None:
            return "restarting"
        return "idle"

    def _missing(self) -> tuple[str, ...]:
        manifest = self._entry.manifest
        return tuple(manifest.missing_required(self._entry.state.settings)) if manifest else ()

    def _view(self) -> PluginView:
        status = self.status()
        entry = self._entry
        manifest = entry.manifest
        disable_reason = "manual" if not entry.state.enabled else ("crash" if self._crash_disabled else None)
        last_error = self._last_error or entry.manifest_error or self._incompatible
        return PluginView(
            entry=entry,
            status=status,
            enabled=entry.state.enabled and not self._crash_disabled,
            missing_required=self._missing(),
            concurrency=self._concurrency(),
            disable_reason=disable_reason,
            last_error=last_error,
            last_error_code=self._last_error_code or self._stats.last_error_code,
            paused_until_ms=self._stats.paused_until(),
            stats=tuple(self._stats.snapshot()),
            entitled_features=frozenset(f for f in (manifest.features if manifest else ()) if self._config.entitled(f)),
        )

    def _concurrency(self) -> int:
        manifest = self._entry.manifest
        return self._entry.state.concurrency_override or (manifest.concurrency if manifest else 1)

    # -- the process ---------------------------------------------------------------

    def _acquire(self) -> Startup:
        if self._session is not None:
            return Startup.ready(self._session.connection)
        if self._startup is not None:
            return self._startup  # being started: wait with the others
        status = self.status()
        if status != "idle":
            retry = None if self._restart_at is None else self._restart_at - trio.current_time()
            raise PluginNotRunning(self._entry.id, status, retry_after=retry)
        return self._begin_start()

    def _start_quietly(self) -> None:
        if self._session is None and self._startup is None and self.status() == "idle":
            self._begin_start()

    def _begin_start(self) -> Startup:
        """Start the process in a task of this actor: the mailbox stays free
        (the status reads ``starting``), and the outcome comes back as a message."""
        entry, manifest = self._entry, self._entry.manifest
        assert entry.directory is not None and manifest is not None
        self._generation += 1
        startup = self._startup = Startup()
        data_dir = self._config.data_dir / "plugin-data" / entry.id
        spec = LaunchSpec(
            plugin_id=entry.id,
            argv=manifest.entry,
            cwd=entry.directory,
            settings=manifest.effective_settings(entry.state.settings),
            data_dir=data_dir,
            concurrency=self._concurrency(),
            server_version=self._config.server_version,
            timeout_seconds=manifest.timeout_seconds,
        )
        self.nursery.start_soon(self._launch, self._generation, spec)
        return startup

    async def _launch(self, generation: int, spec: LaunchSpec) -> None:
        session: Session | None = None
        error: Exception | None = None
        try:
            await trio.to_thread.run_sync(lambda: spec.data_dir.mkdir(parents=True, exist_ok=True))
            spec = replace(spec, argv=resolve_argv(spec.argv, spec.cwd))
            session = await self.nursery.start(run_session, spec, self._stats, self._reporter(generation))
        except Exception as exc:  # spawn error, died or hung in the handshake, incompatible
            error = exc
        try:
            await self.ref.tell(_Launched(generation, session, error))
        except ActorStopped:
            if session is not None:
                session.stop()

    def _launched(self, msg: _Launched) -> None:
        startup, self._startup = self._startup, None
        if msg.generation != self._generation:  # reconfigured while starting
            if msg.session is not None:
                msg.session.stop()
            if startup is not None:
                startup.finish(error=PluginNotRunning(self._entry.id, self.status()))
            return
        assert startup is not None
        if msg.session is not None:
            self._session = msg.session
            self._last_error, self._last_error_code = None, None
            startup.finish(connection=msg.session.connection)
        elif isinstance(msg.error, IncompatiblePlugin):
            self._incompatible = str(msg.error)
            _log.warning("plugin %s is incompatible: %s", self._entry.id, msg.error)
            startup.finish(error=PluginNotRunning(self._entry.id, "incompatible"))
        else:
            detail = f"could not start: {getattr(msg.error, 'message', None) or msg.error}"
            self._crashed("crashed", detail)
            startup.finish(error=PluginCallError(self._entry.id, "crashed", f"plugin {self._entry.id} {detail}"))

    def _reporter(self, generation: int) -> Any:
        async def report(end: SessionEnd) -> None:
            try:
                await self.ref.tell(_Ended(generation, end))
            except ActorStopped:
                pass

        return report

    def _ended(self, end: SessionEnd) -> None:
        self._session = None
        if end.reason == "stopped":
            return
        self._crashed("timeout" if end.reason == "timeout" else "crashed", f"{end.reason}: {end.detail}")

    def _crashed(self, code: str, detail: str) -> None:
        self._last_error, self._last_error_code = detail, code
        decision = self._crashes.record(trio.current_time())
        if decision.disable:
            self._crash_disabled = True
            self._last_error_code = "crashed"
            self._restart_at = None
            _log.error("plugin %s disabled after %d crashes: %s", self._entry.id, self._crashes.count, detail)
            return
        _log.warning("plugin %s crashed (%s); restarting in %.1fs", self._entry.id, detail, decision.restart_after)
        self._restart_at = trio.current_time() + decision.restart_after
        self.nursery.start_soon(self._restart_later, self._generation, decision.restart_after)

    async def _restart_later(self, generation: int, delay: float) -> None:
        await trio.sleep(delay)
        try:
            await self.ref.tell(_RestartDue(generation))
        except ActorStopped:
            pass

    async def _reconfigure(self, entry: PluginEntry) -> None:
        old = self._entry
        self._entry = entry
        was_enabled = old.state.enabled
        if entry.state.enabled and (not was_enabled or entry.state.enabled_at_ms != old.state.enabled_at_ms):
            self._crash_disabled = False  # enabling again gives it a fresh start
            self._crashes.clear()
            self._last_error, self._last_error_code = None, None
        changed = (old.manifest != entry.manifest or old.directory != entry.directory
                   or old.state.settings != entry.state.settings or was_enabled != entry.state.enabled
                   or old.state.concurrency_override != entry.state.concurrency_override)
        if changed:
            self._incompatible = None
            if self._session is not None:
                self._session.stop()  # the next use starts it with the new settings
                self._session = None
            self._generation += 1  # a start under way is stale: stopped when it reports
            self._restart_at = None

    def _idle_check(self) -> None:
        session, manifest = self._session, self._entry.manifest
        if session is None or manifest is None:
            return
        idle = self._config.idle_seconds or manifest.idle_seconds
        conn = session.connection
        if conn.in_flight == 0 and trio.current_time() - conn.last_activity >= idle:
            session.stop()
            self._session = None
            self._generation += 1
