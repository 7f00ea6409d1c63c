"""Password hashes in the format Reelhouse stored before argon2id, for the tests of its upgrade."""

from __future__ import annotations

import base64
import hashlib


def scrypt_hash(secret: str, salt: bytes = b"0123456789abcdef") -> str:
    """``scrypt$N$r$p$salt$hash``: the parameters every earlier hash was made with."""
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    return "$".join(["scrypt", "16384", "8", "1", base64.b64encode(salt).decode(), base64.b64encode(digest).decode()])
