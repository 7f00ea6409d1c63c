"""A local fake of The Movie Database's v3 API: a real HTTP server on 127.0.0.1.

Usable from Trio tests, from tests that run the server as a process, and
from benchmarks: it serves from its own threads, so nothing in the caller
has to drive it::

    with fake_tmdb() as fake:                 # or fake_tmdb(catalogue=..., api_key=...)
        fake.base_url                         # http://127.0.0.1:PORT/3  (the plugin's baseUrl)
        fake.api_key                          # the only key it accepts (api_key=... or Bearer)
        fake.delay = 0.02                     # every request answers after 20 ms
        fake.rate_limit_next(3, retry_after=7)   # the next 3 API requests: 429 + Retry-After: 7
        fake.fail_next(2, status=503)         # the next 2 API requests: that status
        fake.hang_up_next(1)                  # the next API request: the connection closed, no answer
        fake.go_down(); fake.come_up()        # refuse and reset connections / serve again (same port)
        fake.hold(); fake.release()           # requests wait (counted in flight) until released
        fake.hold_after(5)                    # 5 more API requests answer; later ones wait until release/go_down
        fake.count("/3/movie/603")            # requests served per path (no query)
        fake.max_concurrency                  # most requests in flight at once since the last reset_stats()
        fake.max_api_concurrency              # the same, API requests only (not images)
        fake.api_busy_seconds                 # API requests in flight integrated over time (/ wall time = mean concurrency)
        fake.queries                          # recent (path, params without api_key), newest last

Routes (TMDB v3 shapes, see ``tmdb_shapes``): ``/3/configuration``,
``/3/search/movie`` (``query``, ``year`` / ``primary_release_year``),
``/3/search/tv`` (``query``, ``first_air_date_year``), ``/3/movie/{id}``
and ``/3/tv/{id}`` (``append_to_response``: credits, images,
external_ids, release_dates / content_ratings; ``include_image_language``),
``/3/tv/{id}/season/{n}``, ``/3/person/{id}``, ``/3/collection/{id}``; each takes ``language`` (default ``en-US``).
Images (no key needed, as on TMDB's image host): ``/t/p/{size}/{file}``,
real JPEG or PNG bytes made by Pillow, ``original`` at the catalogue's
size, ``wN`` scaled to N pixels wide. Errors have TMDB's body
(``status_code``, ``status_message``): 401 for a missing or wrong key,
404 for an unknown id or route, 429 when rate limited.

``python -m tests.fakes.tmdb_api`` runs one until interrupted.
"""

from __future__ import annotations

import collections
import io
import json
import re
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from PIL import Image as PILImage

from . import tmdb_shapes as shapes
from .tmdb_catalogue import Catalogue, fixture_catalogue

FAKE_API_KEY = "fake-tmdb-key-0123456789abcdef"
_MOVIE = re.compile(r"/movie/(\d+)")
_TV = re.compile(r"/tv/(\d+)")
_SEASON = re.compile(r"/tv/(\d+)/season/(\d+)")
_PERSON = re.compile(r"/person/(\d+)")
_COLLECTION = re.compile(r"/collection/(\d+)")
_IMAGE = re.compile(r"/t/p/(original|[wh]\d{1,4})(/[^/]+)")
QUERY_LOG = 200


