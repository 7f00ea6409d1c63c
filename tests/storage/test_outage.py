"""The store's outage log: one line when the database stops answering, one when it answers again."""

from __future__ import annotations

import logging

import pytest

from reelhouse.storage._outage import Outage
from reelhouse.storage._store import StoreUnavailable

LOGGER = "reelhouse.storage"


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage().split(" (")[0] for record in caplog.records if record.name == LOGGER]


def test_an_outage_is_logged_once_when_it_starts_and_once_when_it_ends(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, LOGGER)
    outage = Outage("PostgreSQL")
    for _ in range(3):
        outage.note_failure(StoreUnavailable("connection refused"))
    assert outage.down
    outage.note_success(started=float("inf"))
    assert not outage.down
    assert lines(caplog) == ["PostgreSQL cannot be reached", "PostgreSQL answers again"]


def test_a_call_begun_before_the_outage_that_succeeds_does_not_end_it(caplog: pytest.LogCaptureFixture) -> None:
    """Regression: CI 2026-11-29, a query on an open session finished after a new connection was refused
    while PostgreSQL stopped, ended the outage at once, and the outage was logged twice."""
    caplog.set_level(logging.WARNING, LOGGER)
    outage = Outage("PostgreSQL")
    before = float("-inf")
    outage.note_failure(StoreUnavailable("connection refused"))
    outage.note_success(started=before)
    assert outage.down
    outage.note_failure(StoreUnavailable("connection refused"))
    assert lines(caplog) == ["PostgreSQL cannot be reached"]
