"""Upkeep an administrator starts: attention actions, local reprobes, cover regeneration.

The actor (``actor.py``) runs each job in its nursery and reports it to the
JobRegistry; the job bodies live beside it, one concept a module.
"""

from .actor import (
    ActionStarted,
    CancelUpkeepJob,
    RegenerateCovers,
    StartAttentionAction,
    UpkeepActor,
    UpkeepServices,
)
from .attention import ACTIONS

__all__ = [
    "ACTIONS",
    "ActionStarted",
    "CancelUpkeepJob",
    "RegenerateCovers",
    "StartAttentionAction",
    "UpkeepActor",
    "UpkeepServices",
]
