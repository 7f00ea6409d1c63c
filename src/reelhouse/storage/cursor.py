"""Opaque, tamper-proof keyset cursors for paged lists.

A cursor carries the sort key of the last row of a page (sort value, sort
name, id), the sort, the order and a fingerprint of the filters, so the next
page continues exactly after that row. The client must not be able to forge
one (it would steer the SQL to arbitrary positions) or to reuse one with
other filters (the position would mean nothing there): the token is signed,
and :meth:`CursorCodec.decode` checks the fingerprint when given one.

Token layout, URL-safe base64 without padding::

    version (1 byte) | compact JSON payload | HMAC-SHA256(secret, version|payload)[:16]

Every way a token can be wrong (forged, truncated, re-encoded, malformed,
other version, other secret, oversized, other filters) raises
:class:`reelhouse.errors.Invalid` with ``field="cursor"``; the message never
says which check failed. Pure stdlib, no I/O.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from reelhouse.errors import Invalid

VERSION = 1
MAX_TOKEN_LENGTH = 4096
"""Longest token accepted (characters). Encoding a longer one is a bug: ValueError."""
SIGNATURE_BYTES = 16
MIN_SECRET_BYTES = 16
FINGERPRINT_KEY = "fp"
"""Payload key holding the filter fingerprint checked by ``decode(fingerprint=...)``."""
FINGERPRINT_EXCLUDED: frozenset[str] = frozenset({"cursor", "limit", "includeTotal", "offset"})
"""Query parameters that do not change which rows follow the cursor.

``offset`` is here too because the reference ignores it when a cursor is given.
"""

_FIELD = "cursor"
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_-]+")


class CursorCodec:
    """Signs payloads into cursor tokens and verifies tokens back into payloads.

    ``secret`` must be at least :data:`MIN_SECRET_BYTES` long (ValueError);
    tokens from a codec with another secret are refused.
    """

    __slots__ = ("_secret",)

    def __init__(self, secret: bytes) -> None:
        if len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"cursor secret must be at least {MIN_SECRET_BYTES} bytes")
        self._secret = bytes(secret)

    def encode(self, payload: Mapping[str, Any]) -> str:
        """The token for ``payload`` (JSON values only; tuples come back as lists).

        Raises TypeError/ValueError for values JSON cannot carry (including NaN
        and infinities) and ValueError when the token would exceed
        :data:`MAX_TOKEN_LENGTH` (a caller bug: the sort values are too long).
        """
        body = json.dumps(
            dict(payload), separators=(",", ":"), sort_keys=True,
            ensure_ascii=False, allow_nan=False,
        ).encode()
        signed = bytes([VERSION]) + body
        token = _b64encode(signed + self._sign(signed))
        if len(token) > MAX_TOKEN_LENGTH:
            raise ValueError(f"cursor would be {len(token)} characters, over {MAX_TOKEN_LENGTH}")
        return token

    def decode(self, token: str, *, fingerprint: str | None = None) -> dict[str, Any]:
        """The payload of a token this codec made; Invalid(field="cursor") otherwise.

        With ``fingerprint``, the payload's :data:`FINGERPRINT_KEY` must equal
        it: a cursor from a query with other filters is refused.
        """
        raw = _b64decode(token)
        signed, signature = raw[:-SIGNATURE_BYTES], raw[-SIGNATURE_BYTES:]
        if len(signed) < 1 or not hmac.compare_digest(signature, self._sign(signed)):
            raise _invalid()
        if signed[0] != VERSION:
            raise _invalid()
        payload = _parse_json(signed[1:])
        if fingerprint is not None and payload.get(FINGERPRINT_KEY) != fingerprint:
            raise Invalid("the cursor belongs to a query with other filters", field=_FIELD)
        return payload

    def _sign(self, signed: bytes) -> bytes:
        return hmac.new(self._secret, signed, hashlib.sha256).digest()[:SIGNATURE_BYTES]


def fingerprint(params: Mapping[str, Sequence[str]]) -> str:
    """A stable short hash of a query's filters, for :data:`FINGERPRINT_KEY`.

    Ignores :data:`FINGERPRINT_EXCLUDED` parameters, parameter order, the order
    and repetition of a repeated parameter's values, and parameters without
    values. Values are compared exactly (no case folding): send the same
    query again with the cursor. A plain ``str`` value counts as one value.
    """
    normalized = sorted(
        (name, sorted(set([values] if isinstance(values, str) else values)))
        for name, values in params.items()
        if name not in FINGERPRINT_EXCLUDED
    )
    canonical = json.dumps(
        [[name, values] for name, values in normalized if values],
        separators=(",", ":"), ensure_ascii=False,
    )
    return _b64encode(hashlib.sha256(canonical.encode()).digest()[:16])


def _b64encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64decode(token: str) -> bytes:
    """Bytes of a canonical unpadded token, or Invalid: one text, one token."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
        raise _invalid()
    if not _TOKEN_CHARS.fullmatch(token):
        raise _invalid()
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise _invalid() from None
    # Unused trailing bits would let several texts carry one token.
    if _b64encode(raw) != token or len(raw) <= SIGNATURE_BYTES:
        raise _invalid()
    return raw


def _parse_json(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _invalid() from None
    if not isinstance(payload, dict):
        raise _invalid()
    return payload


def _invalid() -> Invalid:
    return Invalid("the cursor is invalid or expired", field=_FIELD)
