"""The server's answer to load, told apart from its answer to a request: for the fuzzers.

Under load an ask can outlast its deadline; the server then answers 503
``service_unavailable`` with ``retryAfterSeconds`` and leaves nothing
behind (``tests/http/test_ask_deadlines.py``), as a client is told to
expect. A fuzzer judges what the server does with a request's values, so
it sends such a request again a few times; a request that is refused as
busy every time still fails the test (a value that hangs the server looks
exactly like that).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TypeVar

R = TypeVar("R")

BUSY_ATTEMPTS = 4
BUSY_PAUSE_S = 1.0  # the server asks for 5 s; a test needs only its load to have passed


def is_busy(status: int, body: bytes) -> bool:
    """Whether an answer is the server's documented "busy, try again shortly"."""
    if status != 503:
        return False
    try:
        error = json.loads(body)
    except ValueError:
        return False
    return error.get("code") == "service_unavailable" and "retryAfterSeconds" in (error.get("params") or {})


def sent_until_not_busy(send: Callable[[], R], answer: Callable[[R], tuple[int, bytes]]) -> R:
    """``send()`` again while its answer is busy, at most :data:`BUSY_ATTEMPTS` times; the last answer."""
    for _ in range(BUSY_ATTEMPTS - 1):
        sent = send()
        if not is_busy(*answer(sent)):
            return sent
        time.sleep(BUSY_PAUSE_S)
    return send()
