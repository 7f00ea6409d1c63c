"""The HTTP edge: commands ask actors, queries read the store."""

from .app import create_app
from .context import AppContext

__all__ = ["AppContext", "create_app"]
