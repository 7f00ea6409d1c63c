"""Streaming a remote (``.strm``) source: a redirect to it, or a proxy in front of it.

Both check the target against the library's ``remoteAllowedHosts``
(:func:`reelhouse.media.remote_targets.remote_target_allowed`): listed
hosts only when the list is set; else any host except one resolving to a
loopback, link-local (169.254.169.254 included) or unspecified address.
A refused target is 403 ``forbidden``; the URL itself is never echoed in
an error or a log line (a ``.strm`` URL may carry a token), only its host.

- ``redirect``: 302 to the URL.  The player follows any further hops
  itself, from its own network; the server sends no byte.
- ``proxy``: the server fetches the URL with httpx, following redirects
  itself (at most :data:`MAX_HOPS`), every hop checked again before it is
  fetched; ``Range`` and the conditional headers are forwarded, the body
  relayed chunk by chunk (never whole in memory).  An upstream that cannot
  be reached, or answers an error, is 502 ``source_unreachable`` (401/403:
  ``source_unauthorized``; 404/410: 404 ``not_found``); one that does not
  answer within the read deadline is 502 too, and one that stops sending
  mid-body for that long cuts the response short.

When the library lists no hosts, the proxy connects to the very address
it checked (:func:`pinned_request`: the URL's host replaced by that
address, ``Host`` and the TLS server name kept), so a DNS answer that
changes between the check and the connection (rebinding) cannot lead it to
a refused address.  A redirect cannot be pinned: the player resolves the
name itself.
"""

from __future__ import annotations

import functools
import logging
import socket
import ssl
from collections.abc import AsyncIterator, Iterable, Mapping
from urllib.parse import urljoin, urlsplit

import httpx
import trio
from quart import Response
from werkzeug.datastructures import Headers

from reelhouse.errors import Forbidden, NotFound
from reelhouse.media.remote_targets import DEFAULT_PORTS, remote_target_allowed
from reelhouse.media.video_types import video_content_type

from .errors import error_response
from .stream_meter import Meter

log = logging.getLogger(__name__)

MAX_HOPS = 5
RESOLVE_TIMEOUT_SECONDS = 5.0
FORWARDED_REQUEST = ("range", "if-range", "if-none-match", "if-modified-since", "if-match", "if-unmodified-since")
RELAYED_RESPONSE = ("content-type", "content-length", "content-range", "accept-ranges", "etag", "last-modified")
RELAYED_STATUSES = frozenset({200, 206, 304})


def upstream_client(read_timeout: float) -> httpx.AsyncClient:
    """The app's client for proxied sources: no redirects of its own, no compression asked."""
    timeout = httpx.Timeout(connect=5.0, read=read_timeout, write=10.0, pool=5.0)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=16)
    return httpx.AsyncClient(
        follow_redirects=False, timeout=timeout, limits=limits, trust_env=False, verify=_upstream_tls()
    )


@functools.cache
def _upstream_tls() -> ssl.SSLContext:
    """httpx's own default context (certifi's CA bundle), made once per process.

    Loading the bundle costs 30-70 ms of CPU; every app in the process (the
    test suite starts hundreds) shares the one context, which is read-only
    once made.
    """
    return httpx.create_ssl_context(trust_env=False)


async def check_target(url: str, allowed_hosts: Iterable[str]) -> str | None:
    """Forbidden unless the library's rule allows ``url``.

    Without a list the host is resolved, and the first address (every one
    was checked) is answered: connect there.  With a list, None.
    """
    hosts = tuple(allowed_hosts)
    resolved = [] if hosts else await _resolve(url)
    if not remote_target_allowed(url, resolved, hosts):
        host = _host_of(url)
        log.info("remote source target %s refused by remoteAllowedHosts", host)
        raise Forbidden(
            "The remote source's address is not allowed by the library's remoteAllowedHosts.",
            params={"host": host},
        )
    return resolved[0] if resolved else None


def pinned_request(client: httpx.AsyncClient, method: str, url: str, headers: dict[str, str],
                   address: str | None) -> httpx.Request:  # fmt: skip
    """The request for ``url``, sent to ``address`` when given (see the module doc).

    A pinned HTTPS request closes its connection after the answer: the pool
    knows connections by address, and another name on the same address
    must not reuse one made for this name's certificate.
    """
    if address is None:
        return client.build_request(method, url, headers=headers)
    original = httpx.URL(url)
    pinned = {**headers, "Host": original.netloc.decode("ascii")}
    extensions: dict[str, str] = {}
    if original.scheme == "https":
        pinned["Connection"] = "close"
        extensions["sni_hostname"] = original.host
    return client.build_request(method, original.copy_with(host=address), headers=pinned, extensions=extensions)


