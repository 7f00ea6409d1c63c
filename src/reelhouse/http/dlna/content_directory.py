"""ContentDirectory:1 and ConnectionManager:1 actions: SOAP arguments in, out arguments back.

Read-only: no action here changes anything (no CreateObject, DestroyObject,
UpdateObject, ImportResource...); any action the SCPDs do not list is
401 Invalid Action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reelhouse.media.dlna import didl
from reelhouse.media.dlna.descriptions import CONNECTION_MANAGER, CONTENT_DIRECTORY
from reelhouse.media.dlna.search import SEARCH_CAPABILITIES
from reelhouse.media.dlna.soap import INVALID_ACTION, INVALID_ARGS, SoapAction, SoapError
from reelhouse.media.dlna.sort import SORT_CAPABILITIES, parse_sort
from reelhouse.media.video_types import video_content_type
from reelhouse.storage.source_containers import source_containers

from ..context import app_context
from . import tree
from .objects import catalogue_update_id
from .remembered import remembered
from .search import search

Out = Sequence[tuple[str, str]]
# Containers the scanner names (media/probe.py) whose file extension is not their name.
CONTAINER_TYPES = {"mpegts": "video/mp2t", "asf": "video/x-ms-wmv", "ogg": "video/ogg", "mpeg": "video/mpeg",
                   "vob": "video/mpeg"}  # fmt: skip


async def perform(service_type: str, action: SoapAction, base_url: str) -> Out:
    """The out arguments of ``action`` on the service ``service_type``; :class:`SoapError` when refused."""
    if action.service_type != service_type:
        raise SoapError(INVALID_ACTION, f"{action.service_type or 'The action'} is not this service.")
    if service_type == CONTENT_DIRECTORY:
        return await _content_directory(action, base_url)
    if service_type == CONNECTION_MANAGER and action.name == "GetProtocolInfo":
        return (("Source", await source_protocol_info()), ("Sink", ""))
    if service_type == CONNECTION_MANAGER and action.name == "GetCurrentConnectionIDs":
        return (("ConnectionIDs", "0"),)
    raise SoapError(INVALID_ACTION, f"No action {action.name}.")


async def source_protocol_info() -> str:
    """The video types of the files the DLNA member's libraries hold, as protocolInfo entries."""
    visible = [library.id for library in await tree.libraries()]
    containers = await remembered(f"containers:{','.join(visible)}",
                                  lambda: source_containers(app_context().store, visible))  # fmt: skip
    types = {CONTAINER_TYPES.get(c) or video_content_type(f"file.{c}") for c in containers}
    return ",".join(didl.protocol_info(mime) for mime in sorted(t for t in types if t.startswith("video/")))


async def _content_directory(action: SoapAction, base_url: str) -> Out:
    if action.name == "Browse":
        return await _browse(action.arguments, base_url)
    if action.name == "Search":
        return await _search(action.arguments, base_url)
    if action.name == "GetSearchCapabilities":
        return (("SearchCaps", SEARCH_CAPABILITIES),)
    if action.name == "GetSortCapabilities":
        return (("SortCaps", SORT_CAPABILITIES),)
    if action.name == "GetSystemUpdateID":
        return (("Id", await _update_id()),)
    raise SoapError(INVALID_ACTION, f"No action {action.name}.")


async def _browse(arguments: Mapping[str, str], base_url: str) -> Out:
    object_id = arguments.get("ObjectID", "")
    flag = arguments.get("BrowseFlag", "")
    start = _unsigned(arguments, "StartingIndex")
    count = _unsigned(arguments, "RequestedCount")
    order = parse_sort(arguments.get("SortCriteria", ""))
    if not object_id:
        raise SoapError(INVALID_ARGS, "ObjectID is required.")
    if flag == "BrowseMetadata":
        objects: list[tree.DidlObject] = [await tree.metadata(object_id, base_url)]
        total = 1
    elif flag == "BrowseDirectChildren":
        page = await tree.children(object_id, start, count, base_url, order)
        objects, total = page.objects, page.total
    else:
        raise SoapError(INVALID_ARGS, "BrowseFlag must be BrowseMetadata or BrowseDirectChildren.")
    return await _result(objects, total)


async def _search(arguments: Mapping[str, str], base_url: str) -> Out:
    container_id = arguments.get("ContainerID", "")
    start = _unsigned(arguments, "StartingIndex")
    count = _unsigned(arguments, "RequestedCount")
    order = parse_sort(arguments.get("SortCriteria", ""))
    if not container_id:
        raise SoapError(INVALID_ARGS, "ContainerID is required.")
    found = await search(container_id, arguments.get("SearchCriteria", ""), start, count, base_url, order)
    return await _result(found.objects, found.total)


async def _result(objects: Sequence[tree.DidlObject], total: int) -> Out:
    return (
        ("Result", didl.document(objects)),
        ("NumberReturned", str(len(objects))),
        ("TotalMatches", str(total)),
        ("UpdateID", await _update_id()),
    )


async def _update_id() -> str:
    """SystemUpdateID: moves when the catalogue changes (storage/catalogue_stamp.py; evented: .events)."""
    return str(await catalogue_update_id())


def _unsigned(arguments: Mapping[str, str], name: str) -> int:
    raw = arguments.get(name, "0") or "0"
    if not raw.isdigit() or int(raw) > 0xFFFFFFFF:
        raise SoapError(INVALID_ARGS, f"{name} must be an unsigned integer.")
    return int(raw)
