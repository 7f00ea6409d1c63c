"""Identify: the user names the match the queue could not choose.

``POST /items/{id}/identify`` (api-decisions.md) asks the library's
ScrapeQueue, which runs these off its mailbox turn (a deferred reply):

- :class:`Identify` ``{query, year?}`` -> the candidates of every usable
  provider of the library that serves the item's kind, best first per
  provider, as ``{providerId, providerItemId, name, year?, overview?, imageUrl?}``;
- :class:`IdentifyApply` ``{providerId, providerItemId}`` -> the details
  applied with ``replaceAll`` (provider images replaced too) and
  ``scrapeState: identified``.

A season or an episode is identified through its series. 409
``library_no_providers`` when no provider of the library is usable; 400
``provider_not_installed`` for a provider the library cannot use.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reelhouse import errors
from reelhouse.media.durations import wait_seconds
from reelhouse.media.provider_metadata import ProviderAnswerError
from reelhouse.media.scrape_match import capability_for, search_kind
from reelhouse.runtime import Ask
from reelhouse.storage.libraries import LibraryRecord
from reelhouse.storage.scrape_queue import PendingItem, load_work, set_scrape_state

from ..plugins.connection import PluginCallError, PluginNotRunning
from .apply import ApplyDeps, ApplyRequest, apply_match
from .outcomes import DEFAULT_RATE_LIMIT_SECONDS
from .providers import Provider, fetch_match, plugin_views, search, usable_providers

if TYPE_CHECKING:
    from .queue import ScrapeServices


@dataclass(frozen=True, slots=True)
class Identify(Ask["list[dict[str, Any]]"]):
    """Ask: the candidates for ``query`` (and ``year``) -> list of candidate dicts."""

    item_id: str
    query: str
    year: int | None = None


@dataclass(frozen=True, slots=True)
class IdentifyApply(Ask["str | None"]):
    """Ask: apply the provider's item to ``item_id`` (identified) -> writeBackWarning or None."""

    item_id: str
    provider_id: str
    provider_item_id: str


@dataclass(frozen=True, slots=True)
class IdentifyContext:
    record: LibraryRecord
    services: ScrapeServices
    apply_deps: Callable[[Sequence[Provider]], ApplyDeps]


async def identify_candidates(context: IdentifyContext, msg: Identify) -> list[dict[str, Any]]:
    _item, kind, providers = await _setting(context, msg.item_id)
    language = context.record.options.metadata_language
    found: list[dict[str, Any]] = []
    for provider in providers:
        try:
            candidates = await search(context.services.plugins, provider.plugin_id, kind,  # type: ignore[arg-type]
                                      msg.query, msg.year, language)
        except Exception as exc:
            raise _as_domain_error(exc) from exc
        for candidate in candidates:
            entry: dict[str, Any] = {"providerId": provider.plugin_id, "providerItemId": candidate.provider_item_id,
                                     "name": candidate.name}
            for key, value in (("year", candidate.year), ("overview", candidate.overview),
                               ("imageUrl", candidate.image_url)):
                if value is not None:
                    entry[key] = value
            found.append(entry)
    return found


async def identify_apply(context: IdentifyContext, msg: IdentifyApply) -> str | None:
    """Apply the chosen match; the reference's ``writeBackWarning``, if any."""
    item, kind, providers = await _setting(context, msg.item_id)
    provider = next((p for p in providers if p.plugin_id == msg.provider_id), None)
    if provider is None:
        raise errors.Invalid(f"The library cannot use the provider {msg.provider_id} for this item.",
                             code="provider_not_installed", field="providerId",
                             params={"provider": msg.provider_id})
    store = context.services.store
    try:
        match = await fetch_match(context.services.plugins, store, provider.plugin_id,  # type: ignore[arg-type]
                                  item.id, kind, msg.provider_item_id, context.record.options.metadata_language)
    except Exception as exc:
        raise _as_domain_error(exc) from exc
    request = ApplyRequest(item.id, provider.plugin_id, match, "replaceAll", True, "identified")
    result = await apply_match(context.apply_deps([provider]), request)
    await set_scrape_state(store, item.id, "identified")
    return result.write_back_warning


async def _setting(context: IdentifyContext, item_id: str) -> tuple[PendingItem, str, list[Provider]]:
    item = await load_work(context.services.store, item_id)
    kind = search_kind(item.type) if item is not None else None
    if item is None or kind is None:
        raise errors.Invalid("Only movies and series (or a series' seasons and episodes) can be identified.",
                             field="itemId", params={"itemId": item_id})
    if item.lock_data:
        raise errors.Conflict("The item is locked; unlock it to identify it.", params={"itemId": item_id})
    views = await plugin_views(context.services.plugins)
    providers = [p for p in usable_providers(views, context.record.options.metadata_providers)
                 if capability_for(kind) in p.capabilities]
    if not providers:
        raise errors.Conflict("The library has no metadata provider for this item.", code="library_no_providers",
                              params={"libraryId": context.record.id})
    return item, kind, providers


def _as_domain_error(exc: Exception) -> Exception:
    """A provider's failure as the answer: 503 (the plugin's own text stays in the log)."""
    match exc:
        case PluginCallError(reason="rate_limited"):
            seconds = math.ceil(wait_seconds(exc.params.get("retryAfterSeconds")) or DEFAULT_RATE_LIMIT_SECONDS)
            return errors.Unavailable("The provider asked to wait.", code="plugin_rate_limited",
                                      params={"pluginId": exc.params.get("pluginId"), "retryAfterSeconds": seconds})
        case PluginCallError() | PluginNotRunning():
            reason = exc.params.get("reason")
            return errors.Unavailable("The metadata provider is unavailable.", code="provider_error",
                                      params={"pluginId": exc.params.get("pluginId"), "reason": reason,
                                              "retryAfterSeconds": 5})
        case ProviderAnswerError():
            return errors.Unavailable("The provider's answer does not fit the contract.", code="provider_error",
                                      params={"retryAfterSeconds": 5})
        case _:
            return exc
