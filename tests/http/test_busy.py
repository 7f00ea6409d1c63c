"""The fuzzers' busy rule (tests/http/busy.py): only the documented busy answer is sent again, and not forever."""

from __future__ import annotations

import json

import pytest

from . import busy

BUSY = json.dumps({"code": "service_unavailable", "message": "The server is busy; try again shortly.",
                   "params": {"retryAfterSeconds": 5}}).encode()  # fmt: skip


@pytest.mark.parametrize(("status", "body", "expected"), [
    (503, BUSY, True),
    (503, b'{"code": "service_unavailable", "message": "down", "params": {}}', False),
    (500, BUSY, False),
    (503, b"not json", False),
    (200, b"{}", False),
])  # fmt: skip
def test_only_the_documented_busy_answer_is_busy(status: int, body: bytes, expected: bool) -> None:
    assert busy.is_busy(status, body) is expected


def test_a_busy_answer_is_sent_again_until_it_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(busy, "BUSY_PAUSE_S", 0.0)
    answers = iter([(503, BUSY), (503, BUSY), (201, b"{}")])
    assert busy.sent_until_not_busy(lambda: next(answers), lambda answer: answer) == (201, b"{}")


def test_an_answer_busy_every_time_is_handed_back_after_the_last_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(busy, "BUSY_PAUSE_S", 0.0)
    sent = []
    assert busy.sent_until_not_busy(lambda: sent.append(1) or (503, BUSY), lambda answer: answer) == (503, BUSY)
    assert len(sent) == busy.BUSY_ATTEMPTS
