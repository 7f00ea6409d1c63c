"""The MediaServer's device description and its two services' SCPDs (UPnP Device Architecture 1.0).

Paths are relative to the description's URL base: the HTTP side serves
them under ``/dlna/`` on the server's own port.  The device's UDN is
derived from the server id, so a television keeps recognising the server
across restarts.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from xml.sax.saxutils import escape

CONTENT_DIRECTORY = "urn:schemas-upnp-org:service:ContentDirectory:1"
CONNECTION_MANAGER = "urn:schemas-upnp-org:service:ConnectionManager:1"
MEDIA_SERVER = "urn:schemas-upnp-org:device:MediaServer:1"
PATHS = {
    CONTENT_DIRECTORY: ("contentdirectory", "ContentDirectory"),
    CONNECTION_MANAGER: ("connectionmanager", "ConnectionManager"),
}
_UDN_NAMESPACE = uuid.UUID("6b1c7a52-4f0e-4a8e-9d43-2c5f6e2d9a10")

# (name, [(argument, direction, state variable)])
Action = tuple[str, Sequence[tuple[str, str, str]]]
# (name, data type, sendEvents, allowed values)
Variable = tuple[str, str, bool, Sequence[str]]

CONTENT_DIRECTORY_ACTIONS: Sequence[Action] = (
    ("Browse", (
        ("ObjectID", "in", "A_ARG_TYPE_ObjectID"), ("BrowseFlag", "in", "A_ARG_TYPE_BrowseFlag"),
        ("Filter", "in", "A_ARG_TYPE_Filter"), ("StartingIndex", "in", "A_ARG_TYPE_Index"),
        ("RequestedCount", "in", "A_ARG_TYPE_Count"), ("SortCriteria", "in", "A_ARG_TYPE_SortCriteria"),
        ("Result", "out", "A_ARG_TYPE_Result"), ("NumberReturned", "out", "A_ARG_TYPE_Count"),
        ("TotalMatches", "out", "A_ARG_TYPE_Count"), ("UpdateID", "out", "A_ARG_TYPE_UpdateID"),
    )),
    ("Search", (
        ("ContainerID", "in", "A_ARG_TYPE_ObjectID"), ("SearchCriteria", "in", "A_ARG_TYPE_SearchCriteria"),
        ("Filter", "in", "A_ARG_TYPE_Filter"), ("StartingIndex", "in", "A_ARG_TYPE_Index"),
        ("RequestedCount", "in", "A_ARG_TYPE_Count"), ("SortCriteria", "in", "A_ARG_TYPE_SortCriteria"),
        ("Result", "out", "A_ARG_TYPE_Result"), ("NumberReturned", "out", "A_ARG_TYPE_Count"),
        ("TotalMatches", "out", "A_ARG_TYPE_Count"), ("UpdateID", "out", "A_ARG_TYPE_UpdateID"),
    )),
    ("GetSearchCapabilities", (("SearchCaps", "out", "SearchCapabilities"),)),
    ("GetSortCapabilities", (("SortCaps", "out", "SortCapabilities"),)),
    ("GetSystemUpdateID", (("Id", "out", "SystemUpdateID"),)),
)  # fmt: skip
CONTENT_DIRECTORY_VARIABLES: Sequence[Variable] = (
    ("A_ARG_TYPE_ObjectID", "string", False, ()),
    ("A_ARG_TYPE_Result", "string", False, ()),
    ("A_ARG_TYPE_BrowseFlag", "string", False, ("BrowseMetadata", "BrowseDirectChildren")),
    ("A_ARG_TYPE_Filter", "string", False, ()),
    ("A_ARG_TYPE_SortCriteria", "string", False, ()),
    ("A_ARG_TYPE_SearchCriteria", "string", False, ()),
    ("A_ARG_TYPE_Index", "ui4", False, ()),
    ("A_ARG_TYPE_Count", "ui4", False, ()),
    ("A_ARG_TYPE_UpdateID", "ui4", False, ()),
    ("SearchCapabilities", "string", False, ()),
    ("SortCapabilities", "string", False, ()),
    ("SystemUpdateID", "ui4", True, ()),
    ("ContainerUpdateIDs", "string", True, ()),
)
CONNECTION_MANAGER_ACTIONS: Sequence[Action] = (
    ("GetProtocolInfo", (("Source", "out", "SourceProtocolInfo"), ("Sink", "out", "SinkProtocolInfo"))),
    ("GetCurrentConnectionIDs", (("ConnectionIDs", "out", "CurrentConnectionIDs"),)),
)
CONNECTION_MANAGER_VARIABLES: Sequence[Variable] = (
    ("SourceProtocolInfo", "string", True, ()),
    ("SinkProtocolInfo", "string", True, ()),
    ("CurrentConnectionIDs", "string", True, ()),
)


def device_udn(server_id: str) -> str:
    return f"uuid:{uuid.uuid5(_UDN_NAMESPACE, server_id)}"


def device_description(friendly_name: str, udn: str, version: str) -> bytes:
    services = "".join(
        f"<service><serviceType>{service}</serviceType><serviceId>urn:upnp-org:serviceId:{sid}</serviceId>"
        f"<SCPDURL>/dlna/{path}.xml</SCPDURL><controlURL>/dlna/control/{path}</controlURL>"
        f"<eventSubURL>/dlna/events/{path}</eventSubURL></service>"
        for service, (path, sid) in PATHS.items()
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<root xmlns="urn:schemas-upnp-org:device-1-0" xmlns:dlna="urn:schemas-dlna-org:device-1-0">'
        "<specVersion><major>1</major><minor>0</minor></specVersion><device>"
        f"<deviceType>{MEDIA_SERVER}</deviceType><friendlyName>{escape(friendly_name)}</friendlyName>"
        "<manufacturer>Reelhouse</manufacturer><modelDescription>Reelhouse media library</modelDescription>"
        f"<modelName>Reelhouse</modelName><modelNumber>{escape(version)}</modelNumber>"
        f"<UDN>{escape(udn)}</UDN><dlna:X_DLNADOC>DMS-1.50</dlna:X_DLNADOC>"
        f"<serviceList>{services}</serviceList></device></root>"
    ).encode()


def scpd(actions: Sequence[Action], variables: Sequence[Variable]) -> bytes:
    action_list = "".join(
        f"<action><name>{name}</name><argumentList>"
        + "".join(
            f"<argument><name>{arg}</name><direction>{direction}</direction>"
            f"<relatedStateVariable>{variable}</relatedStateVariable></argument>"
            for arg, direction, variable in arguments
        )
        + "</argumentList></action>"
        for name, arguments in actions
    )
    state = "".join(_variable(v) for v in variables)
    return (
        '<?xml version="1.0" encoding="utf-8"?><scpd xmlns="urn:schemas-upnp-org:service-1-0">'
        "<specVersion><major>1</major><minor>0</minor></specVersion>"
        f"<actionList>{action_list}</actionList><serviceStateTable>{state}</serviceStateTable></scpd>"
    ).encode()


def _variable(variable: Variable) -> str:
    name, data_type, events, allowed = variable
    values = "".join(f"<allowedValue>{v}</allowedValue>" for v in allowed)
    allowed_list = f"<allowedValueList>{values}</allowedValueList>" if allowed else ""
    return (
        f'<stateVariable sendEvents="{"yes" if events else "no"}"><name>{name}</name>'
        f"<dataType>{data_type}</dataType>{allowed_list}</stateVariable>"
    )
