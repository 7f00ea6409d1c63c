"""The QuartTrio application factory."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from quart import Quart, Response, g
from quart_schema import Info, QuartSchema

from .abortable_streams import AbortableStreams, StalledWrites
from .access_log import log_request
from .activity_log import blueprint as activity_log_blueprint
from .auth import install_auth
from .auth_routes import blueprint as auth_routes_blueprint
from .context import AppContext
from .devices import blueprint as devices_blueprint
from .dlna import PREFIX as DLNA_PREFIX
from .dlna import blueprint as dlna_blueprint
from .errors import register_error_handlers
from .events import blueprint as events_blueprint
from .health import blueprint as health_blueprint
from .images import blueprint as images_blueprint
from .item_actions import blueprint as item_actions_blueprint
from .items import blueprint as items_blueprint
from .jellyfin import install_jellyfin
from .jobs import blueprint as jobs_blueprint
from .jsonbody import install_json_bodies
from .libraries import blueprint as libraries_blueprint
from .metadata_jobs import blueprint as metadata_jobs_blueprint
from .metrics import install_metrics
from .observe import RequestObserver, RequestRecord, name_request, name_websocket
from .openapi import ApiOpenAPIProvider, serve_document_once_built
from .people import blueprint as people_blueprint
from .playback_history import blueprint as playback_history_blueprint
from .playback_reports import blueprint as playback_reports_blueprint
from .playback_sessions import blueprint as playback_sessions_blueprint
from .plugins import blueprint as plugins_blueprint
from .quart_app import ReelhouseQuart
from .remote_control import blueprint as remote_control_blueprint
from .request_input import install_request_input
from .scans import blueprint as scans_blueprint
from .schedules import blueprint as schedules_blueprint
from .schema import DUMP_OPTIONS
from .search import blueprint as search_blueprint
from .system import blueprint as system_blueprint
from .upkeep import blueprint as upkeep_blueprint
from .url_rules import LazyBuilderRule
from .users import blueprint as users_blueprint
from .video_stream import blueprint as stream_blueprint
from .video_stream import stall_seconds as stream_stall_seconds
from .watch_state import blueprint as watch_state_blueprint
from .web import pages as _web_pages  # noqa: F401  (registers the console's routes)
from .web.blueprint import blueprint as web_blueprint
from .web.blueprint import root as web_root_blueprint
from .zero_copy import ZeroCopyBodies

BLUEPRINTS = (
    system_blueprint,
    libraries_blueprint,
    scans_blueprint,
    events_blueprint,
    jobs_blueprint,
    item_actions_blueprint,
    items_blueprint,
    search_blueprint,
    images_blueprint,
    stream_blueprint,
    plugins_blueprint,
    users_blueprint,
    devices_blueprint,
    auth_routes_blueprint,
    activity_log_blueprint,
    schedules_blueprint,
    playback_reports_blueprint,
    playback_sessions_blueprint,
    remote_control_blueprint,
    playback_history_blueprint,
    watch_state_blueprint,
    upkeep_blueprint,
    people_blueprint,
    metadata_jobs_blueprint,
)

API_PREFIX = "/api/v1"
WEB_PREFIX = "/web"  # the web console (http/web)
REQUEST_ID_HEADER = "X-Request-Id"

log = logging.getLogger(__name__)


def create_app(context: AppContext) -> Quart:
    """Build the app; every route lives under /api/v1 and needs an API key."""
    app = ReelhouseQuart("reelhouse")
    app.url_rule_class = LazyBuilderRule  # before any route: builders compiled when used (http/url_rules.py)
    app.config["MAX_CONTENT_LENGTH"] = 1024 * 1024
    app.extensions["reelhouse"] = context
    QuartSchema(
        app,
        openapi_path=f"{API_PREFIX}/openapi.json",
        redoc_ui_path=None,
        scalar_ui_path=None,
        swagger_ui_path=None,
        info=Info(title="Reelhouse", version=context.version),
        pydantic_dump_options=DUMP_OPTIONS,
        security_schemes={"apiKey": {"type": "http", "scheme": "bearer"}},
        security=[{"apiKey": []}],
        openapi_provider_class=ApiOpenAPIProvider,
    )
    install_json_bodies(app)
    serve_document_once_built(app)
    app.before_request(_assign_request_id)  # first: every later hook's log lines name the request
    app.before_websocket(_assign_websocket_id)
    install_auth(app)
    install_request_input(app)  # after auth: a request without a key learns only that
    app.after_request(_add_request_id)
    register_error_handlers(app)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint, url_prefix=API_PREFIX)
    app.register_blueprint(health_blueprint)  # outside the API: /health, /health/ready (no key)
    app.register_blueprint(web_blueprint, url_prefix=WEB_PREFIX)  # the web console (http/web), a cookie sign-in
    app.register_blueprint(web_root_blueprint)  # / redirects to /web/
    app.register_blueprint(dlna_blueprint)  # outside the API: /dlna/... (no key; 404 unless [dlna] enabled)
    events = AbortableStreams(app, {f"{API_PREFIX}/scans/events"})
    bodies = ZeroCopyBodies(events)
    # The native stream, Jellyfin's (its paths as jellyfin's path rules spell them) and DLNA's media.
    streams = StalledWrites(bodies, (f"{API_PREFIX}/videos/", "/videos/", "/dlna/media/"), stream_stall_seconds)
    app.asgi_app = install_jellyfin(app, streams, API_PREFIX, WEB_PREFIX, DLNA_PREFIX)  # type: ignore[method-assign]
    if observers := _request_observers(app, context):
        app.asgi_app = RequestObserver(app.asgi_app, observers)  # type: ignore[method-assign,assignment]
    return app


def _request_observers(app: Quart, context: AppContext) -> list[Callable[[RequestRecord], None]]:
    """The access log and the metrics, when their settings ask for them (a bare test context: neither)."""
    if not isinstance(context, AppContext):
        return []
    observers: list[Callable[[RequestRecord], None]] = []
    if context.settings.access_log:
        observers.append(log_request)
    if context.settings.metrics.enabled:
        observers.append(install_metrics(app).observe)
    return observers


def _new_request_id() -> str:
    """16 hex digits that tell requests apart in the logs.  Not a secret: a PRNG seeded from the OS
    does (``secrets`` asked the kernel for random bytes on every request, 2 % of the event loop's time)."""
    return f"{random.getrandbits(64):016x}"


async def _assign_request_id() -> None:
    g.request_id = _new_request_id()
    name_request(g.request_id)


async def _assign_websocket_id() -> None:
    g.request_id = _new_request_id()
    name_websocket(g.request_id)


async def _add_request_id(response: Response) -> Response:
    request_id = getattr(g, "request_id", None)
    if request_id:
        response.headers[REQUEST_ID_HEADER] = request_id
    return response
