"""The running actor tree: what the server starts and the HTTP edge asks.

``open_actor_tree`` starts the EventBus and the root supervisor with its
permanent children, and yields an :class:`ActorTree` of their refs. Stopping
is ordered: the actors first (so a scan can still publish ``cancelled``),
then the bus, which persists what was published before it ends.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import trio

from reelhouse.config import Settings
from reelhouse.media.dlna.descriptions import device_udn
from reelhouse.runtime import ActorRef, ChildSpec, EventBus, RootActor
from reelhouse.server_time_zone import server_time_zone
from reelhouse.storage import Store
from reelhouse.storage.cluster_events import EVENT_WAKE, ClusterEventLog
from reelhouse.storage.events import StoreEventLog
from reelhouse.storage.image_cache import IMAGE_CACHE_DIR
from reelhouse.storage.live_sessions import save_live_session, sessions_left_behind
from reelhouse.storage.play_history import record_playback
from reelhouse.storage.verified_devices import VerifiedDevices

from .cluster import ClusterNode, run_node
from .cluster.playback import ClusterPlaybackRef, serve_playback
from .cluster.seat import SchedulerSeat
from .device_use import DeviceUse
from .dlna_events import DlnaEvents
from .dlna_ssdp import SsdpConfig, run_ssdp
from .jobs import JobRegistry
from .library import LibraryServices
from .library_registry import LibraryRegistry
from .maintenance import core_tasks
from .metadata_jobs import BatchListener, MetadataJobs
from .playback.recording import LiveState
from .playback.registry import PlaybackRegistry
from .playback.session import SessionTimes
from .plugins import HostConfig, PluginHost
from .scan import ScanDeps
from .scan.covers import COVERS_DIR
from .scan.probe_pool import DEFAULT_COMMAND as DEFAULT_PROBE_COMMAND
from .scan.probe_pool import run_probe_pool
from .scan_actor import ScanSlots
from .schedule import PlaybackActivity, Scheduler, SchedulerServices
from .scrape.download_slots import DownloadSlots
from .scrape.queue import ScrapeServices
from .system_monitor import MonitorConfig, SystemMonitor
from .upkeep import UpkeepActor, UpkeepServices
from .watch_state import WATCH_STATE_MAILBOX_SIZE, WatchStateActor

# Walk/parse worker threads shared by all scans: more than the cores only
# adds GIL contention and delays the event loop.
SCAN_PARSE_THREADS = 2
SCAN_PARSE_PROCESSES = max(1, os.cpu_count() or 1)  # big scans parse in child processes, one per core
# Every progress report and every stream's byte batch passes the playback registry.
log = logging.getLogger(__name__)

PLAYBACK_MAILBOX_SIZE = 256
PROVIDER_HTTP_TIMEOUT_S = 30.0


@dataclass
class ActorTree:
    root: RootActor
    bus: EventBus
    system: ActorRef
    jobs: ActorRef
    libraries: ActorRef
    _nursery: trio.Nursery
    plugins: ActorRef | None = None
    scheduler: ActorRef | None = None
    playback: ActorRef | None = None  # PlaybackRegistry (actors/playback)
    watch_state: ActorRef | None = None  # WatchStateActor: marks and play positions per member
    cluster: ClusterNode | None = None  # this node, on PostgreSQL (actors/cluster)
    upkeep: ActorRef | None = None  # UpkeepActor: attention actions, reprobes, covers (actors/upkeep)
    metadata: ActorRef | None = None  # MetadataJobs: people, collections, NFO sync (actors/metadata_jobs)
    dlna_events: ActorRef | None = None  # DLNA's GENA subscriptions (actors/dlna_events.py), when DLNA is on
    # Device tokens verified recently, read by every player request; DeviceUse writes their last use.
    devices: VerifiedDevices | None = None
    device_use: ActorRef | None = None

    def running(self) -> bool:
        """Every actor of the tree runs (none stopped for good or restarting), and the bus delivers."""
        refs = (self.system, self.jobs, self.libraries, self.plugins, self.scheduler, self.playback)
        return self.bus.running and all(ref is None or ref.alive for ref in refs)

    async def stop(self, *, deadline: float) -> None:
        """Stop every actor gracefully by ``deadline``, then the bus."""
        await self.root.stop(timeout=max(deadline - trio.current_time(), 0.0))
        self._nursery.cancel_scope.cancel()


@asynccontextmanager
async def open_actor_tree(
    settings: Settings, store: Store, version: str, cluster: ClusterNode | None = None, server_id: str = ""
) -> AsyncIterator[ActorTree]:
    """Start the tree; on exit whatever still runs is cancelled.

    With ``cluster`` (PostgreSQL) the node registers and listens first, and
    the libraries' actors run only where their lease is (actors/cluster).
    """
    # Made in a worker thread: loading the CA bundle into its SSL context takes 30-90 ms of
    # CPU (measured), 100-500 ms on a busy machine, which the event loop would stall for.
    http = await trio.to_thread.run_sync(
        functools.partial(httpx.AsyncClient, timeout=PROVIDER_HTTP_TIMEOUT_S, follow_redirects=False))
    async with http, trio.open_nursery() as nursery:
        if cluster is not None:
            await nursery.start(run_node, cluster)  # cancelled last: the node leaves after its actors stopped
        bus = _event_bus(store, cluster)
        await nursery.start(bus.run)
        # Probe workers outlive every scan and die with the tree (cancelled last).
        probe_pool = await nursery.start(
            functools.partial(
                run_probe_pool, settings.scan.probe_concurrency, timeout=settings.scan.probe_timeout_seconds,
                command=settings.scan.probe_worker_command or DEFAULT_PROBE_COMMAND,
            )
        )  # fmt: skip
        monitor_config = MonitorConfig(
            probe_pool=probe_pool,
            data_dir=settings.data_dir,
            version=version,
            release_url=settings.update.release_url,
            update_check_enabled=settings.update.check_enabled,
            cache_dirs=(("images", settings.data_dir / IMAGE_CACHE_DIR),),
            probe_at_start=settings.scan.health_probe_at_start,
        )
        children = [
            ChildSpec("system", lambda: SystemMonitor(monitor_config)),
            ChildSpec("jobs", lambda: JobRegistry(store, settings.schedule.job_retention_hours * 3600)),
            # Before the libraries (which check settings against it), so it stops after them.
            ChildSpec("plugins", lambda: PluginHost(
                HostConfig(data_dir=settings.data_dir, server_version=version),
                poll_seconds=settings.schedule.reload_poll_seconds)),
        ]
        root = RootActor(children)
        await nursery.start(root.run)
        system, jobs, plugins = _child(root, "system"), _child(root, "jobs"), _child(root, "plugins")
        batch_listener = BatchListener()  # people and collections filled after each scrape batch
        services = LibraryServices(
            store=store,
            bus=bus,
            jobs=jobs,
            deps=ScanDeps(
                probe_limiter=trio.CapacityLimiter(settings.scan.probe_concurrency),
                probe_pool=probe_pool,
                probe_timeout=settings.scan.probe_timeout_seconds,
                thread_limiter=trio.CapacityLimiter(SCAN_PARSE_THREADS),
                parse_processes=trio.CapacityLimiter(SCAN_PARSE_PROCESSES),
            ),
            slots=ScanSlots(settings.scan.max_concurrent_full_scans),
            progress_interval=settings.scan.progress_interval_seconds,
            monitor_debounce=settings.scan.monitor_debounce_seconds,
            global_probe_limit=settings.scan.probe_concurrency,
            covers_dir=settings.data_dir / COVERS_DIR,
            data_dir=settings.data_dir,
            plugins=plugins,
            cluster=cluster,
            scrape=ScrapeServices(store=store, jobs=jobs, plugins=plugins, data_dir=settings.data_dir, http=http,
                                  downloads=DownloadSlots(),
                                  download_seconds=settings.scrape.image_download_seconds,
                                  item_images_seconds=settings.scrape.item_images_seconds,
                                  batch_done=batch_listener),
        )
        # Started last, so it stops first: running scans end before the
        # registries they report to.
        libraries = await root.start_child(ChildSpec("libraries", lambda: LibraryRegistry(services)))
        scrape = services.scrape
        assert scrape is not None  # built above
        metadata = await root.start_child(ChildSpec("metadata", lambda: MetadataJobs(scrape)))
        batch_listener.ref = metadata
        # After the libraries, so it stops before them: its runs end first.
        scheduler_spec = ChildSpec("scheduler", lambda: Scheduler(
            _scheduler_services(settings, store, bus, jobs, libraries, plugins), core_tasks()))
        if cluster is None:
            scheduler = await root.start_child(scheduler_spec)
        else:  # one Scheduler in the cluster, on the node holding its lease (actors/cluster/seat.py)
            seat = SchedulerSeat(cluster, root, scheduler_spec)
            await nursery.start(seat.run)
            scheduler = seat.ref
        # Stops after everything that answers requests: the last uses noted are written.
        devices = VerifiedDevices(store)
        device_use = await root.start_child(ChildSpec("device_use", lambda: DeviceUse(devices)))
        # Before playback, so it stops after it: the last reports of ending sessions are still written.
        watch_state = await root.start_child(ChildSpec("watch_state", lambda: WatchStateActor(store),
                                                       mailbox_size=WATCH_STATE_MAILBOX_SIZE))
        # After the libraries it asks, so it stops before them.
        upkeep = await root.start_child(ChildSpec("upkeep", lambda: UpkeepActor(UpkeepServices(
            store=store, jobs=jobs, libraries=libraries, deps=services.deps, data_dir=settings.data_dir,
            covers_dir=settings.data_dir / COVERS_DIR, global_probe_limit=settings.scan.probe_concurrency))))
        # Last, so it stops first: live sessions end into history while the store is open.
        playback = await root.start_child(ChildSpec(
            "playback", lambda: _playback_registry(settings, store, scheduler, watch_state, cluster),
            mailbox_size=PLAYBACK_MAILBOX_SIZE))
        if cluster is not None:  # every node's sessions listed and stoppable from any node
            nursery.start_soon(serve_playback, cluster, playback)
            playback = ClusterPlaybackRef(cluster, playback)
        await _start_ssdp(nursery, settings, version, server_id)
        dlna_events = None
        if settings.dlna.enabled:
            dlna_events = await root.start_child(
                ChildSpec("dlna_events", lambda: DlnaEvents(store, bus, http, settings.dlna.member)))
        try:
            yield ActorTree(root, bus, system, jobs, libraries, nursery, plugins, scheduler, playback, watch_state,
                            cluster, upkeep, metadata=metadata, dlna_events=dlna_events, devices=devices,
                            device_use=device_use)
        finally:
            nursery.cancel_scope.cancel()


async def _start_ssdp(nursery: trio.Nursery, settings: Settings, version: str, server_id: str) -> None:
    """DLNA's SSDP (actors/dlna_ssdp.py), when DLNA is on with interfaces and the HTTP port is known."""
    dlna = settings.dlna
    if not (dlna.enabled and dlna.interfaces and server_id):
        return
    if settings.port == 0:
        log.warning("DLNA: SSDP needs a fixed port in bind (it is 0); not announced")
        return
    config = SsdpConfig(tuple(dlna.interfaces), settings.port, device_udn(server_id),
                        f"Linux/1.0 UPnP/1.0 Reelhouse/{version}")  # fmt: skip
    await nursery.start(run_ssdp, config)