class FakeTmdb:
    """The server, its catalogue and the knobs a test turns while it runs."""

    def __init__(self, catalogue: Catalogue | None = None, *, api_key: str = FAKE_API_KEY) -> None:
        self.catalogue = catalogue or fixture_catalogue()
        self.api_key = api_key
        self.delay = 0.0
        self.port = 0
        self.queries: collections.deque[tuple[str, dict[str, str]]] = collections.deque(maxlen=QUERY_LOG)
        self._lock = threading.Lock()
        self._counts: collections.Counter[str] = collections.Counter()
        self.auth_styles: collections.Counter[str] = collections.Counter()  # accepted keys: "api_key" or "bearer"
        self._in_flight = 0
        self._max_concurrency = 0
        self._api_in_flight = 0
        self._max_api_concurrency = 0
        self._api_busy = 0.0
        self._api_since = time.monotonic()
        self._limited = 0
        self._retry_after = 1
        self._fail_status = 429
        self._down = False
        self._gate = threading.Event()
        self._gate.set()
        self._answer_before_hold: int | None = None  # hold_after: API requests still answered at once
        self._after_gate = threading.Event()
        self._after_gate.set()
        self._connections: set[socket.socket] = set()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._image_sizes = self.catalogue.image_sizes()
        self._image_cache: dict[tuple[str, str], bytes] = {}

    # -- addresses ---------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/3"

    @property
    def image_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/t/p/"

    # -- knobs ----------------------------------------------------------------------

    def rate_limit_next(self, count: int, *, retry_after: int | str = 1) -> None:
        """The next ``count`` API requests answer 429 with ``Retry-After: retry_after``."""
        with self._lock:
            self._limited, self._retry_after, self._fail_status = count, retry_after, 429

    def hang_up_next(self, count: int) -> None:
        """The next ``count`` API requests are answered by closing the connection."""
        self.fail_next(count, status=0)

    def fail_next(self, count: int, *, status: int = 503) -> None:
        """The next ``count`` API requests answer ``status`` with TMDB's error body."""
        with self._lock:
            self._limited, self._fail_status = count, status

    def hold(self) -> None:
        """Requests from now on wait, in flight, until :meth:`release` (at most a minute)."""
        self._gate.clear()

    def hold_after(self, count: int) -> None:
        """The next ``count`` API requests answer; later ones wait, in flight, until
        :meth:`release` or :meth:`go_down` (images are never held). A test that cuts
        the upstream "mid-queue" knows work is left, however fast the caller is."""
        with self._lock:
            self._answer_before_hold = count
            self._after_gate.clear()

    def release(self) -> None:
        with self._lock:
            self._answer_before_hold = None
        self._after_gate.set()
        self._gate.set()

    def go_down(self) -> None:
        """Stop listening (new connections are refused) and reset every open connection."""
        with self._lock:
            self._down = True
            self._answer_before_hold = None
            server, self._server = self._server, None
        self._after_gate.set()
        self._gate.set()  # held requests end now (hung up)
        with self._lock:
            connections = list(self._connections)
        if server is not None:
            server.shutdown()
            server.server_close()
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by its handler

    def come_up(self) -> None:
        """Serve again, on the same port."""
        with self._lock:
            self._down = False
        self._listen()

    @property
    def max_concurrency(self) -> int:
        return self._max_concurrency

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def max_api_concurrency(self) -> int:
        return self._max_api_concurrency

    @property
    def api_busy_seconds(self) -> float:
        with self._lock:
            self._tick_api()
            return self._api_busy

    def count(self, path: str | None = None) -> int:
        """Requests served for ``path`` (exact, no query), or in all when None."""
        with self._lock:
            return sum(self._counts.values()) if path is None else self._counts[path]

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def reset_stats(self) -> None:
        with self._lock:
            self._counts.clear()
            self._max_concurrency = self._in_flight
            self._max_api_concurrency = self._api_in_flight
            self._tick_api()
            self._api_busy = 0.0
            self.queries.clear()

    # -- life -----------------------------------------------------------------------

    def start(self) -> FakeTmdb:
        self._listen()
        return self

    def stop(self) -> None:
        self.go_down()

    def __enter__(self) -> FakeTmdb:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _listen(self) -> None:
        server = _Server(("127.0.0.1", self.port), _Handler)
        server.fake = self
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                  name=f"fake-tmdb-{self.port}", daemon=True)
        with self._lock:
            self._server, self._thread = server, thread
        thread.start()

    # -- used by the handler ------------------------------------------------------

    def _tick_api(self) -> None:
        now = time.monotonic()
        self._api_busy += self._api_in_flight * (now - self._api_since)
        self._api_since = now

    def _enter(self, path: str, params: dict[str, str]) -> None:
        with self._lock:
            self._counts[path] += 1
            self._in_flight += 1
            self._max_concurrency = max(self._max_concurrency, self._in_flight)
            if path.startswith("/3/"):
                self._tick_api()
                self._api_in_flight += 1
                self._max_api_concurrency = max(self._max_api_concurrency, self._api_in_flight)
            self.queries.append((path, {k: v for k, v in params.items() if k != "api_key"}))

    def _leave(self, path: str) -> None:
        with self._lock:
            self._in_flight -= 1
            if path.startswith("/3/"):
                self._tick_api()
                self._api_in_flight -= 1

    def _held(self, path: str) -> bool:
        """Whether this request waits for :meth:`release` (see :meth:`hold_after`)."""
        with self._lock:
            if self._answer_before_hold is None or not path.startswith("/3/"):
                return False
            if self._answer_before_hold > 0:
                self._answer_before_hold -= 1
                return False
            return True

    def _take_failure(self) -> tuple[int, int] | None:
        """(status, retry after) when this request is one told to fail."""
        with self._lock:
            if self._limited <= 0:
                return None
            self._limited -= 1
            return self._fail_status, self._retry_after

    def _image(self, size: str, name: str) -> bytes | None:
        original = self._image_sizes.get(name)
        if original is None:
            return None
        key = (size, name)
        with self._lock:
            cached = self._image_cache.get(key)
        if cached is None:
            cached = _render_image(name, original, size)
            with self._lock:
                self._image_cache[key] = cached
        return cached


