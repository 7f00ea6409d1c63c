"""Health probes for container runtimes and load balancers: ``GET /health`` and ``GET /health/ready``.

Both live outside ``/api/v1`` and need no key (http/auth.py's public
paths), so they say nothing a stranger should learn: no version, no
backend, no error text.

- ``/health`` (liveness): the process serves HTTP. Always 200 while the
  server runs; a runtime restarts a container whose liveness probe fails.
- ``/health/ready`` (readiness): the database answers within
  :data:`READY_CHECK_SECONDS` and every actor of the tree is running; 503
  with ``Retry-After`` otherwise and while the server stops (a load
  balancer then sends new clients elsewhere). Before the tree is up the
  listening socket is bound but nothing accepts: a probe waits or times
  out, which every runtime counts as "not ready".
"""

from __future__ import annotations

import trio
from quart import Blueprint, Response
from quart_schema import hide

from reelhouse.storage import StoreError

from .context import app_context

blueprint = Blueprint("health", __name__)

LIVE_PATH, READY_PATH = "/health", "/health/ready"
# A readiness probe must answer even when the database hangs.
READY_CHECK_SECONDS = 2.0
RETRY_AFTER_SECONDS = 5


@blueprint.get(LIVE_PATH)
@hide
async def live() -> Response:
    return _plain(200, "ok")


@blueprint.get(READY_PATH)
@hide
async def ready() -> Response:
    ctx = app_context()
    if ctx.shutting_down.is_set():
        return _not_ready("stopping")
    if not ctx.actors.running():
        return _not_ready("starting")
    try:
        with trio.fail_after(READY_CHECK_SECONDS):
            await ctx.store.ping()
    except (StoreError, trio.TooSlowError, OSError):
        return _not_ready("unavailable")
    return _plain(200, "ready")


def _not_ready(state: str) -> Response:
    response = _plain(503, state)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _plain(status: int, text: str) -> Response:
    response = Response(text + "\n", status=status, content_type="text/plain; charset=utf-8")
    response.headers["Cache-Control"] = "no-store"
    return response
