"""Control requests are read safely; answers and faults are well-formed and escaped."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from reelhouse.media.dlna.soap import (
    INVALID_ACTION,
    INVALID_ARGS,
    MAX_BODY_BYTES,
    SoapError,
    action_response,
    fault,
    parse_action,
)

CD = "urn:schemas-upnp-org:service:ContentDirectory:1"
BROWSE = (
    '<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>'
    f'<u:Browse xmlns:u="{CD}"><ObjectID> 0 </ObjectID><BrowseFlag>BrowseMetadata</BrowseFlag></u:Browse>'
    "</s:Body></s:Envelope>"
).encode()


def test_an_action_is_read_with_its_service_and_arguments() -> None:
    action = parse_action(BROWSE)
    assert (action.service_type, action.name) == (CD, "Browse")
    assert action.arguments == {"ObjectID": "0", "BrowseFlag": "BrowseMetadata"}


@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>',
        b'<!DOCTYPE a [<!ENTITY b "bb"><!ENTITY c "&b;&b;&b;">]><a>&c;</a>',
        b"<a>" * (MAX_BODY_BYTES // 7) + b"</a>" * (MAX_BODY_BYTES // 7),
        b"<a>" * 17 + b"</a>" * 17,
        b"<a>" + b"x" * MAX_BODY_BYTES + b"</a>",
        b"<not xml",
        b"<a>not an envelope</a>",
        BROWSE.replace(b"<ObjectID> 0 </ObjectID>", b"<ObjectID>&undeclared;</ObjectID>"),
        b'<?xml version="1.0"?><!DOCTYPE s:Envelope SYSTEM "http://example.invalid/soap.dtd">' + BROWSE[21:],
    ],
    ids=["xxe", "entities", "huge-and-deep", "deep", "huge", "malformed", "not-soap", "undeclared-entity",
         "external-dtd"],
)
def test_hostile_or_malformed_bodies_are_invalid_args(body: bytes) -> None:
    with pytest.raises(SoapError) as refused:
        parse_action(body)
    assert refused.value.code == INVALID_ARGS


def test_only_the_first_body_action_and_the_text_before_an_arguments_elements_are_read() -> None:
    body = (
        '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><u:Search xmlns:u="x">'
        "<ObjectID>header</ObjectID></u:Search></s:Header><s:Body>"
        f'<u:Browse xmlns:u="{CD}"><ObjectID> 0<b>inner</b>tail</ObjectID><Filter>*</Filter></u:Browse>'
        f'<u:Search xmlns:u="{CD}"><ObjectID>second</ObjectID><Other>x</Other></u:Search>'
        "</s:Body></s:Envelope>"
    ).encode()
    action = parse_action(body)
    assert (action.service_type, action.name) == (CD, "Browse")
    assert action.arguments == {"ObjectID": "0", "Filter": "*"}


def test_an_envelope_nested_too_deeply_inside_its_action_is_refused() -> None:
    deep = b"<a>" * 13 + b"</a>" * 13
    body = BROWSE.replace(b"<BrowseFlag>", b"<BrowseFlag>" + deep)
    with pytest.raises(SoapError) as refused:
        parse_action(body)
    assert refused.value.code == INVALID_ARGS and "deeply" in refused.value.description


def test_an_envelope_without_an_action_is_invalid_action() -> None:
    body = b'<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>'
    with pytest.raises(SoapError) as refused:
        parse_action(body)
    assert refused.value.code == INVALID_ACTION


def test_out_arguments_are_escaped_and_read_back_unchanged() -> None:
    didl = '<DIDL-Lite><item id="a&amp;b"/></DIDL-Lite>'
    answer = ElementTree.fromstring(action_response(CD, "Browse", [("Result", didl), ("TotalMatches", "1")]))
    response = answer.find(f".//{{{CD}}}BrowseResponse")
    assert response is not None and response.findtext("Result") == didl and response.findtext("TotalMatches") == "1"


def test_a_fault_carries_the_upnp_error_code_and_an_escaped_description() -> None:
    answer = ElementTree.fromstring(fault(SoapError(701, "No <such> object")))
    ns = "{urn:schemas-upnp-org:control-1-0}"
    assert answer.findtext(f".//{ns}errorCode") == "701"
    assert answer.findtext(f".//{ns}errorDescription") == "No <such> object"
