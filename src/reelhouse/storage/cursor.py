"""Opaque, tamper-proof keyset cursors for paged lists.

A cursor carries the sort key of the last row of a page (sort value, sort
name, id), the sort, the order and a fingerprint of the filters, so the next
page continues exactly after that row. The client must not be able to forge
one (it would steer the SQL to arbitrary positions) or to reuse one with
other filters (the position would mean nothing there): the token is signed,
and :meth:`CursorCodec.decode` checks the fingerprint when given one.

Signing is itsdangerous's ``URLSafeSerializer`` (HMAC-SHA256, salted with
the token version, so a token of another version is refused like a forged
one): ``payload.signature``, both URL-safe base64, the compact JSON payload
sorted by key so one payload has one token.  (A text differing from a
token only in base64's unused trailing bits reads as the same signed bytes
and is accepted: it carries nothing the signer did not sign.)

Every way a token can be wrong (forged, truncated, malformed,
other version, other secret, oversized, other filters) raises
:class:`reelhouse.errors.Invalid` with ``field="cursor"``; the message never
says which check failed. No I/O.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from itsdangerous import BadData, URLSafeSerializer

from reelhouse.errors import Invalid

VERSION = 1
MAX_TOKEN_LENGTH = 4096
"""Longest token accepted (characters). Encoding a longer one is a bug: ValueError."""
MIN_SECRET_BYTES = 16
FINGERPRINT_KEY = "fp"
"""Payload key holding the filter fingerprint checked by ``decode(fingerprint=...)``."""
FINGERPRINT_EXCLUDED: frozenset[str] = frozenset({"cursor", "limit", "includeTotal", "offset"})
"""Query parameters that do not change which rows follow the cursor.

``offset`` is here too because the reference ignores it when a cursor is given.
"""

_FIELD = "cursor"
_SALT = f"reelhouse-cursor-v{VERSION}"


class _SortedJSON:
    """itsdangerous's payload serializer: compact, sorted keys, no NaN (one payload, one token)."""

    @staticmethod
    def dumps(obj: Any) -> str:
        return json.dumps(obj, separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False)

    @staticmethod
    def loads(text: str | bytes) -> Any:
        return json.loads(text)


class CursorCodec:
    """Signs payloads into cursor tokens and verifies tokens back into payloads.

    ``secret`` must be at least :data:`MIN_SECRET_BYTES` long (ValueError);
    tokens from a codec with another secret are refused.
    """

    __slots__ = ("_serializer",)

    def __init__(self, secret: bytes) -> None:
        if len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"cursor secret must be at least {MIN_SECRET_BYTES} bytes")
        self._serializer = URLSafeSerializer(
            bytes(secret), salt=_SALT, serializer=_SortedJSON, signer_kwargs={"digest_method": hashlib.sha256}
        )

    def encode(self, payload: Mapping[str, Any]) -> str:
        """The token for ``payload`` (JSON values only; tuples come back as lists).

        Raises TypeError/ValueError for values JSON cannot carry (including NaN
        and infinities) and ValueError when the token would exceed
        :data:`MAX_TOKEN_LENGTH` (a caller bug: the sort values are too long).
        """
        token = self._serializer.dumps(dict(payload))
        if len(token) > MAX_TOKEN_LENGTH:
            raise ValueError(f"cursor would be {len(token)} characters, over {MAX_TOKEN_LENGTH}")
        return token

    def decode(self, token: str, *, fingerprint: str | None = None) -> dict[str, Any]:
        """The payload of a token this codec made; Invalid(field="cursor") otherwise.

        With ``fingerprint``, the payload's :data:`FINGERPRINT_KEY` must equal
        it: a cursor from a query with other filters is refused.
        """
        if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH or not token.isascii():
            raise _invalid()
        try:
            payload = self._serializer.loads(token)
        except (BadData, ValueError):
            raise _invalid() from None
        if not isinstance(payload, dict):
            raise _invalid()
        if fingerprint is not None and payload.get(FINGERPRINT_KEY) != fingerprint:
            raise Invalid("the cursor belongs to a query with other filters", field=_FIELD)
        return payload


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


def _invalid() -> Invalid:
    return Invalid("the cursor is invalid or expired", field=_FIELD)
