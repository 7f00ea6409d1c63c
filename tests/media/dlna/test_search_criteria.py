"""ContentDirectory Search criteria read into one item-query match, or refused with 708."""

from __future__ import annotations

import pytest

from reelhouse.media.dlna.search import EVERY_TYPE, Match, parse_criteria
from reelhouse.media.dlna.soap import SoapError


def test_the_criteria_televisions_send_read_as_one_match() -> None:
    assert parse_criteria("*") == Match()
    assert parse_criteria('upnp:class derivedfrom "object.item.videoItem" and @refID exists false') == Match(
        types=frozenset({"Movie", "Episode"})
    )
    both = parse_criteria('(upnp:class = "object.item.videoItem.movie" or upnp:class = "object.item.videoItem")'
                          ' and dc:title contains "Blade \\"Runner\\""')  # fmt: skip
    assert both == Match(types=frozenset({"Movie", "Episode"}), title='Blade "Runner"')
    assert parse_criteria('dc:date >= "1990-01-01" and dc:date < "2000-01-01"') == Match(year_from=1990, year_to=1999)
    assert parse_criteria('upnp:genre = "Drama" AND upnp:class != "object.container.storageFolder"') == Match(
        types=frozenset({"Movie", "Episode"}), genre="drama"
    )


def test_criteria_nothing_here_can_match_read_as_none() -> None:
    assert parse_criteria('upnp:class derivedfrom "object.item.audioItem"') is None
    assert parse_criteria('upnp:artist contains "Bach"') is None
    assert parse_criteria('dc:date > "2000" and dc:date < "1990"') is None
    assert parse_criteria('upnp:artist contains "x" or dc:title contains "y"') == Match(EVERY_TYPE, title="y")


@pytest.mark.parametrize("criteria", [
    "dc:title contains", 'dc:title contains "a" or dc:title contains "b"', 'dc:title doesNotContain "a"',
    'dc:title contains "a" and dc:title contains "b"', "(" * 20 + 'dc:title = "a"' + ")" * 20, "dc:title = a",
    'dc:date >= "yesterday"', '(dc:title = "a"', 'dc:title = "a" dc:title = "b"', "x" * 3000,
])  # fmt: skip
def test_malformed_or_inexpressible_criteria_are_error_708(criteria: str) -> None:
    with pytest.raises(SoapError) as refused:
        parse_criteria(criteria)
    assert refused.value.code == 708
