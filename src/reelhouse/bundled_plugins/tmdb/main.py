"""The bundled TMDB metadata provider: JSON-RPC 2.0 over stdin/stdout (docs/plugins.md).

The main thread reads requests; a pool of worker threads answers them
(the manifest allows several calls at once), each answer written as one
line under a lock. The process exits when stdin closes. Methods:
``metadata.search``, ``metadata.details``, ``metadata.season``,
``metadata.person``, ``metadata.collection`` (see ``tmdb_search``,
``tmdb_items`` and ``tmdb_people``). The API key is never written
anywhere: error messages are built without URLs, and anything unexpected
is scrubbed of it before it leaves.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from typing import Any

import tmdb_items
import tmdb_people
import tmdb_search
from tmdb_client import ProviderError, TmdbClient

PROTOCOL = 2
WORKERS = 16  # the manifest's concurrency is 4; an administrator may raise it to 16
MAX_CANCELLED = 1000
DEFAULT_BASE_URL = "https://api.themoviedb.org/3"
METHODS = {
    "metadata.search": tmdb_search.search,
    "metadata.details": tmdb_items.details,
    "metadata.season": tmdb_items.season,
    "metadata.person": tmdb_people.person,
    "metadata.collection": tmdb_people.collection,
}



def _object(value: Any) -> dict[str, Any]:
    """A JSON object's fields, or none when ``value`` is not an object."""
    return value if isinstance(value, dict) else {}

class Plugin:
    def __init__(self) -> None:
        self._out = threading.Lock()
        self._cancelled: set[Any] = set()
        self._cancel_lock = threading.Lock()
        self._jobs: queue.Queue[dict[str, Any]] = queue.Queue()
        self._client: TmdbClient | None = None
        self._secret = ""

    # -- output -------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        line = json.dumps(message) + "\n"  # ASCII: right whatever the locale's encoding
        with self._out:
            sys.stdout.write(line)
            sys.stdout.flush()

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def _rate_limited(self, seconds: int) -> None:
        self._write({"jsonrpc": "2.0", "method": "rateLimited", "params": {"retryAfterSeconds": seconds}})

    def _answer(self, request_id: Any, result: Any) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _fail(self, request_id: Any, code: str, message: str, **data: Any) -> None:
        error = {"code": -32000, "message": self._scrub(message), "data": {"code": code, **data}}
        self._write({"jsonrpc": "2.0", "id": request_id, "error": error})

    # -- requests -----------------------------------------------------------------

    def _initialize(self, request_id: Any, params: dict[str, Any]) -> None:
        settings = _object(params.get("settings"))
        key = str(settings.get("apiKey") or "").strip()
        base_url = str(settings.get("baseUrl") or DEFAULT_BASE_URL).strip()
        self._secret = key
        if key:
            self._client = TmdbClient(base_url, key, on_rate_limited=self._rate_limited)
        self._answer(request_id, {"protocol": PROTOCOL})

    def _work(self) -> None:
        while True:
            request = self._jobs.get()
            with self._cancel_lock:
                cancelled = request["id"] in self._cancelled
                self._cancelled.discard(request["id"])
            if not cancelled:  # a cancelled caller is gone: its answer would be ignored
                self._handle(request)

    def _handle(self, request: dict[str, Any]) -> None:
        request_id, method = request["id"], request.get("method")
        params = _object(request.get("params"))
        handler = METHODS.get(method) if isinstance(method, str) else None
        if handler is None:
            self._write({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "unknown method"}})
            return
        if self._client is None:
            self._fail(request_id, "needs_configuration", "the TMDB plugin needs an API key (setting apiKey)")
            return
        try:
            self._answer(request_id, handler(self._client, params))
        except ProviderError as exc:
            extra = {"retryAfterSeconds": exc.retry_after} if exc.retry_after is not None else {}
            self._fail(request_id, exc.code, exc.message, **extra)
        except ValueError as exc:
            self._write({"jsonrpc": "2.0", "id": request_id,
                         "error": {"code": -32602, "message": self._scrub(f"invalid params: {exc}")}})
        except Exception as exc:
            message = f"{method} failed: {type(exc).__name__}: {exc}"
            print(self._scrub(message), file=sys.stderr, flush=True)
            self._fail(request_id, "unknown", message)

    def run(self) -> None:
        for _ in range(WORKERS):
            threading.Thread(target=self._work, daemon=True).start()
        for line in sys.stdin.buffer:  # ends when the server closes our stdin: then we exit
            try:
                message = json.loads(line)  # UTF-8 bytes, whatever the locale
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            method, request_id = message.get("method"), message.get("id")
            params = _object(message.get("params"))
            if request_id is None:
                if method == "$/cancel":
                    with self._cancel_lock:
                        if len(self._cancelled) > MAX_CANCELLED:
                            self._cancelled.clear()  # ids of calls long answered: forget them
                        self._cancelled.add(params.get("id"))
                continue
            if method == "initialize":
                self._initialize(request_id, params)
            else:
                self._jobs.put(message)
        with self._out:
            sys.stdout.flush()
        os._exit(0)  # workers may be mid-request: the server stopped us, nothing is waiting for them


if __name__ == "__main__":
    Plugin().run()
