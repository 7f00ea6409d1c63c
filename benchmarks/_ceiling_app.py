"""The ceiling of api_load.py: a bare QuartTrio route served like the real server.

One route, ``GET /api/v1/ceiling``, returns a constant JSON object: no
authentication, no database, no hooks. It runs on the same stack and
settings as ``reelhouse serve`` (reelhouse.server._serve_http): one process,
Trio, hypercorn with access logging off, its error log on the standard
logger. The throughput of this process bounds what any endpoint of the real
server can reach on this machine.

Usage: python benchmarks/_ceiling_app.py [--bind 127.0.0.1:0]

It logs ``serving on http://HOST:PORT/api/v1`` on stderr (the same line as
the real server, so the same start-up helper finds its port) and stops
cleanly on SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from functools import partial

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve
from quart_trio import QuartTrio

CEILING_PATH = "/api/v1/ceiling"
CONSTANT = {"ok": True, "server": "ceiling"}
GRACEFUL_TIMEOUT_S = 2.0

log = logging.getLogger("ceiling")


def create_app() -> QuartTrio:
    app = QuartTrio("ceiling")

    @app.get(CEILING_PATH)
    async def ceiling() -> dict[str, object]:
        return CONSTANT

    return app


async def serve(bind: str) -> None:
    """Serve until SIGTERM or SIGINT; in-flight requests get ``GRACEFUL_TIMEOUT_S``."""
    config = HypercornConfig()
    config.bind = [bind]
    config.graceful_timeout = GRACEFUL_TIMEOUT_S
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_signals, shutdown)
        binds = await nursery.start(partial(hypercorn_serve, create_app(), config, shutdown_trigger=shutdown.wait))
        for url in binds:
            log.info("serving on %s/api/v1", url)
        await shutdown.wait()
        # hypercorn_serve returns once in-flight requests are done; then the watcher goes.
    log.info("stopped")


async def _watch_signals(shutdown: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as received:
        async for _ in received:
            shutdown.set()
            return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bind", default="127.0.0.1:0")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    trio.run(serve, args.bind)
    return 0


if __name__ == "__main__":
    sys.exit(main())
