"""The ``ImageTags`` this surface hands out: an unguessable name of one image's current version.

Jellyfin's image routes need no token: browser-based clients put poster
URLs in ``<img>`` tags, which send no header.  Ours admit such a request
only when its ``tag`` is the one this server gave for that item's image
(:func:`..routes_media.item_image`): an HMAC-SHA256 of the item id, the
image's kind and index and its version (the native image tag, which
changes with the file's bytes), keyed by the server's private key (the
paging cursors' secret, shared by a cluster's nodes).  Only a client that
was shown the item (a listing, a detail, search) holds its tag, so the
library access rules hold: a tag is worthless for another item or image,
and a new poster has a new tag (clients cache by tag).  A request with a
token is checked as every other route's and needs no tag.

The same capability signs an external subtitle's ``DeliveryUrl``
(:func:`subtitle_tag`): players fetch it with no header either.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache

from ..context import app_context

TAG_HEX_CHARS = 32  # 128 bits: unguessable, and as long as Jellyfin's own tags
_KEY_LABEL = b"reelhouse-jellyfin-image-tag-v1"  # a key of its own: never a valid cursor signature


class TagSigner:
    """Signs (item, kind, index, version) into a tag; :meth:`admits` checks one in constant time."""

    __slots__ = ("_keyed",)

    def __init__(self, secret: bytes) -> None:
        key = hmac.new(secret, _KEY_LABEL, hashlib.sha256).digest()
        # Keyed once: each tag copies it (a page signs a tag per item; re-keying is a third of the cost).
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)

    def __call__(self, item_id: str, kind: str, index: int, version: str) -> str:
        mac = self._keyed.copy()
        mac.update(f"{item_id}\0{kind}\0{index}\0{version}".encode())
        return mac.hexdigest()[:TAG_HEX_CHARS]

    def admits(self, tag: str | None, item_id: str, kind: str, index: int, version: str) -> bool:
        return tag is not None and hmac.compare_digest(tag.encode(), self(item_id, kind, index, version).encode())


@lru_cache(maxsize=4)
def _signer(secret: bytes) -> TagSigner:
    return TagSigner(secret)


def tag_signer() -> TagSigner:
    """The signer of this server's key."""
    return _signer(app_context().cursor_secret)


def subtitle_tag(signer: TagSigner, item_id: str, source_id: str, index: int, path: str) -> str:
    """The capability of an external subtitle of a media source (its file's path is its version)."""
    return signer(item_id, f"subtitle:{source_id}", index, path)
