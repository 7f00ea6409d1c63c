"""HTTP to TMDB's v3 API: one shared client, errors as the plugin protocol's codes.

Thread-safe: the plugin answers several requests at once from worker
threads, all through one ``httpx.Client`` (its pool is locked). Nothing
this module raises or logs holds the API key: messages are written here,
never copied from an exception or a URL (the key rides in the query).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import httpx

# A bundled plugin runs on the server's interpreter: the server's one reading
# of an outside wait (an absurd Retry-After is clamped, never passed on).
from reelhouse.media.durations import wait_seconds

CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 15.0  # under the manifest's timeout_seconds (30): we answer before the host gives up
DEFAULT_RETRY_AFTER_S = 10
MAX_CONNECTIONS = 16


class ProviderError(Exception):
    """A failed call; ``code`` is docs/plugins.md's error code."""

    def __init__(self, code: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


def retry_after_seconds(header: str | None, now: float | None = None) -> int:
    """``Retry-After`` as whole seconds (delta-seconds or an HTTP date), clamped; a default when absent."""
    seconds = wait_seconds(header, now=now)
    return DEFAULT_RETRY_AFTER_S if seconds is None else math.ceil(seconds)


def _is_read_token(key: str) -> bool:
    """A v4 read access token (a JWT) goes in ``Authorization``; a v3 key in ``api_key``."""
    return key.startswith("eyJ") and key.count(".") == 2


class TmdbClient:
    """GETs against ``base_url`` (``.../3``) with the key; ``on_rate_limited(seconds)`` on a 429."""

    def __init__(self, base_url: str, api_key: str, *, on_rate_limited: Callable[[int], None],
                 read_timeout: float = READ_TIMEOUT_S) -> None:
        self._base = base_url.rstrip("/")
        self._on_rate_limited = on_rate_limited
        headers = {"Accept": "application/json", "User-Agent": "Reelhouse-tmdb/1.0"}
        self._key_params: dict[str, str] = {}
        if _is_read_token(api_key):
            headers["Authorization"] = f"Bearer {api_key}"
        else:
            self._key_params = {"api_key": api_key}
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(read_timeout, connect=min(CONNECT_TIMEOUT_S, read_timeout)),
            limits=httpx.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS),
            follow_redirects=False,
        )
        self._image_base: str | None = None
        self._config_lock = threading.Lock()

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON object at ``path`` (``/movie/603``); raises :class:`ProviderError`."""
        query = {key: value for key, value in (params or {}).items() if value not in (None, "")}
        for attempt in range(2):
            try:
                response = self._client.get(self._base + path, params={**query, **self._key_params})
                break
            except httpx.TimeoutException:
                raise ProviderError("timeout", f"TMDB did not answer {path} in time") from None
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
                if attempt == 0:
                    continue  # a kept-alive connection the upstream had closed: once more, on a new one
                raise ProviderError("unreachable", f"TMDB is unreachable ({type(exc).__name__})") from None
            except httpx.TransportError as exc:
                raise ProviderError("unreachable", f"TMDB is unreachable ({type(exc).__name__})") from None
        return self._body(path, response)

    def _body(self, path: str, response: httpx.Response) -> dict[str, Any]:
        status = response.status_code
        if status == 401:
            raise ProviderError("auth_failed", "TMDB refused the API key (401)")
        if status == 429:
            seconds = retry_after_seconds(response.headers.get("Retry-After"))
            self._on_rate_limited(seconds)
            raise ProviderError("rate_limited", f"TMDB asks to wait {seconds} s (429)", retry_after=seconds)
        if status == 404:
            raise ProviderError("unknown", f"TMDB has nothing at {path} (404)")
        if status >= 500:
            raise ProviderError("unreachable", f"TMDB answered {status} for {path}")
        if status != 200:
            raise ProviderError("unknown", f"TMDB answered {status} for {path}")
        try:
            body = response.json()
        except ValueError:
            raise ProviderError("unknown", f"TMDB's answer for {path} is not JSON") from None
        if not isinstance(body, dict):
            raise ProviderError("unknown", f"TMDB's answer for {path} is not an object")
        return body

    def image_base(self) -> str:
        """The images' base URL from ``/configuration`` (``.../t/p/``), asked once per process."""
        with self._config_lock:
            if self._image_base is None:
                images = self.get("/configuration").get("images") or {}
                base = images.get("secure_base_url") or images.get("base_url")
                if not isinstance(base, str) or not base.startswith(("http://", "https://")):
                    raise ProviderError("unknown", "TMDB's configuration has no image base URL")
                self._image_base = base if base.endswith("/") else base + "/"
            return self._image_base

    def close(self) -> None:
        self._client.close()
