"""GENA eventing (UPnP Device Architecture 1.0, section 4): SUBSCRIBE headers in, NOTIFY bodies out.

Pure.  A callback is accepted only as a plain ``http://`` URL whose host
is the subscriber's own address (a LAN client cannot make the server
post to a third party), at most :data:`MAX_CALLBACKS` of them, each at
most :data:`MAX_CALLBACK_CHARS` long.  A subscription lasts what it asks,
within :data:`MIN_TIMEOUT_SECONDS` and :data:`MAX_TIMEOUT_SECONDS`
(``infinite`` is the maximum).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

MAX_CALLBACKS = 4
MAX_CALLBACK_CHARS = 512
MIN_TIMEOUT_SECONDS = 60
MAX_TIMEOUT_SECONDS = 1800
EVENT_NAMESPACE = "urn:schemas-upnp-org:event-1-0"
_CALLBACK = re.compile(r"<([^<>]*)>")


class BadSubscription(ValueError):
    """A SUBSCRIBE the service refuses (412 Precondition Failed)."""


def callbacks(header: str, subscriber: str | None) -> tuple[str, ...]:
    """The CALLBACK header's URLs, each an http URL to ``subscriber``'s own address; BadSubscription otherwise."""
    urls = tuple(_CALLBACK.findall(header))
    if not urls or len(urls) > MAX_CALLBACKS:
        raise BadSubscription(f"CALLBACK must name 1 to {MAX_CALLBACKS} URLs in angle brackets.")
    for url in urls:
        parts = urlsplit(url)
        if len(url) > MAX_CALLBACK_CHARS or parts.scheme != "http" or not parts.hostname:
            raise BadSubscription("A CALLBACK must be an http URL.")
        if subscriber is None or parts.hostname != subscriber:
            raise BadSubscription("A CALLBACK must be at the subscriber's own address.")
    return urls


def timeout_seconds(header: str | None) -> int:
    """The TIMEOUT header (``Second-N`` or ``infinite``) as seconds, within the bounds."""
    value = (header or "").strip().lower()
    if value.startswith("second-") and value[7:].isdigit():
        return max(MIN_TIMEOUT_SECONDS, min(int(value[7:]), MAX_TIMEOUT_SECONDS))
    return MAX_TIMEOUT_SECONDS


def property_set(values: Sequence[tuple[str, str]]) -> bytes:
    """The NOTIFY body: one ``e:property`` per evented variable, in order."""
    properties = "".join(f"<e:property><{name}>{escape(value)}</{name}></e:property>" for name, value in values)
    opening = f'<?xml version="1.0" encoding="utf-8"?><e:propertyset xmlns:e="{EVENT_NAMESPACE}">'
    return f"{opening}{properties}</e:propertyset>".encode()