def _event_bus(store: Store, cluster: ClusterNode | None) -> EventBus:
    if cluster is None:
        return EventBus(StoreEventLog(store))
    # Every node's events in one sequence (storage/cluster_events.py).
    wakeups = cluster.wakeups
    shared = ClusterEventLog(store, cluster.channel, lambda: wakeups.event(EVENT_WAKE),
                             lambda: wakeups.wake(EVENT_WAKE))
    return EventBus(shared, shared=shared)


def _scheduler_services(
    settings: Settings, store: Store, bus: EventBus, jobs: ActorRef, libraries: ActorRef, plugins: ActorRef
) -> SchedulerServices:
    return SchedulerServices(
        store=store,
        settings=settings,
        libraries=libraries,
        jobs=jobs,
        bus=bus,
        time_zone=server_time_zone(settings.time_zone),
        idle_seconds=settings.schedule.idle_minutes * 60,
        reload_poll_seconds=settings.schedule.reload_poll_seconds,
        plugins=plugins,
    )


def _playback_registry(
    settings: Settings, store: Store, scheduler: ActorRef, watch_state: ActorRef, cluster: ClusterNode | None
) -> PlaybackRegistry:
    async def tell_scheduler(active: bool) -> None:
        # A tell to a sibling (asks never flow up): whether anyone plays, for the idle trigger.
        await scheduler.tell(PlaybackActivity(active))

    times = SessionTimes(settings.playback.idle_end_seconds, settings.playback.stop_wait_seconds)
    live = LiveState(functools.partial(save_live_session, store), functools.partial(sessions_left_behind, store),
                     settings.playback.save_interval_seconds)
    if cluster is not None:  # rows are the node's own; a dead node's are recorded by whoever looks first
        expiry = cluster.config.node_expiry_seconds
        live = LiveState(functools.partial(save_live_session, store, node_id=cluster.node_id),
                         functools.partial(sessions_left_behind, store, int(expiry * 1000)),
                         settings.playback.save_interval_seconds, sweep_seconds=expiry)
    return PlaybackRegistry(functools.partial(record_playback, store), times=times, activity=tell_scheduler,
                            live=live, watch=watch_state)


def _child(root: RootActor, name: str) -> ActorRef:
    ref = root.child(name)
    if ref is None:
        raise RuntimeError(f"actor {name} did not start")
    return ref
