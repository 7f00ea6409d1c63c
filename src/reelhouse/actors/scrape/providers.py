"""The scrape queue's side of the provider plugins: which ones can answer,
what the recognizers make of a name, and one item's match.

Everything goes through the plugin host (``call_plugin``), out of process.
Errors are left to the caller (:mod:`.outcomes` sorts them): a rate limit
or an unreachable upstream must pause the queue, not fail the item.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reelhouse import errors
from reelhouse.media.provider_metadata import (
    DETAILS_METHOD,
    SEARCH_METHOD,
    SEASON_METHOD,
    Candidate,
    ProviderItem,
    parse_candidates,
    parse_item,
    parse_season,
)
from reelhouse.media.remote_targets import Origin, url_origin
from reelhouse.media.scrape_match import capability_for, confident_candidate, search_kind
from reelhouse.runtime import ActorRef
from reelhouse.storage import Store
from reelhouse.storage.scrape_queue import PendingItem, has_absolute_episodes, season_numbers

from ..plugins.connection import PluginCallError, PluginNotRunning
from ..plugins.host import ASK_TIMEOUT_S, ListPlugins, call_plugin
from ..plugins.plugin_actor import PluginView
from .apply import SeriesMatch

RECOGNIZE_METHOD: Final = "media.recognize"
PROVIDER_CAPABILITIES: Final = frozenset({"metadata.movie", "metadata.series"})
# A plugin in one of these states takes calls (now or after its restart).
_USABLE: Final = frozenset({"idle", "starting", "running", "restarting"})

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Provider:
    plugin_id: str
    capabilities: frozenset[str]
    concurrency: int
    origins: frozenset[Origin]  # of the URLs its settings name (its baseUrl): images may come from there


@dataclass(frozen=True, slots=True)
class Found:
    provider_id: str
    match: ProviderItem | SeriesMatch


async def plugin_views(host: ActorRef | None) -> dict[str, PluginView]:
    if host is None:
        return {}
    views: list[PluginView] = await host.ask(ListPlugins(), timeout=ASK_TIMEOUT_S)
    return {view.entry.id: view for view in views}


def usable_providers(views: Mapping[str, PluginView], selected: Sequence[str]) -> list[Provider]:
    """The library's providers, in its order, that are installed, enabled and configured."""
    providers = []
    for plugin_id in selected:
        view = views.get(plugin_id)
        manifest = view.entry.manifest if view is not None else None
        if view is None or manifest is None or view.status not in _USABLE:
            continue
        capabilities = frozenset(manifest.capabilities) & PROVIDER_CAPABILITIES
        if capabilities:
            settings = manifest.effective_settings(view.entry.state.settings)
            providers.append(Provider(plugin_id, capabilities, max(1, view.concurrency), setting_origins(settings)))
    return providers


def usable_recognizers(views: Mapping[str, PluginView], selected: Sequence[str]) -> list[str]:
    return [plugin_id for plugin_id in selected
            if (view := views.get(plugin_id)) is not None and view.status in _USABLE]


def setting_origins(settings: Mapping[str, Any]) -> frozenset[Origin]:
    """The origins of the http(s) URLs among a plugin's settings (its ``baseUrl``): its images may come from there.

    Origins, not hosts: another port of the provider's host is another
    server. Only origins leave here, never a setting's value (it may be a key).
    """
    values = (value for value in settings.values() if isinstance(value, str))
    return frozenset(origin for value in values if (origin := url_origin(value)) is not None)


async def recognize(host: ActorRef, recognizers: Sequence[str], item: PendingItem, kind: str) -> tuple[str, int | None]:
    """The first recognizer's ``{name, year?}`` for the item, else the scanner's name and year."""
    params = {"kind": kind, "path": item.path, "name": item.name, "year": item.production_year}
    for plugin_id in recognizers:
        try:
            answer = await call_plugin(host, plugin_id, RECOGNIZE_METHOD, params)
        except (PluginCallError, PluginNotRunning, errors.NotFound) as exc:
            log.info("recognizer %s gave no answer for %s: %s", plugin_id, item.id, exc)
            continue
        if isinstance(answer, dict) and isinstance(answer.get("name"), str) and answer["name"].strip():
            year = answer.get("year")
            return answer["name"].strip(), year if isinstance(year, int) and not isinstance(year, bool) else None
    return item.name, item.production_year


async def search(host: ActorRef, plugin_id: str, kind: str, name: str, year: int | None,
                 language: str) -> list[Candidate]:
    params: dict[str, Any] = {"kind": kind, "name": name, "language": language}
    if year is not None:
        params["year"] = year
    return parse_candidates(await call_plugin(host, plugin_id, SEARCH_METHOD, params))


async def fetch_match(host: ActorRef, store: Store, plugin_id: str, item_id: str, kind: str,
                      provider_item_id: str, language: str) -> ProviderItem | SeriesMatch:
    """The details of a chosen candidate; for a series with the seasons found on disk."""
    details = parse_item(await call_plugin(host, plugin_id, DETAILS_METHOD, {
        "kind": kind, "providerItemId": provider_item_id, "language": language}))
    if kind == "movie":
        return details
    seasons = {}
    numbers = await season_numbers(store, item_id)
    if details.seasons and await has_absolute_episodes(store, item_id):
        # Absolute numbers are placed by counting every season's episodes (apply.py).
        numbers = sorted({*numbers, *(n for n in details.seasons if n > 0)})
    for number in numbers:
        if details.seasons and number not in details.seasons:
            continue  # the provider knows no such season: nothing to ask
        seasons[number] = parse_season(await call_plugin(host, plugin_id, SEASON_METHOD, {
            "seriesProviderItemId": details.provider_item_id, "seasonNumber": number, "language": language}))
    return SeriesMatch(details, seasons)


async def find_match(host: ActorRef, store: Store, providers: Sequence[Provider], recognizers: Sequence[str],
                     item: PendingItem, language: str) -> Found | None:
    """The first provider's confident match (None: none is confident: needsIdentify).

    An item that already carries a provider's id (from its NFO) is looked
    up by it, without a search.
    """
    kind = search_kind(item.type)
    if kind is None:
        return None
    capable = [p for p in providers if capability_for(kind) in p.capabilities]
    recognized: tuple[str, int | None] | None = None
    for provider in capable:
        known = item.provider_ids.get(provider.plugin_id)
        if known is None:
            if recognized is None:
                recognized = await recognize(host, recognizers, item, kind)
            chosen = confident_candidate(await search(host, provider.plugin_id, kind, *recognized, language))
            if chosen is None:
                continue
            known = chosen.provider_item_id
        match = await fetch_match(host, store, provider.plugin_id, item.id, kind, known, language)
        return Found(provider.plugin_id, match)
    return None
