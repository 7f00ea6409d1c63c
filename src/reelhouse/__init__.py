"""Reelhouse: a self-hosted media library server."""

from importlib.metadata import PackageNotFoundError, version

try:
    # One version, from one place: pyproject.toml's, as installed.
    __version__ = version("reelhouse")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
