"""Provider images: fetched over HTTP, checked, kept in the server's image store.

The URLs come from a provider plugin: trusted to describe artwork, not to
aim the server anywhere.  So (:class:`UrlRule`):

- only ``http``/``https`` URLs without user info are fetched;
- a host that resolves to a loopback, link-local (the cloud metadata
  address too), unspecified, multicast or reserved address is refused,
  unless it is *trusted*: the origin (scheme, host **and port**) of the
  provider's configured ``baseUrl`` (a local mirror or a test fake), or a
  host the library's ``remoteAllowedHosts`` lists (``host:port`` that
  port, a bare ``host`` any port, as for remote sources:
  :func:`~reelhouse.media.remote_targets.host_listed`), which the reference
  exempts from those restrictions.  Another port of the provider's host is
  another server (anything listening on the machine): refused.
  ``remoteAllowedHosts`` does not restrict provider images (it governs
  remote media sources);
- redirects are followed by hand, at most :data:`MAX_REDIRECTS`, each hop
  checked again;
- each read waits at most :data:`READ_TIMEOUT_SECONDS`, and the whole
  download (every hop, the whole body) at most ``deadline_seconds``
  (:data:`DOWNLOAD_SECONDS` by default): a server dripping a byte now and
  then is given up, not waited on.

The body is capped (``max_bytes``, 20 MiB by default; a larger
``Content-Length`` is refused before reading), must be an image Pillow
opens and verifies in a format the image route serves (JPEG, PNG, WebP,
GIF, BMP), and is written atomically (a temporary file renamed) as
``<data_dir>/metadata/<itemId>/<kind>-<index>-<tag>.<ext>``: the content tag
in the name means a replaced image never overwrites the file being served.
"""

from __future__ import annotations

import io
import ipaddress
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import trio
from PIL import Image

from reelhouse.media.local_images import image_tag, sniff_image_type
from reelhouse.media.remote_targets import Origin, host_listed, is_local_address, url_origin
from reelhouse.storage.stored_images import provider_image_root

MAX_REDIRECTS = 3
READ_TIMEOUT_SECONDS = 30.0
"""Connecting, and each read of the body."""
DOWNLOAD_SECONDS = 60.0
"""One image, every hop and the whole body (``scrape.image_download_seconds`` sets it)."""
_FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "GIF": "gif", "BMP": "bmp"}
_SAFE_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


class ImageRefused(Exception):
    """The URL may not be fetched, or what it answered is not a usable image (the message says why)."""


@dataclass(frozen=True, slots=True)
class FetchedImage:
    data: bytes
    extension: str  # jpg, png, webp, gif, bmp
    width: int
    height: int
    tag: str


@dataclass(frozen=True, slots=True)
class UrlRule:
    """Which URLs provider images may come from (see the module doc)."""

    trusted_origins: frozenset[Origin] = frozenset()  # the provider's baseUrl: scheme, host and port
    allowed_hosts: tuple[str, ...] = ()  # the library's remoteAllowedHosts entries

    def trusts(self, origin: Origin) -> bool:
        return origin in self.trusted_origins or host_listed(origin, self.allowed_hosts)

    async def check(self, url: str) -> None:
        """Raise :class:`ImageRefused` unless ``url`` may be fetched."""
        try:
            parts = urlsplit(url)
        except ValueError:
            raise ImageRefused("not a valid URL") from None
        origin = url_origin(url)
        if origin is None:
            raise ImageRefused("only http and https URLs with a valid host and port are fetched")
        if parts.username is not None or parts.password is not None:
            raise ImageRefused("URLs with user info are not fetched")
        if self.trusts(origin):
            return
        for address in await _addresses(origin.host, origin.port):
            if is_local_address(address):
                raise ImageRefused(f"{origin.host} resolves to a local address")


async def _addresses(host: str, port: int) -> list[str]:
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    try:
        infos = await trio.socket.getaddrinfo(host, port, type=trio.socket.SOCK_STREAM)
    except OSError:
        raise ImageRefused(f"{host} does not resolve") from None
    return [str(info[4][0]) for info in infos]


