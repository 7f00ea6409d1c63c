"""What a failed provider call means for the scrape queue.

- a rate limit (``rate_limited``) pauses the queue until the provider's
  ``retryAfterSeconds`` (JobMessageCode ``rateLimited``), a day at most
  (``media/durations.py``);
- an upstream that cannot be reached or answered in time (``unreachable``,
  ``timeout``), a key the upstream refuses (``auth_failed``), a provider
  not configured, not running or gone pauses it as ``provider_unavailable``
  and it tries again after a backoff: the items stay ``pending``, so a dead
  upstream never leaves a pile of ``failed`` items;
- a plugin process that crashed under the call: the item is tried again
  after the plugin's restart, and fails once it crashed it
  :data:`MAX_CRASHES_PER_ITEM` times (an item that kills its provider must
  not disable it for everyone);
- anything else (an answer that breaks the contract, ``unknown``) fails
  that one item with ``scrapeError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from reelhouse import errors
from reelhouse.media.durations import wait_seconds
from reelhouse.media.provider_metadata import ProviderAnswerError

from ..plugins.connection import PluginCallError, PluginNotRunning

MAX_CRASHES_PER_ITEM: Final = 2
DEFAULT_RATE_LIMIT_SECONDS: Final = 60.0
_UNAVAILABLE: Final = frozenset({"unreachable", "timeout", "auth_failed", "needs_configuration"})


@dataclass(frozen=True, slots=True)
class Pause:
    code: str  # rate_limited or provider_unavailable
    reason: str  # the ProviderErrorCode or plugin status behind it
    provider_id: str | None
    retry_after: float | None = None  # seconds; None: the queue's backoff


@dataclass(frozen=True, slots=True)
class Crashed:
    provider_id: str | None


@dataclass(frozen=True, slots=True)
class ItemFailed:
    error: str


Outcome = Pause | Crashed | ItemFailed


def classify(exc: Exception) -> Outcome:
    """The queue's reading of an exception raised while scraping one item."""
    match exc:
        case PluginCallError(reason="rate_limited"):
            wait = wait_seconds(exc.params.get("retryAfterSeconds")) or DEFAULT_RATE_LIMIT_SECONDS
            return Pause("rate_limited", "rate_limited", _plugin(exc), wait)
        case PluginCallError(reason=reason) if reason in _UNAVAILABLE:
            return Pause("provider_unavailable", reason, _plugin(exc))
        case PluginCallError(reason="crashed"):
            return Crashed(_plugin(exc))
        case PluginCallError():
            # The plugin's own text is only logged: it may quote a setting (a key).
            return ItemFailed(f"the provider reported an error ({exc.reason})")
        case PluginNotRunning():
            retry = wait_seconds(exc.params.get("retryAfterSeconds"))
            return Pause("provider_unavailable", exc.status, _plugin(exc), retry)
        case errors.NotFound() if _plugin(exc) is not None:  # the plugin was removed meanwhile
            return Pause("provider_unavailable", "not_installed", _plugin(exc))
        case ProviderAnswerError():
            return ItemFailed(f"the provider's answer does not fit the contract: {exc}")
        case _:
            return ItemFailed(f"the match could not be applied ({type(exc).__name__})")


def _plugin(exc: Exception) -> str | None:
    params = getattr(exc, "params", None) or {}
    value = params.get("pluginId")
    return value if isinstance(value, str) else None
