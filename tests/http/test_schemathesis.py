"""A bounded schemathesis run against a real server: no 5xx, no undocumented status, no schema mismatch.

schemathesis reads the served OpenAPI document and, for every operation,
sends a few generated requests, valid and invalid, over a real socket with
an API key, then checks each answer against the document with its own
checks: the status is documented, the content type and body match the
documented schema, documented headers are present, nothing is a server
error, and a request without the key is refused. A request refused as busy
(load, not what was sent: tests/http/busy.py) is sent again first.

Each operation is its own test case (the list comes from the app's own
document, so a new route is fuzzed as soon as it exists), on both backends. The server holds
one scanned library with one movie (and its poster), and each operation
with path parameters is also fuzzed with their ids, so that answers about
things that exist (a Library, an ItemDetail, an image, a scan started) are
checked too, not only 404s. schemathesis'
pytest plugin is not used: it does not run under pytest 9; its Python API
(``APIOperation.as_strategy`` with Hypothesis) does the same here.
``GET /scans/events`` is left out: its answer is an endless stream, which
schemathesis would wait for (tests/http/test_text_fuzz.py sends it
arbitrary text instead).
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.generation.case import Case
from schemathesis.specs.openapi.checks import positive_data_acceptance

from .busy import sent_until_not_busy
from .live_server import LiveServer
from .seeded_server import backend, openapi_document, seeded_ids, served  # noqa: F401 (fixtures)

EXAMPLES_PER_OPERATION = 8
REQUEST_TIMEOUT_S = 10.0
# The server checks more than a schema can say (paths that exist, a name
# that is not blank, a rating label it knows), so a schema-valid request
# may well be refused with a documented 400.
EXCLUDED_CHECKS = [positive_data_acceptance]
SEEDED = ("library_id", "item_id", "job_id")  # path parameters seeded_ids fills
STREAMS = frozenset({("GET", "/api/v1/scans/events")})


def documented_operations() -> list[tuple[str, str, str]]:
    """(METHOD, path, ids) of every documented operation; ids "known" for those with a seeded path parameter."""
    document = openapi_document()
    found = [(method.upper(), path) for path, ops in document["paths"].items() for method in ops]
    cases = [(method, path, "generated") for method, path in found]
    cases += [(method, path, "known") for method, path in found if any(f"{{{n}}}" in path for n in SEEDED)]
    return sorted(case for case in cases if case[:2] not in STREAMS)


@pytest.fixture(scope="module")
def api_schema(served: LiveServer) -> schemathesis.BaseSchema:
    # Unknown query parameters are ignored by design (a client may add its
    # own, a cache buster say), so they do not count as invalid input.
    config = schemathesis.Config.from_dict({"generation": {"allow-extra-parameters": False}})
    return schemathesis.openapi.from_url(f"{served.api_url}/openapi.json", config=config, timeout=REQUEST_TIMEOUT_S)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
@pytest.mark.parametrize(("method", "path", "ids"), documented_operations())
def test_operation_answers_as_documented(
    api_schema: schemathesis.BaseSchema,
    served: LiveServer,
    seeded_ids: dict[str, str],
    method: str,
    path: str,
    mode: GenerationMode,
    ids: str,
) -> None:
    operation = api_schema[path][method]
    fixed: dict[str, Any] = {}
    if ids == "known":
        fixed = {p.name: seeded_ids[p.name] for p in operation.path_parameters if p.name in SEEDED}

    @given(case=operation.as_strategy(generation_mode=mode, path_parameters=fixed or None))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,  # the same requests every run: a failure is never a fluke of the seed
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def answers_as_documented(case: Case) -> None:
        response = sent_until_not_busy(
            lambda: case.call(headers=served.auth, timeout=REQUEST_TIMEOUT_S),
            lambda answer: (answer.status_code, answer.content),
        )
        case.validate_response(
            response, headers=served.auth, excluded_checks=EXCLUDED_CHECKS,
            transport_kwargs={"headers": dict(served.auth), "timeout": REQUEST_TIMEOUT_S},
        )

    answers_as_documented()
