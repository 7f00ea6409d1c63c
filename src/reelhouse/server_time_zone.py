"""The server time zone: the ``time_zone`` setting, else the process's zone, as an IANA name."""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

FALLBACK = "UTC"


def server_time_zone(setting: str = "") -> ZoneInfo:
    for name in (setting, _from_environment(), _from_localtime()):
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo(FALLBACK)


def _from_environment() -> str:
    return os.environ.get("TZ", "").lstrip(":")


def _from_localtime() -> str:
    """The zone /etc/localtime links to (or /etc/timezone names); "" when unknown."""
    try:
        target = os.path.realpath("/etc/localtime")
    except OSError:
        target = ""
    if "/zoneinfo/" in target:
        return target.split("/zoneinfo/", 1)[1]
    try:
        return Path("/etc/timezone").read_text().strip()
    except OSError:
        return ""
