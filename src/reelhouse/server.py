"""``reelhouse serve``: the process lifecycle.

Nesting, outside in: Store (with its trio-asyncio loop for PostgreSQL) >
actor tree > HTTP. Start-up binds the listening socket first (a busy port
ends start-up with one line and exit code 2, before the database is
touched), runs migrations, turns scans left ``running`` by a killed process
into ``failed``, starts the actor tree, then serves.

Shutdown is a deadline, not a sleep: the first SIGTERM or SIGINT arms one
:class:`~reelhouse.shutdown.ShutdownDeadline` (now + the grace period),
stops accepting connections (idle keep-alive connections and streams close
at once: http/edge) and gives in-flight requests the grace minus a reserve
for the actors; the actor tree then stops with the rest, minus a reserve
for the store, which flushes and closes by the deadline. Every shield on
the way (a scan's final record, the store's last writes) is bounded by that
one deadline, and the process exits 0. A second signal exits at once.
"""

from __future__ import annotations

import gc
import logging
import os
import secrets
import signal
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path

import trio
from hypercorn.config import Config as HypercornConfig

from reelhouse import __version__
from reelhouse.actors.cluster import ClusterConfig, ClusterNode, new_cluster_node
from reelhouse.actors.tree import open_actor_tree
from reelhouse.config import Settings
from reelhouse.http import AppContext, create_app
from reelhouse.http.edge import BindError, EdgeLimits, EdgeServer, bind_sockets, connection_budget
from reelhouse.logs import configure_logging
from reelhouse.loop.stall_watchdog import LoopWatchdog
from reelhouse.process.memory_trace import start_tracing, write_snapshots
from reelhouse.process.native_memory import limit_malloc_arenas
from reelhouse.process.pid1 import fork_under_init
from reelhouse.process.server_lock import ServerLock, ServerRunning, hold_server_lock
from reelhouse.runtime import sole_exception
from reelhouse.shutdown import ShutdownDeadline, use_shutdown_deadline
from reelhouse.storage import Store, StoreOpenError, migrate, open_store
from reelhouse.storage.activity import ActivityRecord, record_activity
from reelhouse.storage.backup_pending import restore_if_pending
from reelhouse.storage.cluster_nodes import live_nodes, shared_setting
from reelhouse.storage.jobs import fail_unfinished_jobs
from reelhouse.storage.scans import fail_running_scans

log = logging.getLogger("reelhouse")

EXIT_CANNOT_LISTEN = 2
EXIT_BAD_DATABASE = 2

SHUTDOWN_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# Of the grace period, what the actors keep for themselves after requests.
ACTOR_STOP_RESERVE_SECONDS = 2.0
# Of the grace period, what the store keeps for its last writes and its close.
STORE_CLOSE_RESERVE_SECONDS = 1.0
# Of the grace period, what the process keeps to exit once everything closed.
PROCESS_EXIT_RESERVE_SECONDS = 0.25
INTERRUPTED_SCAN_MESSAGE = "The server stopped while this scan was running."
# Scans parse in worker threads; with CPython's default 5 ms GIL slice the
# event loop waits up to a slice per busy thread before it may run, which
# shows as request latency while scans run. A 1 ms slice bounds that wait.
GIL_SWITCH_INTERVAL_SECONDS = 0.001


def run_server(settings: Settings) -> int:
    """Run until a signal; the process exit code."""
    if (code := fork_under_init()) is not None:
        return code  # this process was PID 1 and stayed the init
    configure_logging(settings.log_level, settings.log_format)
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_SECONDS)
    limit_malloc_arenas(settings.malloc_arena_max)  # before any thread starts: threads keep their arena
    start_tracing(settings.tracemalloc_seconds)  # opt-in diagnostics; before the server allocates
    try:
        trio.run(serve, settings)
    except (BindError, ServerRunning) as exc:
        print(f"reelhouse: {exc}", file=sys.stderr)
        return EXIT_CANNOT_LISTEN
    except (StoreOpenError, BaseExceptionGroup) as raised:
        if not isinstance(failure := sole_exception(raised), StoreOpenError):
            raise
        # No role, no database, nothing listening: a setting to fix, one line like every other one.
        print(f"reelhouse: {failure}", file=sys.stderr)
        return EXIT_BAD_DATABASE
    except OSError as exc:
        log.error("cannot start: %s", exc)
        return 1
    return 0


