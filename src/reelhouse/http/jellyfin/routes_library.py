"""For download managers and dashboards: Library/Media/Updated, Library/Refresh, VirtualFolders.

Administrators only (an API key, as Jellyfin's API keys, or an
administrator's sign-in).  ``Media/Updated`` (``{Updates: [{Path,
UpdateType}]}``, or the older ``/Library/Series/Updated`` and
``/Library/Movies/Updated`` forms) asks each library that holds a path for
a rescan of just those directories (:mod:`.media_updates`): the native
item rescan, which updates the catalogue without a library scan; paths
outside every library are ignored.  ``Refresh`` starts a scan of every
library (one already scanning is left to finish).
"""

from __future__ import annotations

import logging
from typing import Any

from quart import Response, request

from reelhouse import errors
from reelhouse.actors.library_messages import StartScan
from reelhouse.actors.rescans import RescanDirectories
from reelhouse.storage.libraries import all_library_paths, list_libraries

from ..asks import ask, library_ref
from ..context import app_context
from . import ids
from .access import admin
from .media_updates import MAX_PATHS, match_roots, on_disk
from .surface import json, new_blueprint, no_content, route

blueprint = new_blueprint("library")
log = logging.getLogger(__name__)
MAX_UPDATES = MAX_PATHS


@route(blueprint, "/Library/Media/Updated", ("POST",))
@admin
async def media_updated() -> Response:
    await rescan(_reported_paths(await request.get_json(force=True, silent=True)))
    return no_content()


def _reported_paths(body: Any) -> list[str]:
    """The ``Path`` of each of ``Updates``; 400 for a body that is not ``{Updates: [{Path, UpdateType}]}``.

    The check is of shape only: where a path leads is :func:`rescan`'s
    business (outside every library, ignored).
    """
    if not isinstance(body, dict):
        raise errors.Invalid('The body must be a JSON object: {"Updates": [{"Path": ...}]}.', field="Updates")
    updates = _field(body, "updates")
    if not isinstance(updates, list):
        raise errors.Invalid("Updates must be a list of {Path, UpdateType}.", field="Updates")
    if len(updates) > MAX_UPDATES:
        raise errors.Invalid(f"At most {MAX_UPDATES} updates a call.", field="Updates")
    paths = []
    for n, update in enumerate(updates):
        path = _field(update, "path")
        if not isinstance(path, str) or not path:
            raise errors.Invalid(f"Updates[{n}].Path must be a path (a non-empty string).", field="Updates")
        paths.append(path)
    return paths


@route(blueprint, "/Library/Series/Updated", ("POST",))
@route(blueprint, "/Library/Movies/Updated", ("POST",))
@admin
async def legacy_updated() -> Response:
    """The older form: ``?tvdbId=`` / ``?tmdbId=`` name no path, so nothing can be rescanned but everything."""
    return await refresh()


async def rescan(paths: list[str]) -> None:
    candidates = match_roots(paths, await all_library_paths(app_context().store))
    if len(candidates) < len(paths):
        log.info("Library/Media/Updated: %d path(s) outside every library ignored", len(paths) - len(candidates))
    for library_id, dirs in (await on_disk(candidates)).items():
        await ask(await library_ref(library_id), RescanDirectories(dirs))


@route(blueprint, "/Library/Refresh", ("POST",))
@admin
async def refresh() -> Response:
    for library in await list_libraries(app_context().store):
        try:
            await ask(await library_ref(library.id), StartScan(mode="quick", trigger="manual"))
        except errors.Conflict:
            pass  # scanning already
        except errors.NotFound:
            pass  # deleted since it was listed
    return no_content()


@route(blueprint, "/Library/VirtualFolders")
@admin
async def virtual_folders() -> Response:
    return json([_virtual_folder(library) for library in await list_libraries(app_context().store)])


def _virtual_folder(library: Any) -> dict[str, Any]:
    kind = library.collection_type if library.collection_type in ("movies", "tvshows") else "mixed"
    return {
        "Name": library.name, "Locations": list(library.paths), "CollectionType": kind,
        "ItemId": ids.plain_guid(library.id), "RefreshStatus": "Idle",
        "LibraryOptions": {"EnableRealtimeMonitor": bool(library.options.realtime_monitor),
                           "PathInfos": [{"Path": p} for p in library.paths]},
    }  # fmt: skip


def _field(body: Any, name: str, default: Any = None) -> Any:
    """A field of a JSON object by its case-insensitive name."""
    if not isinstance(body, dict):
        return default
    return next((value for key, value in body.items() if str(key).lower() == name), default)
