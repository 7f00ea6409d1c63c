"""ContentDirectory Search criteria read into item-query matches (an or of them), or refused with 708."""

from __future__ import annotations

import pytest

from reelhouse.media.dlna.search import EVERY_TYPE, Match, parse_criteria
from reelhouse.media.dlna.soap import SoapError


def test_the_criteria_televisions_send_read_as_one_match() -> None:
    assert parse_criteria("*") == [Match()]
    assert parse_criteria('upnp:class derivedfrom "object.item.videoItem" and @refID exists false') == [Match(
        types=frozenset({"Movie", "Episode"})
    )]
    both = parse_criteria('(upnp:class = "object.item.videoItem.movie" or upnp:class = "object.item.videoItem")'
                          ' and dc:title contains "Blade \\"Runner\\""')  # fmt: skip
    assert both == [Match(types=frozenset({"Movie", "Episode"}), title='Blade "Runner"')]
    assert parse_criteria('dc:date >= "1990-01-01" and dc:date < "2000-01-01"') == [Match(year_from=1990, year_to=1999)]
    assert parse_criteria('upnp:genre = "Drama" AND upnp:class != "object.container.storageFolder"') == [Match(
        types=frozenset({"Movie", "Episode"}), genre="drama"
    )]


def test_criteria_nothing_here_can_match_read_as_no_match() -> None:
    assert parse_criteria('upnp:class derivedfrom "object.item.audioItem"') == []
    assert parse_criteria('upnp:artist contains "Bach"') == []
    assert parse_criteria('dc:date > "2000" and dc:date < "1990"') == []
    assert parse_criteria('upnp:artist contains "x" or dc:title contains "y"') == [Match(EVERY_TYPE, title="y")]


def test_an_or_of_different_fields_reads_as_one_match_per_branch() -> None:
    either = parse_criteria('dc:title contains "blade" or upnp:genre = "Drama"')
    assert either == [Match(title="blade"), Match(genre="drama")]
    films = parse_criteria('upnp:class = "object.item.videoItem.movie" and (dc:title contains "a" or dc:date = "1997")')
    movie = frozenset({"Movie"})
    assert films == [Match(movie, title="a"), Match(movie, year_from=1997, year_to=1997)]
    assert parse_criteria('dc:title contains "a" or dc:title contains "A"') == [Match(title="a"), Match(title="A")]


@pytest.mark.parametrize("criteria", [
    "dc:title contains", " or ".join(f'dc:title contains "{n}"' for n in range(9)), 'dc:title doesNotContain "a"',
    'dc:title contains "a" and dc:title contains "b"', "(" * 20 + 'dc:title = "a"' + ")" * 20, "dc:title = a",
    'dc:date >= "yesterday"', '(dc:title = "a"', 'dc:title = "a" dc:title = "b"', "x" * 3000,
])  # fmt: skip
def test_malformed_or_inexpressible_criteria_are_error_708(criteria: str) -> None:
    with pytest.raises(SoapError) as refused:
        parse_criteria(criteria)
    assert refused.value.code == 708