def redirect(url: str) -> Response:
    return Response(b"", status=302, headers={"Location": url, "Cache-Control": "no-store"})


async def proxy(
    client: httpx.AsyncClient,
    url: str,
    allowed_hosts: tuple[str, ...],
    request_headers: Mapping[str, str] | Headers,
    method: str,
    meter: Meter,
    read_timeout: float,
) -> Response:
    """The upstream's answer relayed (see the module doc); ``meter`` counts the body's bytes.

    Each hop's answer must come, and each chunk of the body, within ``read_timeout`` seconds.
    """
    headers = {name: request_headers[name] for name in FORWARDED_REQUEST if name in request_headers}
    headers["Accept-Encoding"] = "identity"  # bytes as stored: ranges must point into them
    for _hop in range(MAX_HOPS + 1):
        address = await check_target(url, allowed_hosts)
        try:
            with trio.fail_after(read_timeout):
                upstream = await client.send(pinned_request(client, method, url, headers, address), stream=True)
        except (httpx.HTTPError, httpx.InvalidURL, trio.TooSlowError) as exc:
            log.warning("remote source at %s cannot be reached: %s", _host_of(url), type(exc).__name__)
            return _unreachable("The remote source cannot be reached.")
        location = upstream.headers.get("location")
        if not (upstream.is_redirect and location):
            return await _relay(upstream, url, method, _UpstreamBody(upstream, meter, read_timeout))
        await upstream.aclose()
        url = urljoin(url, location)
    return _unreachable(f"The remote source redirected more than {MAX_HOPS} times.")


async def _relay(upstream: httpx.Response, url: str, method: str, body: _UpstreamBody) -> Response:
    status = upstream.status_code
    if status not in RELAYED_STATUSES:
        await upstream.aclose()
        return _upstream_error(status, upstream.headers.get("content-range"))
    headers = {name: upstream.headers[name] for name in RELAYED_RESPONSE if name in upstream.headers}
    headers.setdefault("content-type", video_content_type(urlsplit(url).path))
    if status == 304 or method == "HEAD":
        await upstream.aclose()
        response = Response(b"", status=status, headers=headers)
    else:
        response = Response(body, status=status, headers=headers)
    if "content-length" in headers:
        response.headers["Content-Length"] = headers["content-length"]
    response.timeout = None  # a film takes longer than Quart's default response time
    return response


def _upstream_error(status: int, content_range: str | None) -> Response:
    if status == 416:
        extra = {"Content-Range": content_range} if content_range else None
        return error_response(416, "bad_request", "The range cannot be satisfied.", headers=extra)
    if status in (404, 410):
        raise NotFound("The remote source is not found.")
    if status in (401, 403):
        return error_response(502, "source_unauthorized", "The remote source refused the server.", {"status": status})
    return _unreachable("The remote source answered an error.", {"status": status})


def _unreachable(message: str, params: dict[str, int] | None = None) -> Response:
    return error_response(502, "source_unreachable", message, params)


class _UpstreamBody:
    """The upstream body, chunk by chunk; closing it (even unstarted) releases the connection."""

    def __init__(self, upstream: httpx.Response, meter: Meter, read_timeout: float) -> None:
        self._upstream = upstream
        self._meter = meter
        self._read_timeout = read_timeout
        # As the bytes come (httpcore reads at most 64 KiB at a time): a chunk size would hold
        # a slow source's bytes back until it filled.
        self._chunks: AsyncIterator[bytes] = upstream.aiter_raw()
        self._pending = 0

    def __aiter__(self) -> _UpstreamBody:
        return self

    async def __anext__(self) -> bytes:
        if self._pending:  # the previous chunk was taken by the server
            self._meter.add(self._pending)
            self._pending = 0
        try:
            with trio.fail_after(self._read_timeout):
                chunk = await self._chunks.__anext__()
        except (httpx.HTTPError, trio.TooSlowError) as exc:
            log.warning("remote source stopped answering (%s): response cut short", type(exc).__name__)
            raise
        self._pending = len(chunk)
        return chunk

    async def aclose(self) -> None:
        self._meter.flush()
        with trio.CancelScope(shield=True):
            await self._upstream.aclose()


async def _resolve(url: str) -> list[str]:
    """The addresses the URL's host resolves to; [] when it does not (refused then)."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower(), 80)
    except ValueError:
        return []
    if not host:
        return []
    try:
        with trio.fail_after(RESOLVE_TIMEOUT_SECONDS):
            infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, trio.TooSlowError, UnicodeError):
        return []
    return [str(info[4][0]) for info in infos]


def _host_of(url: str) -> str:
    try:
        return urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
