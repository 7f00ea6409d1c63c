"""When a provider's search answer is a match: the scrape queue's confidence rule.

A candidate is taken without asking anyone when its ``score`` is at least
:data:`CONFIDENT_SCORE` and it leads the next candidate by at least
:data:`LEAD_OVER_NEXT` (so two equally likely films of the same name are
left to the user: ``needsIdentify``). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .provider_metadata import Candidate

CONFIDENT_SCORE: Final = 0.85
LEAD_OVER_NEXT: Final = 0.1


def confident_candidate(candidates: Sequence[Candidate]) -> Candidate | None:
    """The candidate to apply, or None when none is confident (best first or not)."""
    ranked = sorted(candidates, key=lambda candidate: -candidate.score)
    if not ranked or ranked[0].score < CONFIDENT_SCORE:
        return None
    if len(ranked) > 1 and ranked[0].score - ranked[1].score < LEAD_OVER_NEXT - 1e-9:
        return None
    return ranked[0]


def search_kind(item_type: str) -> str | None:
    """The provider ``kind`` searched for an item type (works only)."""
    return {"Movie": "movie", "Series": "series"}.get(item_type)


def capability_for(kind: str) -> str:
    return "metadata.movie" if kind == "movie" else "metadata.series"
