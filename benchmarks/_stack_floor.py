"""The layers under a cheap request, one server each: what a leaner edge could save.

``python benchmarks/_stack_floor.py serve MODE`` serves ``GET /health`` (200,
``ok``, a Content-Length) on a free port, printing ``serving on
http://HOST:PORT`` on stderr, with:

- ``trio``: a Trio socket loop writing a canned answer (the floor: the
  event loop and the system calls);
- ``h11``: h11 on Trio, one task per connection (parsing and framing);
- ``edge``: Reelhouse's edge (Hypercorn's protocol, our connection) with a
  bare ASGI app;
- ``quart``: the edge with the app class (http/quart_app.py) and one route,
  no hooks; ``quarttrio``: the same with QuartTrio itself;

and ``python benchmarks/_stack_floor.py measure`` starts them (``FLOOR_MODES``, by default all) and
``reelhouse serve``, and measures each one's CPU per request (schedstat,
every thread) on one keep-alive connection, interleaved route by route
so that all see the same moments of the machine's load.  Prints JSON.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

BODY = b"ok"
CANNED = b"HTTP/1.1 200 \r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok"
MODES = ("trio", "h11", "edge", "quarttrio", "quart")


async def _trio_server(task_status: Any) -> None:
    import trio

    async def handle(stream: trio.SocketStream) -> None:
        buffer = b""
        while data := await stream.receive_some(65536):
            buffer += data
            while b"\r\n\r\n" in buffer:
                _, buffer = buffer.split(b"\r\n\r\n", 1)
                await stream.send_all(CANNED)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    _announce(listeners[0].socket.getsockname())
    await trio.serve_listeners(handle, listeners)


async def _h11_server() -> None:
    import h11
    import trio

    async def handle(stream: trio.SocketStream) -> None:
        connection = h11.Connection(h11.SERVER)
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(await stream.receive_some(65536))
                continue
            if isinstance(event, h11.Request):
                continue
            if isinstance(event, h11.EndOfMessage):
                head = h11.Response(status_code=200, headers=[("content-type", "text/plain"), ("content-length", "2")])
                data = connection.send(head) + connection.send(h11.Data(data=BODY))
                connection.send(h11.EndOfMessage())
                await stream.send_all(data)
                connection.start_next_cycle()
                continue
            return

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    _announce(listeners[0].socket.getsockname())
    await trio.serve_listeners(handle, listeners)


async def _asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", b"2")]})  # fmt: skip
    await send({"type": "http.response.body", "body": BODY})


def _quart_app(plain: bool = False) -> Any:
    if plain:
        from quart_trio import QuartTrio as ReelhouseQuart
    else:
        from reelhouse.http.quart_app import ReelhouseQuart

    app = ReelhouseQuart("floor")

    @app.get("/health")
    async def health() -> str:
        return "ok"

    return app


async def _edge_server(app: Any) -> None:
    import trio
    from hypercorn.config import Config

    from reelhouse.http.edge import EdgeServer, bind_sockets

    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    binds = None
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(EdgeServer(app, config, 64).serve, bind_sockets(config), trio.Event())
        print(f"serving on {binds[0]}/api/v1", file=sys.stderr, flush=True)


def _announce(address: tuple[str, int]) -> None:
    print(f"serving on http://{address[0]}:{address[1]}/api/v1", file=sys.stderr, flush=True)


def serve(mode: str) -> None:
    import trio

    if mode == "trio":
        trio.run(_trio_server, None)
    elif mode == "h11":
        trio.run(_h11_server)
    elif mode == "edge":
        trio.run(_edge_server, _asgi)
    else:
        trio.run(_edge_server, _quart_app(plain=mode == "quarttrio"))


def measure(requests: int, rounds: int) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _api_processes import _process, reelhouse_server
    from request_cost import KeepAliveClient, ask_many, cpu_seconds, request_bytes

    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="stack-floor-") as workdir:
        urls: dict[str, tuple[int, str]] = {}
        for mode in os.environ.get("FLOOR_MODES", ",".join(MODES)).split(","):  # a build without quart_app: leave it out
            argv = [sys.executable, __file__, "serve", mode]
            process, url = stack.enter_context(_process(argv, Path(workdir) / f"{mode}.log"))
            urls[mode] = (process.pid, url)
        server = stack.enter_context(reelhouse_server(Path(workdir) / "data", f"sqlite:///{workdir}/r.db"))
        urls["reelhouse"] = (server.process.pid, server.api_url.removesuffix("/api/v1"))
        clients, asks = {}, {}
        for name, (_, url) in urls.items():
            host, port = url.split("://", 1)[1].rsplit(":", 1)
            clients[name] = KeepAliveClient(host, int(port))
            asks[name] = request_bytes(f"{host}:{port}", "/health", {})
            ask_many(clients[name], asks[name], 200)
        cpu: dict[str, list[float]] = {name: [] for name in urls}
        for _ in range(rounds):
            for name, (pid, _) in urls.items():
                before = cpu_seconds(pid)
                ask_many(clients[name], asks[name], requests)
                cpu[name].append((cpu_seconds(pid) - before) * 1000 / requests)
        return {"load_average": os.getloadavg()[0], "requests_per_round": requests, "rounds": rounds,
                "cpu_ms_per_request": {n: round(statistics.median(c), 3) for n, c in cpu.items()},
                "cpu_ms_least": {n: round(min(c), 3) for n, c in cpu.items()}}  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2])
    else:
        print(json.dumps(measure(int(os.environ.get("FLOOR_REQUESTS", "500")), int(os.environ.get("FLOOR_ROUNDS", "9"))),
                         indent=2))