async def fetch_image(
    client: httpx.AsyncClient, url: str, rule: UrlRule, *, max_bytes: int, threads: trio.CapacityLimiter,
    deadline_seconds: float = DOWNLOAD_SECONDS,
) -> FetchedImage:
    """The image at ``url``, checked; :class:`ImageRefused` (or ``httpx.HTTPError``) otherwise.

    Every hop and the whole body within ``deadline_seconds``: a server that
    sends a byte now and then never trips the per-read timeout.
    """
    with trio.move_on_after(deadline_seconds):
        data = await _download(client, url, rule, max_bytes)
        return await trio.to_thread.run_sync(_checked, data, limiter=threads)
    raise ImageRefused(f"the image did not arrive within {deadline_seconds:g} s")


async def fetch_and_store(
    client: httpx.AsyncClient, url: str, rule: UrlRule, places: Callable[[FetchedImage], Sequence[Path]], *,
    max_bytes: int, threads: trio.CapacityLimiter, deadline_seconds: float = DOWNLOAD_SECONDS,
) -> tuple[FetchedImage, list[tuple[Path, int]]]:
    """:func:`fetch_image`, then the image written at each of ``places(image)``: ``(path, mtime ms)`` each.

    The check and the writes are one worker-thread job: a scrape keeps two
    images an item, and each hop to a thread costs the event loop a wake-up.
    """
    with trio.move_on_after(deadline_seconds):
        data = await _download(client, url, rule, max_bytes)
        return await trio.to_thread.run_sync(_check_and_store, data, places, limiter=threads)
    raise ImageRefused(f"the image did not arrive within {deadline_seconds:g} s")


def _check_and_store(
    data: bytes, places: Callable[[FetchedImage], Sequence[Path]]
) -> tuple[FetchedImage, list[tuple[Path, int]]]:
    image = _checked(data)
    return image, [(path, store_image(path, image)) for path in places(image)]


async def _download(client: httpx.AsyncClient, url: str, rule: UrlRule, max_bytes: int) -> bytes:
    for _hop in range(MAX_REDIRECTS + 1):
        await rule.check(url)
        async with client.stream("GET", url, follow_redirects=False, timeout=READ_TIMEOUT_SECONDS) as response:
            if response.is_redirect and "location" in response.headers:
                url = urljoin(url, response.headers["location"])
                continue
            if response.status_code != 200:
                raise ImageRefused(f"the image URL answered {response.status_code}")
            return await _capped_body(response, max_bytes)
    raise ImageRefused("too many redirects")


async def _capped_body(response: httpx.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ImageRefused(f"the image is larger than {max_bytes} bytes")
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise ImageRefused(f"the image is larger than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _checked(data: bytes) -> FetchedImage:
    """``data`` as a verified image (blocking: Pillow decodes its headers and checks its structure)."""
    if sniff_image_type(data[:32]) is None:
        raise ImageRefused("the URL did not answer an image")
    try:
        with Image.open(io.BytesIO(data)) as image:
            extension = _FORMATS.get(image.format or "")
            width, height = image.size
            image.verify()
    except Exception as exc:  # Pillow raises many kinds for broken data
        raise ImageRefused(f"the image does not decode ({type(exc).__name__})") from None
    if extension is None or width <= 0 or height <= 0:
        raise ImageRefused("the image format is not served")
    return FetchedImage(data, extension, width, height, image_tag(data))


def image_path(data_dir: Path, item_id: str, kind: str, index: int, image: FetchedImage) -> Path:
    """Where ``image`` of that item, kind and index is kept."""
    if not _SAFE_ID.fullmatch(item_id) or item_id in (".", ".."):
        raise ImageRefused("the item id cannot name a folder")
    return provider_image_root(data_dir) / item_id / f"{kind}-{index}-{image.tag}.{image.extension}"


def store_image(path: Path, image: FetchedImage) -> int:
    """Write ``image`` at ``path`` atomically (blocking); returns its mtime in ms."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "xb") as file:
            file.write(image.data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path.stat().st_mtime_ns // 1_000_000


def remove_images(paths: list[Path]) -> None:
    """Delete replaced provider images (blocking); already gone is fine."""
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass  # a leftover file costs disk space only
