"""What the HTTP edge is given: settings, the store and the actors it asks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import trio
from quart import current_app, g

from reelhouse.actors.tree import ActorTree
from reelhouse.config import Settings
from reelhouse.loop.stall_watchdog import LoopWatchdog
from reelhouse.storage import Store


@dataclass
class AppContext:
    """Services shared by every request; built by the server before serving."""

    settings: Settings
    store: Store
    version: str
    server_id: str
    started_at: datetime
    actors: ActorTree  # the refs handlers ask
    cursor_secret: bytes = b""  # signs paging cursors; private to this server
    shutting_down: trio.Event = field(default_factory=trio.Event)
    watchdog: LoopWatchdog | None = None  # the event loop's lag, for GET /metrics


def app_context() -> AppContext:
    return current_app.extensions["reelhouse"]


def request_data_version() -> int:
    """The store's data version, read once per request: the memories a request asks (its sign-in, the
    libraries) answer as of the request's start, and a commit after it is seen by the next request."""
    version: int | None = getattr(g, "data_version", None)
    if version is None:
        version = g.data_version = app_context().store.data_version()
    return version


def ask_timeout() -> float:
    """Time allowed for an ask from a request handler to an actor (``[http] ask_timeout_seconds``)."""
    return app_context().settings.http.ask_timeout_seconds
