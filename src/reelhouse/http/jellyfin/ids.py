"""Ids on the Jellyfin surface: GUIDs, mapped to ours deterministically and reversibly.

Jellyfin's clients parse ids as GUIDs (the Kotlin and Swift SDKs type them
``UUID``; the web client compares them as 32 hex digits), and Jellyfin
writes them in the "N" format: 32 lower-case hex digits, no dashes.  Our
ids are 128-bit values already:

- items (and people) are 16 bytes of BLAKE2b in URL-safe base64 (22
  characters, ``media/assembly/_model.item_id``): the GUID is those 16
  bytes in hex, and back;
- libraries, members and the server are 32 hex digits
  (``secrets.token_hex(16)``, ``uuid4().hex``): the GUID is the id itself.

A GUID received in any of .NET's spellings (dashes, braces, upper case) is
read as its 32 digits.  An id that is not 128 bits (none is made so) passes
through unchanged both ways, so the mapping stays reversible.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re

_HEX32 = re.compile(r"[0-9a-f]{32}")
_BASE64_ID = re.compile(r"[A-Za-z0-9_-]{22}")


def guid(value: str) -> str:
    """32 hex digits for any GUID spelling; the text unchanged when it is none."""
    digits = value.strip().strip("{}").replace("-", "").lower()
    return digits if _HEX32.fullmatch(digits) else value


@functools.lru_cache(maxsize=4096)
def item_guid(item_id: str) -> str:
    """The GUID of an item (or person) id (remembered: a page names each item four or five times,
    as Id, ParentId, SeriesId, UserData.Key and ItemId; 1.4 us a conversion against 0.1)."""
    if not _BASE64_ID.fullmatch(item_id):
        return item_id
    try:
        raw = base64.urlsafe_b64decode(item_id + "==")
    except (binascii.Error, ValueError):
        return item_id
    return raw.hex() if len(raw) == 16 else item_id


def item_id(value: str) -> str:
    """Our item id for a GUID a client sent (any spelling); other text unchanged."""
    digits = guid(value)
    if not _HEX32.fullmatch(digits):
        return value
    return base64.urlsafe_b64encode(bytes.fromhex(digits)).rstrip(b"=").decode("ascii")


def plain_guid(value: str) -> str:
    """Library, member and server ids are GUIDs as they are: the 32 digits of any spelling."""
    return guid(value)


def name_guid(kind: str, name: str) -> str:
    """A stable GUID for a name we keep no row for (a genre, a studio): a hash of kind and folded name."""
    digest = hashlib.blake2b(f"{kind}\x00{name.casefold()}".encode(), digest_size=16).digest()
    return digest.hex()
