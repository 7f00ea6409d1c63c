"""ContentDirectory SortCriteria read into the catalogue's one order, or refused with 709."""

from __future__ import annotations

import pytest

from reelhouse.media.dlna.soap import SoapError
from reelhouse.media.dlna.sort import SORT_CAPABILITIES, Order, parse_sort


def test_the_first_property_the_catalogue_orders_by_chooses_the_order() -> None:
    assert parse_sort("") is None and parse_sort("  ") is None
    assert parse_sort("+dc:title") == Order("name")
    assert parse_sort("-dc:date,+dc:title") == Order("year", descending=True)
    assert parse_sort("+upnp:class,-upnp:episodeNumber") == Order("index", descending=True)
    assert parse_sort("dc:title") == Order("name")  # no sign: ascending
    assert parse_sort("+res@size") == Order("size")
    assert parse_sort("+upnp:artist,+upnp:album") is None  # nothing here orders by these: each list's own order


def test_every_advertised_capability_is_an_order() -> None:
    for name in SORT_CAPABILITIES.split(","):
        assert parse_sort(f"-{name}") is not None, name


@pytest.mark.parametrize("criteria", ["+dc:title,,", "+", "+dc:title;x", "+dc:title,+ dc:date", "-" * 2000])
def test_malformed_criteria_are_error_709(criteria: str) -> None:
    with pytest.raises(SoapError) as refused:
        parse_sort(criteria)
    assert refused.value.code == 709
