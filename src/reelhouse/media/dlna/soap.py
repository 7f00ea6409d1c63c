"""UPnP control requests (SOAP 1.1) in, answers and faults out.

A request body is read with defusedxml, as the NFO reader reads NFOs: no
DTD, no entities, no external references; it is also refused when larger
than :data:`MAX_BODY_BYTES` or nested deeper than :data:`MAX_DEPTH` (a
control request is four levels deep).  Answers are built as text with
every value escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.etree.ElementTree import Element, ParseError
from xml.sax.saxutils import escape

import defusedxml
import defusedxml.ElementTree

MAX_BODY_BYTES = 64 * 1024
MAX_DEPTH = 16
SOAP_ENVELOPE = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP_ENCODING = "http://schemas.xmlsoap.org/soap/encoding/"
CONTROL_NAMESPACE = "urn:schemas-upnp-org:control-1-0"

# UPnP error codes (UPnP Device Architecture 1.0, ContentDirectory:1).
INVALID_ACTION = 401
INVALID_ARGS = 402
ACTION_FAILED = 501
NO_SUCH_OBJECT = 701


class SoapError(Exception):
    """A request the service refuses: answered as a UPnPError fault."""

    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description


@dataclass(frozen=True, slots=True)
class SoapAction:
    service_type: str  # "urn:schemas-upnp-org:service:ContentDirectory:1"
    name: str  # "Browse"
    arguments: Mapping[str, str]


def parse_action(body: bytes) -> SoapAction:
    """The action a control request names, or :class:`SoapError` (402 for a hostile or malformed body)."""
    if len(body) > MAX_BODY_BYTES:
        raise SoapError(INVALID_ARGS, "The request body is too large.")
    try:
        root = defusedxml.ElementTree.fromstring(body, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except defusedxml.DefusedXmlException:
        raise SoapError(INVALID_ARGS, "The request declares a DTD, entities or external references.") from None
    except (ParseError, ValueError, LookupError):
        raise SoapError(INVALID_ARGS, "The request is not well-formed XML.") from None
    if _depth(root) > MAX_DEPTH:
        raise SoapError(INVALID_ARGS, "The request is nested too deeply.")
    if root.tag != f"{{{SOAP_ENVELOPE}}}Envelope":
        raise SoapError(INVALID_ARGS, "The request is not a SOAP envelope.")
    body_element = root.find(f"{{{SOAP_ENVELOPE}}}Body")
    if body_element is None or len(body_element) == 0:
        raise SoapError(INVALID_ACTION, "The request names no action.")
    action = body_element[0]
    namespace, _, name = action.tag[1:].partition("}") if action.tag.startswith("{") else ("", "", action.tag)
    arguments = {_local(child.tag): (child.text or "").strip() for child in action}
    return SoapAction(namespace, name, arguments)


def action_response(service_type: str, action: str, values: Sequence[tuple[str, str]]) -> bytes:
    """The ``<u:{action}Response>`` envelope with ``values`` as its out arguments, in order."""
    out = "".join(f"<{name}>{escape(value)}</{name}>" for name, value in values)
    inner = f'<u:{action}Response xmlns:u="{service_type}">{out}</u:{action}Response>'
    return _envelope(inner)


def fault(error: SoapError) -> bytes:
    """The SOAP fault a UPnP control point reads (HTTP 500)."""
    inner = (
        "<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>"
        f'<UPnPError xmlns="{CONTROL_NAMESPACE}"><errorCode>{error.code}</errorCode>'
        f"<errorDescription>{escape(error.description)}</errorDescription></UPnPError></detail></s:Fault>"
    )
    return _envelope(inner)


def _envelope(inner: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<s:Envelope xmlns:s="{SOAP_ENVELOPE}" s:encodingStyle="{SOAP_ENCODING}"><s:Body>{inner}</s:Body></s:Envelope>'
    ).encode()


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _depth(root: Element) -> int:
    """The element tree's depth, walked without recursion (a deep body must not exhaust the stack)."""
    deepest = 0
    pending = [(root, 1)]
    while pending:
        element, depth = pending.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            return deepest
        pending.extend((child, depth + 1) for child in element)
    return deepest
