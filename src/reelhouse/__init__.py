"""Reelhouse: a self-hosted media library server.

``__version__`` is pyproject.toml's, as installed (one version, from one
place). It is read on first use: importlib.metadata costs more to import
than ``reelhouse --help`` takes without it.
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module 'reelhouse' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("reelhouse")
    except PackageNotFoundError:  # a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
