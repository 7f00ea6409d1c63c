"""GET /metrics: the server's figures in Prometheus' text format (``[metrics] enabled``, an API key).

Why behind the setting and a key: the figures tell how busy the server is
and what it holds, and the server's one port is often reachable from the
internet through a reverse proxy; a key needs no second port or firewall
rule, and Prometheus sends one (``authorization: {credentials_file: ...}``).
Off by default, the route does not exist (404).

Counted as requests end (:class:`~reelhouse.http.observe.RequestObserver`):
``reelhouse_http_request_duration_seconds`` (histogram by method, route
template and status; its ``_count`` is the requests), the bytes sent by
route, and the video streams' bytes. Read at each scrape
(:mod:`.metrics_snapshot`): scans, jobs, the scrape queue, playback
sessions, the event bus, the database pools and the event loop's lag.
Labels are methods, route templates, statuses, states and pool names:
never a path, an id, a name, a token or a key. One registry per app, so
servers in one process (the tests) count apart.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from quart import Blueprint, Quart, Response, current_app
from quart_schema import hide

from .context import app_context
from .metrics_snapshot import ServerSnapshot, take_snapshot
from .observe import RequestRecord

blueprint = Blueprint("metrics", __name__)

METRICS_PATH = "/metrics"
STREAM_ROUTE_PREFIXES = ("/api/v1/videos/", "/videos/")  # the native stream and the Jellyfin surface's
_EXTENSION_KEY = "reelhouse.metrics"
# Request latencies from a cached image (a millisecond) to a slow scan start (seconds).
LATENCY_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class HttpMetrics:
    """The registry of one app: request counters, and the scrape-time figures."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.latency = Histogram(
            "reelhouse_http_request_duration_seconds", "HTTP requests by method, route template and status, "
            "from the first byte in to the last byte out.", ["method", "route", "status"],
            buckets=LATENCY_BUCKETS, registry=self.registry)
        self.bytes_sent = Counter("reelhouse_http_response_bytes", "Response body bytes sent, by route template.",
                                  ["route"], registry=self.registry)
        self.stream_bytes = Counter("reelhouse_stream_bytes", "Video stream bytes sent to players.",
                                    registry=self.registry)
        self.server = ServerCollector()
        self.registry.register(self.server)

    def observe(self, record: RequestRecord) -> None:
        self.latency.labels(record.method, record.route, str(record.status)).observe(record.seconds)
        if record.bytes_sent:
            self.bytes_sent.labels(record.route).inc(record.bytes_sent)
            if record.route.startswith(STREAM_ROUTE_PREFIXES):
                self.stream_bytes.inc(record.bytes_sent)

    def render(self, snapshot: ServerSnapshot) -> bytes:
        # No await between the two: a concurrent scrape cannot swap the snapshot in between.
        self.server.snapshot = snapshot
        return generate_latest(self.registry)


class ServerCollector(Collector):
    """The figures read at the scrape (gauges, and the counters others keep)."""

    def __init__(self) -> None:
        self.snapshot = ServerSnapshot()

    def describe(self) -> list[Metric]:
        return []  # figures vary by scrape; nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        s = self.snapshot
        if s.scans is not None:
            yield _gauge("reelhouse_scans_running", "Library scans running.", s.scans.running)
            yield _gauge("reelhouse_scan_files_per_second", "Files per second of the running scans, together.",
                         s.scans.files_per_second)
            yield _gauge("reelhouse_scan_files_processed", "Files processed by the running scans.", s.scans.processed)
            yield _gauge("reelhouse_scan_errors", "Errors of the running scans.", s.scans.errors)
        if s.jobs is not None:
            jobs = GaugeMetricFamily("reelhouse_jobs", "Jobs listed by GET /jobs, by state.", labels=["state"])
            for state, count in sorted(s.jobs.items()):
                jobs.add_metric([state], count)
            yield jobs
        if s.scrape_pending is not None:
            yield _gauge("reelhouse_scrape_queue_depth", "Items waiting for a metadata scrape.", s.scrape_pending)
        if s.playback_sessions is not None:
            yield _gauge("reelhouse_playback_sessions", "Live playback sessions.", s.playback_sessions)
        yield _gauge("reelhouse_event_subscribers", "Event stream subscribers (SSE, sockets).", s.event_subscribers)
        yield CounterMetricFamily("reelhouse_events_refused", "Events the bus refused (its queue full).",
                                  value=s.events_refused)
        yield CounterMetricFamily("reelhouse_event_subscribers_dropped", "Subscribers dropped for falling behind.",
                                  value=s.subscribers_dropped)
        yield from _pools(s)
        if s.loop_lag_seconds is not None:
            yield _gauge("reelhouse_event_loop_lag_seconds", "The event loop's largest lateness since the last "
                         "scrape.", s.loop_lag_seconds)
            yield CounterMetricFamily("reelhouse_event_loop_stalls", "Event loop stalls over the watchdog's "
                                      "threshold.", value=s.loop_stalls or 0)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _pools(s: ServerSnapshot) -> Iterator[Metric]:
    in_use = GaugeMetricFamily("reelhouse_db_connections_in_use", "Database connections in use.", labels=["pool"])
    size = GaugeMetricFamily("reelhouse_db_connections", "Database connections of the pool.", labels=["pool"])
    waiting = GaugeMetricFamily("reelhouse_db_waiting", "Callers waiting for a database connection.",
                                labels=["pool"])
    for pool in s.pools:
        in_use.add_metric([pool.pool], pool.in_use)
        size.add_metric([pool.pool], pool.size)
        waiting.add_metric([pool.pool], pool.waiting)
    yield from (in_use, size, waiting)


def install_metrics(app: Quart) -> HttpMetrics:
    """Serve GET /metrics from a registry of this app's own; the caller feeds it requests."""
    metrics = HttpMetrics()
    app.extensions[_EXTENSION_KEY] = metrics
    app.register_blueprint(blueprint)
    return metrics


@blueprint.get(METRICS_PATH)
@hide
async def metrics() -> Response:
    snapshot = await take_snapshot(app_context())
    body = current_app.extensions[_EXTENSION_KEY].render(snapshot)
    return Response(body, content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
