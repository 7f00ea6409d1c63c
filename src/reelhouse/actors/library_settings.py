"""Checks a library's settings need from outside the pure rules: licences
and write access to the roots. Shared by creation (LibraryRegistry) and
updates (LibraryActor)."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence

from reelhouse import errors


def entitled(feature: str) -> bool:
    """Licensed features: none in this build."""
    return False


def check_roots_writable(paths: Sequence[str]) -> None:
    """Blocking (run it in a thread): 400 ``library_not_writable`` naming
    the first root the server cannot write a temporary file into."""
    for path in paths:
        try:
            with tempfile.NamedTemporaryFile(dir=path, prefix=".reelhouse-write-check-"):
                pass
        except OSError:
            raise errors.Invalid(
                f"allowDeletion needs write access, and {path} is not writable.",
                field="allowDeletion",
                code="library_not_writable",
                params={"path": path},
            ) from None
