"""The scrape queue's confidence rule."""

from __future__ import annotations

import pytest

from reelhouse.media.provider_metadata import Candidate
from reelhouse.media.scrape_match import confident_candidate, search_kind


def _candidates(*scores: float) -> list[Candidate]:
    return [Candidate(str(i), f"Title {i}", score) for i, score in enumerate(scores)]


@pytest.mark.parametrize(("scores", "chosen"), [
    ((0.97,), "0"),
    ((0.85, 0.75), "0"),  # exactly at both limits
    ((0.6, 0.95), "1"),  # best first whatever the order given
])
def test_a_candidate_far_enough_ahead_and_sure_enough_is_chosen(scores: tuple[float, ...], chosen: str) -> None:
    match = confident_candidate(_candidates(*scores))
    assert match is not None and match.provider_item_id == chosen


@pytest.mark.parametrize("scores", [(), (0.84,), (0.9, 0.85), (0.99, 0.95)])
def test_an_unsure_or_close_call_is_left_to_the_user(scores: tuple[float, ...]) -> None:
    assert confident_candidate(_candidates(*scores)) is None


def test_only_movies_and_series_are_searched() -> None:
    assert search_kind("Movie") == "movie" and search_kind("Series") == "series"
    assert search_kind("Episode") is None and search_kind("Season") is None
