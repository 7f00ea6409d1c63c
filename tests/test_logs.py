"""Log lines name the actor or request they come from; the JSON format is one object per line."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import trio

from reelhouse.logs import OriginFilter, configure_logging
from reelhouse.runtime import Actor, run_actor

from .server_process import ServerProcess
from .tls import shared_tls_context


class Chatty(Actor):
    async def handle(self, msg: object) -> object:
        logging.getLogger("reelhouse.test").warning("handling %s", msg)

        async def helper() -> None:
            logging.getLogger("reelhouse.test").warning("helper of %s", msg)

        self.nursery.start_soon(helper)
        return None


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.addFilter(OriginFilter())
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_an_actors_lines_and_its_tasks_lines_name_the_actor() -> None:
    handler = Collect()
    logging.getLogger("reelhouse.test").addHandler(handler)
    try:
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                ref = await nursery.start(run_actor, Chatty(), "chatty")
                await ref.ask("hello")
                while len(handler.records) < 2:
                    await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
    finally:
        logging.getLogger("reelhouse.test").removeHandler(handler)
    origins = {record.getMessage(): record.origin for record in handler.records}  # type: ignore[attr-defined]
    assert origins == {"handling hello": "actor:chatty", "helper of hello": "actor:chatty"}


async def test_the_json_format_is_one_object_per_line_that_names_its_origin(tmp_path: Path) -> None:
    config = tmp_path / "json.toml"
    config.write_text('log_format = "json"\naccess_log = true\n')
    server = ServerProcess(tmp_path / "data", f"sqlite:///{tmp_path / 'db.sqlite'}", "--config", str(config))
    async with trio.open_nursery() as nursery:
        try:
            server_log = await _serve_once(server, nursery)
        finally:
            server.kill()
    lines = [json.loads(line) for line in server_log.splitlines() if line.strip()]
    assert lines, server_log
    assert all({"time", "level", "logger", "origin", "message"} <= set(line) for line in lines)
    access = [line for line in lines if line["logger"] == "reelhouse.access"]
    assert access and access[0]["http"]["route"] == "/health" and access[0]["origin"].startswith("request:")
    assert any(line["origin"].startswith("actor:") or line["origin"] == "server" for line in lines)


async def _serve_once(server: ServerProcess, nursery: trio.Nursery) -> str:
    base = await _start_json(server, nursery)
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        with trio.fail_after(20):
            assert (await client.get(f"{base}/health")).status_code == 200
    server.send_signal(15)
    with trio.fail_after(30):
        assert await server.wait() == 0
        await server.log_ended.wait()  # every line the server wrote has been read
    return server.log.decode()


async def _start_json(server: ServerProcess, nursery: trio.Nursery) -> str:
    """ServerProcess.start looks for the text line; in JSON the same words sit in "message"."""
    await server.spawn(nursery)
    with trio.fail_after(30):
        while True:
            for line in server.log.decode(errors="replace").splitlines():
                if '"serving on ' in line:
                    message = json.loads(line)["message"]
                    return message.removeprefix("serving on ").removesuffix("/api/v1")
            await trio.sleep(0.05)



def test_httpx_request_lines_are_left_out_at_info_and_kept_at_debug() -> None:
    """A scrape fetches two images an item; httpx's line for each is not written at level info."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        configure_logging("info")
        assert not logging.getLogger("httpx").isEnabledFor(logging.INFO)
        assert logging.getLogger("httpx").isEnabledFor(logging.WARNING)
        assert logging.getLogger("reelhouse.test").isEnabledFor(logging.INFO)
        configure_logging("debug")
        assert logging.getLogger("httpx").isEnabledFor(logging.INFO)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        logging.getLogger("httpx").setLevel(logging.NOTSET)
