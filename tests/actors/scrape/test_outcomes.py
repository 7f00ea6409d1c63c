"""How the scrape queue reads a failed provider call: pause, retry or fail the item."""

from __future__ import annotations

import pytest

from reelhouse import errors
from reelhouse.actors.plugins.connection import PluginCallError, PluginNotRunning
from reelhouse.actors.scrape.outcomes import DEFAULT_RATE_LIMIT_SECONDS, Crashed, ItemFailed, Pause, classify
from reelhouse.media.durations import MAX_WAIT_SECONDS, MIN_WAIT_SECONDS
from reelhouse.media.provider_metadata import ProviderAnswerError


def test_a_rate_limit_pauses_for_the_providers_retry_after() -> None:
    outcome = classify(PluginCallError("tmdb", "rate_limited", "slow down", retryAfterSeconds=7))
    assert outcome == Pause("rate_limited", "rate_limited", "tmdb", 7.0)


@pytest.mark.parametrize(("seconds", "expected"), [
    (1e30, MAX_WAIT_SECONDS), ("99999999999999999999", MAX_WAIT_SECONDS), (-5, MIN_WAIT_SECONDS),
    (float("nan"), DEFAULT_RATE_LIMIT_SECONDS), ("soon", DEFAULT_RATE_LIMIT_SECONDS),
])
def test_an_absurd_retry_after_pauses_the_queue_a_day_at_most(seconds: object, expected: float) -> None:
    outcome = classify(PluginCallError("tmdb", "rate_limited", "slow down", retryAfterSeconds=seconds))
    assert outcome == Pause("rate_limited", "rate_limited", "tmdb", expected)


@pytest.mark.parametrize("reason", ["unreachable", "timeout", "auth_failed", "needs_configuration"])
def test_an_upstream_out_of_reach_pauses_with_the_backoff(reason: str) -> None:
    outcome = classify(PluginCallError("tmdb", reason, "down"))
    assert outcome == Pause("provider_unavailable", reason, "tmdb", None)


def test_a_restarting_plugin_pauses_until_its_restart() -> None:
    outcome = classify(PluginNotRunning("tmdb", "restarting", retry_after=1.2))
    assert outcome == Pause("provider_unavailable", "restarting", "tmdb", 1.0)


def test_a_removed_plugin_pauses() -> None:
    outcome = classify(errors.NotFound("No plugin tmdb.", params={"pluginId": "tmdb"}))
    assert isinstance(outcome, Pause) and outcome.reason == "not_installed"


def test_a_crash_under_the_call_is_retried() -> None:
    assert classify(PluginCallError("tmdb", "crashed", "gone")) == Crashed("tmdb")


def test_a_broken_answer_fails_the_item() -> None:
    outcome = classify(ProviderAnswerError("score must be a number"))
    assert isinstance(outcome, ItemFailed) and "score must be a number" in outcome.error


def test_the_plugins_own_text_never_becomes_the_scrape_error() -> None:
    outcome = classify(PluginCallError("tmdb", "unknown", "bad key sk-secret-123"))
    assert isinstance(outcome, ItemFailed) and "sk-secret" not in outcome.error
