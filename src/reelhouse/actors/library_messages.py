"""The messages a LibraryActor answers (asks) and is told."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reelhouse.media.library_options import UpdateHints
from reelhouse.runtime import ActorRef, Ask
from reelhouse.storage.libraries import LibraryRecord

from .scan.status import ScanStatusView


@dataclass(frozen=True, slots=True)
class StartScan(Ask[None]):
    """Ask: start a scan; Conflict when one runs."""

    mode: str = "full"
    rewrite: bool = False
    only_dirs: tuple[str, ...] | None = None
    trigger: str = "manual"


@dataclass(frozen=True, slots=True)
class StopScan(Ask[None]):
    """Ask: cancel the running scan; Conflict when none runs."""


@dataclass(frozen=True, slots=True)
class GetScanStatus(Ask[ScanStatusView]):
    """Ask: the library's ScanStatusView."""


@dataclass(frozen=True, slots=True)
class GetLibraryRuntime(Ask["LibraryRuntime"]):
    """Ask: what only this process knows about the library (LibraryRuntime)."""


@dataclass(frozen=True, slots=True)
class LibraryRuntime:
    last_scanned_at_ms: int | None
    scanning: bool


@dataclass(frozen=True, slots=True)
class UpdateOptions(Ask["OptionsUpdated"]):
    """Ask: apply a LibraryOptionsUpdate body; replies OptionsUpdated."""

    body: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class OptionsUpdated:
    record: LibraryRecord
    hints: UpdateHints


@dataclass(frozen=True, slots=True)
class ConfirmMissing(Ask[int]):
    """Ask: mark missing what the mass-missing safeguard held back in the
    last scan; replies with how many items; Conflict when nothing waits."""


@dataclass(frozen=True, slots=True)
class GetScrapeQueue(Ask[ActorRef]):
    """Ask: the library's ScrapeQueue (identify, refresh, rescrape ask it); Unavailable without one."""


@dataclass(frozen=True, slots=True)
class DirectoriesChanged:
    """Tell (monitor -> library): these directories changed on disk."""

    dirs: frozenset[str]