async def serve(
    settings: Settings,
    *,
    shutdown: trio.Event | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until shutdown; ``task_status`` gets the bound URLs.

    Without a ``shutdown`` event, SIGTERM/SIGINT trigger it (the process
    case); an embedding caller (a test) passes its own event instead.
    """
    config = _hypercorn_config(settings)
    sockets = bind_sockets(config)
    try:
        # One server per data directory; `reelhouse backup restore` refuses while held.
        with hold_server_lock(settings.data_dir) as lock:
            # A restore asked for from the web console, before anything opens the database.
            await restore_if_pending(settings.data_dir, settings.effective_database_url,
                                     settings.schedule.restore_max_bytes)  # fmt: skip
            await _serve_bound(settings, config, sockets, shutdown, _Announcing(lock, task_status))
    finally:
        for sock in sockets:
            sock.close()


class _Announcing:
    """The start-up status that also writes the bound addresses into the server lock."""

    def __init__(self, lock: ServerLock, status: trio.TaskStatus[list[str]]) -> None:
        self._lock = lock
        self._status = status

    def started(self, value: list[str] | None = None) -> None:
        binds = value or []
        self._lock.announce(f"the server at {', '.join(binds)}")
        self._status.started(binds)


async def _serve_bound(
    settings: Settings,
    config: HypercornConfig,
    sockets: list[socket.socket],
    shutdown: trio.Event | None,
    task_status: trio.TaskStatus[list[str]],
) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    watch_signals = shutdown is None
    if shutdown is None:
        shutdown = trio.Event()
    with use_shutdown_deadline(ShutdownDeadline()) as deadline:  # read by every task started below
        await _serve_until_shutdown(settings, config, sockets, shutdown, deadline, watch_signals, task_status)
    log.info("stopped")


async def _serve_until_shutdown(
    settings: Settings,
    config: HypercornConfig,
    sockets: list[socket.socket],
    shutdown: trio.Event,
    deadline: ShutdownDeadline,
    watch_signals: bool,
    task_status: trio.TaskStatus[list[str]],
) -> None:
    async with trio.open_nursery() as signals:
        if watch_signals:
            signals.start_soon(_watch_signals, shutdown)
        signals.start_soon(_arm_deadline, shutdown, deadline, settings.shutdown_grace_seconds)
        watchdog = LoopWatchdog()
        signals.start_soon(watchdog.run)
        if settings.tracemalloc_seconds > 0:
            signals.start_soon(write_snapshots, settings.data_dir, settings.tracemalloc_seconds)
        async with open_store(settings.effective_database_url) as store:
            await migrate(store)
            cluster = _cluster_node(settings, store, sockets)
            # Another live node's scans and jobs are its own: with company, what a
            # dead leader left running is failed by whoever takes its libraries over.
            if cluster is None or not await live_nodes(store, int(settings.cluster.node_expiry_seconds * 1000)):
                await fail_running_scans(store, INTERRUPTED_SCAN_MESSAGE)
                await fail_unfinished_jobs(store)
            server_id, cursor_secret = await _identity(settings.data_dir, store, cluster)
            async with open_actor_tree(settings, store, __version__, cluster, server_id) as actors:
                context = AppContext(
                    settings=settings,
                    store=store,
                    version=__version__,
                    server_id=server_id,
                    cursor_secret=cursor_secret,
                    started_at=datetime.now(UTC),
                    actors=actors,
                    shutting_down=shutdown,
                    watchdog=watchdog,
                )
                await _record_server_event(store, "server.start")
                await _serve_http(context, config, sockets, shutdown, task_status)
                log.info("stopping the actors")
                store_reserve = deadline.at - STORE_CLOSE_RESERVE_SECONDS
                await actors.stop(deadline=min(trio.current_time() + ACTOR_STOP_RESERVE_SECONDS, store_reserve))
            with trio.move_on_at(deadline.at - STORE_CLOSE_RESERVE_SECONDS / 2) as recording:
                await _record_server_event(store, "server.stop")
            if recording.cancelled_caught:
                log.warning("recording server.stop took too long; given up")
        signals.cancel_scope.cancel()


def _cluster_node(settings: Settings, store: Store, sockets: list[socket.socket]) -> ClusterNode | None:
    """On PostgreSQL this server is a node of the cluster on that database; on SQLite, none."""
    if store.backend != "postgresql":
        return None
    address = settings.cluster.address
    if not address and sockets:
        host, port = sockets[0].getsockname()[:2]
        address = f"http://{host}:{port}"
    c = settings.cluster
    config = ClusterConfig(c.lease_seconds, c.heartbeat_seconds, c.node_expiry_seconds, c.command_poll_seconds,
                           c.session_sweep_seconds)
    return new_cluster_node(store, address, config)


def _hypercorn_config(settings: Settings) -> HypercornConfig:
    config = HypercornConfig()
    config.bind = [settings.bind]
    config.graceful_timeout = max(settings.shutdown_grace_seconds - ACTOR_STOP_RESERVE_SECONDS, 0.5)
    config.keep_alive_timeout = settings.http.keep_alive_seconds
    config.websocket_max_message_size = settings.http.websocket_max_message_bytes  # http/edge/websocket.py
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    return config


async def _serve_http(
    context: AppContext,
    config: HypercornConfig,
    sockets: list[socket.socket],
    shutdown: trio.Event,
    task_status: trio.TaskStatus[list[str]],
) -> None:
    app = create_app(context)
    http = context.settings.http
    limits = EdgeLimits(http.body_seconds, http.body_min_bytes_per_second, http.authenticated_share)
    edge = EdgeServer(app, config, connection_budget(http.max_connections), limits)
    # Everything built so far (modules, the app, the actors) lives as long as
    # the process: moving it out of the collector's reach keeps full
    # collections during big scans short (measured: the longest gen-2 pause
    # of a 20,000-file scan went from 46 ms to 26 ms).
    gc.freeze()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(edge.serve, sockets, shutdown)
        if context.watchdog is not None:
            context.watchdog.serving = True  # from now on a blocked loop keeps clients waiting
        task_status.started(binds)  # writes the address into the server lock: before anyone reads the log
        for url in binds:
            log.info("serving on %s/api/v1", url)
    # The edge returns once shutdown was set and in-flight requests
    # finished or ran out of graceful_timeout.


async def _arm_deadline(shutdown: trio.Event, deadline: ShutdownDeadline, grace: float) -> None:
    """The whole shutdown, from the trigger to the process's exit, gets ``grace`` seconds."""
    await shutdown.wait()
    deadline.arm(trio.current_time() + max(grace - PROCESS_EXIT_RESERVE_SECONDS, 0.0))


async def _watch_signals(shutdown: trio.Event) -> None:
    with trio.open_signal_receiver(*SHUTDOWN_SIGNALS) as received:
        async for signum in received:
            if shutdown.is_set():
                log.warning("second signal: exiting at once")
                os._exit(128 + signum)
            log.info("received %s: shutting down", signal.Signals(signum).name)
            shutdown.set()


async def _record_server_event(store: Store, action: str) -> None:
    record = ActivityRecord(action=action, category="settings", actor_kind="system", target_kind="server")
    await record_activity(store, record)


async def _identity(data_dir: Path, store: Store, cluster: ClusterNode | None) -> tuple[str, bytes]:
    """The server id and the paging cursors' key: this data folder's, or the cluster's (the
    first node's), so that every node behind one address is one server to its clients."""
    server_id, secret = _server_id(data_dir), _cursor_secret(data_dir)
    if cluster is None:
        return server_id, secret
    shared_secret = await shared_setting(store, "cursor_secret", secret.hex())
    return await shared_setting(store, "server_id", server_id), bytes.fromhex(shared_secret)


def _server_id(data_dir: Path) -> str:
    """A stable id for this server, kept in the data directory."""
    path = data_dir / "server-id"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        server_id = secrets.token_hex(16)
        path.write_text(server_id + "\n")
        return server_id


def _cursor_secret(data_dir: Path) -> bytes:
    """The key that signs paging cursors: random, private (0600), kept in the data directory."""
    path = data_dir / "cursor-secret"
    try:
        return bytes.fromhex(path.read_text().strip())
    except (FileNotFoundError, ValueError):
        secret = secrets.token_bytes(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secret.hex() + "\n")
        return secret

