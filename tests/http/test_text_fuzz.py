"""Arbitrary text in every text parameter of every endpoint never makes the server fail (no 5xx).

Every parameter the OpenAPI document lists (query, path, header) and every
top-level field of every JSON body gets arbitrary strings: any Unicode
(NUL and control characters included), lone surrogates and other bytes
that are not UTF-8 (sent percent-encoded, as a client could), and long
strings. The answer is never a 5xx, and an error always carries the
reference's error body; a request refused as busy (load, not its values:
tests/http/busy.py) is sent again. Both backends: the values reach SQLite and
PostgreSQL reads (search, item filters, ids) and writes (a library's name).

The other parameters of the request hold valid values (the seeded
library's and movie's ids, a q for /search), so the fuzzed one gets past
the checks that come first. A library path is only ever fuzzed below a
directory that does not exist, never a real directory to scan.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..tls import shared_tls_context
from .busy import sent_until_not_busy
from .live_server import LiveServer
from .seeded_server import backend, openapi_document, seeded_ids, served  # noqa: F401 (fixtures)

EXAMPLES_PER_PARAMETER = 8
REQUEST_TIMEOUT_S = 15.0
STREAM = "text/event-stream"
_fresh = itertools.count()


@dataclass(frozen=True)
class Target:
    method: str
    path: str  # OpenAPI path, {name} for path parameters
    location: str  # query, path, header or body
    name: str


def text_targets() -> list[Target]:
    """Every parameter and top-level body field of every documented operation."""
    document = openapi_document()
    targets = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation["parameters"]:
                targets.append(Target(method.upper(), path, parameter["in"], parameter["name"]))
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            for name in body.get("schema", {}).get("properties", {}):
                targets.append(Target(method.upper(), path, "body", name))
    return sorted(targets, key=lambda t: (t.path, t.method, t.location, t.name))


TARGETS = text_targets()

# What a client can put in a URL: any text (NUL, controls, any plane), lone
# surrogates as the bytes a lax encoder sends, bytes that are not UTF-8,
# long strings.
texts = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec=None, exclude_categories=()), max_size=40),  # with surrogates
    st.sampled_from(["", " ", "\x00", "abc\x00", "a%00", "%", "\ud800", "\udfff\ud800", "..", "/", "*", '"', "'"]),
    st.text(st.characters(max_codepoint=0x7F), min_size=1000, max_size=3000),
)
raw_bytes = st.binary(max_size=200)
# Header values: what HTTP/1.1 lets through (visible ASCII).
header_texts = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=40)


@pytest.fixture(scope="module")
def known(seeded_ids: dict[str, str]) -> dict[str, str]:
    return {**seeded_ids, "q": "arrival"}


@pytest.fixture(scope="module")
def client(served: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(verify=shared_tls_context(), base_url=served.base_url, headers=served.auth, timeout=REQUEST_TIMEOUT_S) as c:
        yield c


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: f"{t.method} {t.path} {t.location} {t.name}")
def test_arbitrary_text_in_any_parameter_is_never_a_server_error(
    client: httpx.Client, known: dict[str, str], tmp_path: Path, target: Target
) -> None:
    @given(value=st.one_of(texts, raw_bytes), header=header_texts)
    @settings(
        max_examples=EXAMPLES_PER_PARAMETER,
        deadline=None,
        derandomize=True,  # the same values every run: the suite is never flaky
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def never_a_server_error(value: str | bytes, header: str) -> None:
        _send_and_check(client, _request(target, value, header, known, tmp_path), target, value)

    never_a_server_error()


def _send_and_check(client: httpx.Client, request: Request, target: Target, value: str | bytes) -> None:
    status, body = sent_until_not_busy(lambda: _send(client, request), lambda answer: answer)
    assert status < 500, (target, value, body[:300])
    if status >= 400:
        error = json.loads(body)
        assert isinstance(error["code"], str) and isinstance(error["message"], str), body


def _send(client: httpx.Client, request: Request) -> tuple[int, bytes]:
    with client.stream(request.method, request.url, headers=request.headers, content=request.content) as response:
        if response.headers.get("content-type", "").startswith(STREAM):
            return response.status_code, b""  # an event stream that opened: nothing failed, and it never ends
        return response.status_code, response.read()


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: dict[str, str]
    content: bytes | None


def _request(target: Target, value: str | bytes, header: str, known: dict[str, str], tmp_path: Path) -> Request:
    raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        value = raw if (target.location, target.name) == ("path", name) else known.get(name, "x").encode()
        return quote(value, safe="")

    path = re.sub(r"\{(\w+)\}", fill, target.path)
    query = []
    if target.location == "query":
        query.append(f"{quote(target.name)}={quote(raw, safe='')}")
    if target.path.endswith("/search") and target.name != "q":
        query.append(f"q={known['q']}")
    headers = {"Content-Type": "application/json"}
    if target.location == "header":
        headers[target.name] = header
    content = _body(target, value, tmp_path) if target.method == "POST" else None
    url = path + ("?" + "&".join(query) if query else "")
    return Request(target.method, url, headers, content)


def _body(target: Target, value: str | bytes, tmp_path: Path) -> bytes | None:
    if target.location != "body":
        return None
    if isinstance(value, bytes):  # bytes that are not text, spliced into the JSON as they are
        return b'{"' + target.name.encode() + b'": "' + value.replace(b'"', b"") + b'"}'
    fields: dict[str, Any] = {}
    if target.path == "/api/v1/libraries":
        fresh = tmp_path / f"root-{next(_fresh)}"  # a new empty root: a valid create succeeds
        fresh.mkdir()
        fields = {"name": "Fuzz", "paths": [str(fresh)], "collectionType": "movies"}
        if target.name == "paths":  # below a directory that does not exist, one component deep
            value = [f"{tmp_path}/missing/{value.replace('/', '_')}"]  # type: ignore[assignment]
    if target.path.endswith("/refresh"):
        fields = {"mode": "missing"}
    fields[target.name] = value
    # ensure_ascii escapes lone surrogates (\ud800) as JSON allows; orjson could not write them.
    return json.dumps(fields, ensure_ascii=True).encode()
