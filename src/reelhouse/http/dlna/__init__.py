"""The DLNA / UPnP AV MediaServer surface (issue 34): televisions, consoles and VLC browse and play.

HTTP only: the device and service descriptions, the SOAP control of
ContentDirectory:1 and ConnectionManager:1, and the resources (streams
and thumbnails).  The documents are built in ``reelhouse.media.dlna``.
"""

from __future__ import annotations

from .routes import blueprint

PREFIX = "/dlna"  # left as it is by the Jellyfin path rules: item ids in these paths are case-sensitive

__all__ = ["PREFIX", "blueprint"]