def _render_image(name: str, original: tuple[int, int], size: str) -> bytes:
    width, height = original
    if size != "original":
        scale = int(size[1:]) / (width if size[0] == "w" else height)
        width, height = max(1, round(width * scale)), max(1, round(height * scale))
    seed = zlib.crc32(name.encode())
    colour = (seed & 0xFF, (seed >> 8) & 0xFF, (seed >> 16) & 0xFF)
    buffer = io.BytesIO()
    if name.endswith(".png"):
        PILImage.new("RGBA", (width, height), (*colour, 200)).save(buffer, "PNG")
    else:
        picture = PILImage.new("RGB", (width, height), colour)
        picture.paste((255 - colour[0], 255 - colour[1], 255 - colour[2]), (0, 0, width // 2, height // 2))
        picture.save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    fake: FakeTmdb


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: without it each answer waits ~40 ms
    server: _Server

    def setup(self) -> None:
        super().setup()
        fake = self.server.fake
        with fake._lock:
            fake._connections.add(self.connection)

    def finish(self) -> None:
        fake = self.server.fake
        with fake._lock:
            fake._connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass  # reset by go_down

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests read the counters instead

    def do_GET(self) -> None:
        fake = self.server.fake
        if fake._down:
            return self._hang_up()
        url = urlsplit(self.path)
        params = {key: values[-1] for key, values in parse_qs(url.query).items()}
        fake._enter(url.path, params)
        self._reply: Callable[[], None] = self._hang_up
        try:
            if fake._held(url.path):
                fake._after_gate.wait(timeout=60)
            fake._gate.wait(timeout=60)
            if fake.delay:
                time.sleep(fake.delay)
            if not fake._down:  # it may have gone down while this request waited
                self._answer(fake, url.path, params)
        finally:
            fake._leave(url.path)
        # Sent after leaving, so that a client holding its answer sees the request no longer in flight.
        self._reply()

    def _hang_up(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # go_down reset it already

    def _answer(self, fake: FakeTmdb, path: str, params: dict[str, str]) -> None:
        if (image := _IMAGE.fullmatch(path)) is not None:
            body = fake._image(image.group(1), image.group(2))
            if body is None:
                return self._json(404, shapes.error(34, "The resource you requested could not be found."))
            kind = "image/png" if path.endswith(".png") else "image/jpeg"
            return self._send(200, body, kind)
        if not path.startswith("/3/"):
            return self._json(404, shapes.error(34, "The resource you requested could not be found."))
        if not self._authorised(fake, params):
            return self._json(401, shapes.error(7, "Invalid API key: You must be granted a valid key."))
        if (failure := fake._take_failure()) is not None:
            status, retry_after = failure
            if status == 0:
                return  # the reply stays a hang-up
            if status == 429:
                return self._json(429, shapes.error(25, "Your request count is over the allowed limit."),
                                  {"Retry-After": str(retry_after)})
            return self._json(status, shapes.error(11, "Internal error: Something went wrong, contact TMDb."))
        status, body = _route(fake, path[2:], params)
        self._json(status, body)

    def _authorised(self, fake: FakeTmdb, params: dict[str, str]) -> bool:
        style = "bearer" if self.headers.get("Authorization", "") == f"Bearer {fake.api_key}" else (
            "api_key" if params.get("api_key") == fake.api_key else None)
        if style is not None:
            with fake._lock:
                fake.auth_styles[style] += 1
        return style is not None

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(body, ensure_ascii=False).encode(), "application/json;charset=utf-8", headers)

    def _send(self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
        self._reply = lambda: self._write(status, body, kind, headers)

    def _write(self, status: int, body: bytes, kind: str, headers: dict[str, str] | None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            self.close_connection = True  # the client went away, or go_down reset us


def _route(fake: FakeTmdb, path: str, params: dict[str, str]) -> tuple[int, Any]:
    """The status and JSON body of an API path (without its ``/3``)."""
    catalogue, language = fake.catalogue, params.get("language") or "en-US"
    append = {part.strip() for part in params.get("append_to_response", "").split(",") if part.strip()}
    include = params.get("include_image_language")
    if path == "/configuration":
        return 200, shapes.configuration(fake.image_base)
    if path in ("/search/movie", "/search/tv"):
        kind = path.rsplit("/", 1)[1]
        year_key = ("year", "primary_release_year") if kind == "movie" else ("first_air_date_year",)
        year = next((int(params[k]) for k in year_key if params.get(k, "").isdigit()), None)
        return 200, shapes.search(catalogue, kind, params.get("query", ""), year, language)
    if (match := _MOVIE.fullmatch(path)) and (movie := catalogue.movies.get(int(match.group(1)))):
        return 200, shapes.movie(catalogue, movie, language, append, include)
    if (match := _TV.fullmatch(path)) and (show := catalogue.series.get(int(match.group(1)))):
        return 200, shapes.tv(catalogue, show, language, append, include)
    if (match := _SEASON.fullmatch(path)) and (show := catalogue.series.get(int(match.group(1)))):
        season = next((s for s in show.seasons if s.number == int(match.group(2))), None)
        if season is not None:
            return 200, shapes.season(catalogue, show, season, language)
    if (match := _PERSON.fullmatch(path)) and (person := catalogue.people.get(int(match.group(1)))):
        return 200, shapes.person(person, language)
    if (match := _COLLECTION.fullmatch(path)) and (found := catalogue.collections.get(int(match.group(1)))):
        return 200, shapes.collection(catalogue, found, language)
    return 404, shapes.error(34, "The resource you requested could not be found.")


@contextmanager
def fake_tmdb(catalogue: Catalogue | None = None, *, api_key: str = FAKE_API_KEY, delay: float = 0.0
              ) -> Iterator[FakeTmdb]:
    """A running fake for the block; its ``base_url`` is the plugin's ``baseUrl``."""
    fake = FakeTmdb(catalogue, api_key=api_key)
    fake.delay = delay
    with fake:
        yield fake


def main() -> None:
    with fake_tmdb() as fake:
        print(f"fake TMDB on {fake.base_url} (api key {fake.api_key})", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
