"""System routes: GET /system/status and GET /system/update."""

from __future__ import annotations

import platform
from datetime import datetime
from typing import Any

import trio
from pydantic import SerializerFunctionWrapHandler, model_serializer
from quart import Blueprint
from quart_schema import validate_response

from reelhouse.actors.system_monitor import CacheStat, CheckResult, GetSystemReport, SystemReport
from reelhouse.storage import StoreError
from reelhouse.storage.cluster_nodes import live_nodes
from reelhouse.storage.libraries import list_libraries
from reelhouse.timefmt import rfc3339, rfc3339_ms

from .context import app_context, ask_timeout
from .schema import ApiModel

blueprint = Blueprint("system", __name__)

# A health probe must answer even when the database hangs.
DATABASE_CHECK_TIMEOUT_SECONDS = 2.0
# Caches POST /system/caches/{name}/clear empties: the image renditions, which are
# rendered again on request (Reelhouse keeps no remote-images cache; api-decisions.md).
CLEARABLE_CACHES = frozenset({"images"})


class SystemCheck(ApiModel):
    name: str
    status: str
    latency_ms: int
    detail: str | None = None


class CacheUsage(ApiModel):
    name: str
    path: str
    size_bytes: int
    file_count: int
    status: str
    measured_at: str | None
    clearable: bool

    @model_serializer(mode="wrap")
    def _keep_null_measured_at(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # The reference requires measuredAt, null while pending.
        data = handler(self)
        data.setdefault("measuredAt", None)
        return data


class NodeStatus(ApiModel):
    """One server of the cluster (docs/cluster.md); a SQLite server is a cluster of one."""

    id: str
    address: str
    started_at: str
    last_heartbeat_at: str
    libraries_led: list[str]


class SystemStatus(ApiModel):
    status: str
    version: str
    uptime_seconds: int
    started_at: str
    server_id: str
    server_name: str
    os: str
    arch: str
    go_version: str
    caches: list[CacheUsage]
    checks: list[SystemCheck]
    nodes: list[NodeStatus]


class ReleaseInfo(ApiModel):
    version: str
    published_at: str | None = None
    notes_url: str | None = None


class UpdateStatus(ApiModel):
    current: str
    enabled: bool
    available: bool
    checked_at: str | None = None
    last_error_code: str | None = None
    latest: ReleaseInfo | None = None


@blueprint.get("/system/status")
@validate_response(SystemStatus)
async def system_status() -> SystemStatus:
    ctx = app_context()
    report = await _system_report()
    checks = [await _database_check(), *report.checks]
    now = datetime.now(ctx.started_at.tzinfo)
    return SystemStatus(
        status="ok" if all(c.status == "ok" for c in checks) else "degraded",
        version=ctx.version,
        uptime_seconds=int((now - ctx.started_at).total_seconds()),
        started_at=rfc3339(ctx.started_at),
        server_id=ctx.server_id,
        server_name=ctx.settings.effective_server_name,
        os=platform.system().lower(),
        arch=platform.machine(),
        go_version=f"python{platform.python_version()}",
        caches=[cache_model(c) for c in report.caches],
        checks=[_check_model(c) for c in checks],
        nodes=await _nodes(now),
    )


@blueprint.get("/system/update")
@validate_response(UpdateStatus)
async def system_update() -> UpdateStatus:
    update = (await _system_report()).update
    latest = None
    if update.latest_version is not None:
        latest = ReleaseInfo(
            version=update.latest_version,
            published_at=update.latest_published_at,
            notes_url=update.latest_notes_url,
        )
    return UpdateStatus(
        current=app_context().version,
        enabled=update.enabled,
        available=update.available,
        checked_at=rfc3339(update.checked_at) if update.checked_at else None,
        last_error_code=update.last_error_code,
        latest=latest,
    )


async def _nodes(now: datetime) -> list[NodeStatus]:
    """Every live node (PostgreSQL), or this server alone (SQLite: it leads every library)."""
    ctx = app_context()
    cluster = ctx.actors.cluster
    try:
        with trio.fail_after(DATABASE_CHECK_TIMEOUT_SECONDS):
            if cluster is None:
                led = sorted(library.id for library in await list_libraries(ctx.store))
                return [NodeStatus(id=ctx.server_id, address=ctx.settings.bind, started_at=rfc3339(ctx.started_at),
                                   last_heartbeat_at=rfc3339(now), libraries_led=led)]
            rows = await live_nodes(ctx.store, int(cluster.config.node_expiry_seconds * 1000))
    except (StoreError, trio.TooSlowError):
        return []  # the database check says why
    return [
        NodeStatus(id=row.id, address=row.address, started_at=rfc3339_ms(row.started_at_ms),
                   last_heartbeat_at=rfc3339_ms(row.heartbeat_at_ms), libraries_led=list(row.libraries_led))
        for row in rows
    ]


async def _system_report() -> SystemReport:
    system = app_context().actors.system
    return await system.ask(GetSystemReport(), timeout=ask_timeout())


async def _database_check() -> CheckResult:
    store = app_context().store
    started = trio.current_time()
    try:
        with trio.fail_after(DATABASE_CHECK_TIMEOUT_SECONDS):
            await store.ping()
    except (StoreError, trio.TooSlowError, OSError):
        return CheckResult("database", "error", _ms_since(started), "The database did not answer.")
    return CheckResult("database", "ok", _ms_since(started), store.backend)


def _ms_since(started: float) -> int:
    return int((trio.current_time() - started) * 1000)


def _check_model(check: CheckResult) -> SystemCheck:
    return SystemCheck(name=check.name, status=check.status, latency_ms=check.latency_ms, detail=check.detail)


def cache_model(cache: CacheStat) -> CacheUsage:
    measured = rfc3339(cache.measured_at) if cache.measured_at else None
    ok = cache.status == "ok"
    return CacheUsage(
        name=cache.name,
        path=cache.path,
        size_bytes=cache.size_bytes if ok else 0,
        file_count=cache.file_count if ok else 0,
        status=cache.status,
        measured_at=measured,
        clearable=cache.name in CLEARABLE_CACHES,
    )

