"""The scan pipeline: walk -> parse -> write -> probe, as library code.

A ScanActor calls :func:`run_scan` with a :class:`ScanPlan`, a Store, a
:class:`ScanProgress` it reads while the scan runs, and :class:`ScanDeps`;
the background mediaInfoRead job calls :func:`probe_pending_sources`.
See ``pipeline`` (the steps and their guarantees), ``walk`` (quick and
full modes), ``parse`` (what is read and when), ``roots`` (offline roots)
and ``probing`` (media info in ``probe_pool`` workers, remote targets); the naming and item rules are
in ``reelhouse.media.assembly``. ``status`` is the ScanStatus value a scan
reports (GET /scans/status, scan events, the scan job); ``covers`` chooses a
library's covers again after a completed scan.
"""

from reelhouse.media.assembly import item_id

from .pipeline import ScanOutcome, ScanPlan, ScanProgress, run_scan
from .probing import ScanDeps, probe_pending_sources
from .roots import RootState

__all__ = [
    "RootState",
    "ScanDeps",
    "ScanOutcome",
    "ScanPlan",
    "ScanProgress",
    "item_id",
    "probe_pending_sources",
    "run_scan",
]
