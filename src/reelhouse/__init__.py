"""Reelhouse: a self-hosted media library server."""

__version__ = "dev"
