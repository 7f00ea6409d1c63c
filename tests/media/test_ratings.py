from __future__ import annotations

import pytest

from reelhouse.media.ratings import (
    BARE_LABEL_ORDER,
    RATING_SYSTEMS,
    rating_age,
    rating_level,
)


@pytest.mark.parametrize(
    ("label", "age"),
    [
        # US film
        ("G", 0),
        ("PG", 10),
        ("PG-13", 13),
        ("R", 17),
        ("NC-17", 18),
        # US television
        ("TV-Y", 0),
        ("TV-Y7", 7),
        ("TV-Y7-FV", 7),
        ("TV-G", 0),
        ("TV-PG", 10),
        ("TV-14", 14),
        ("TV-MA", 17),
        # United Kingdom
        ("gb/U", 0),
        ("gb/PG", 8),
        ("gb/12", 12),
        ("gb/12A", 12),
        ("gb/15", 15),
        ("gb/18", 18),
        ("gb/R18", 18),
        ("uk/12A", 12),
        # Germany
        ("FSK 0", 0),
        ("FSK 6", 6),
        ("FSK 12", 12),
        ("FSK-16", 16),
        ("FSK18", 18),
        ("FSK ab 12", 12),
        ("de/12", 12),
        ("de/FSK 16", 16),
        ("DE:6", 6),
        # France
        ("fr/U", 0),
        ("fr/TP", 0),
        ("fr/10", 10),
        ("fr/-12", 12),
        ("fr/16", 16),
        ("fr/18", 18),
        # Australia
        ("au/G", 0),
        ("au/PG", 8),
        ("au/M", 15),
        ("au/MA15+", 15),
        ("au/MA 15+", 15),
        ("au/R18+", 18),
        ("au/X18+", 18),
        # The others
        ("ca/14A", 14),
        ("ca/18A", 18),
        ("ca/PG", 8),
        ("ca/C8", 8),
        ("nl/AL", 0),
        ("nl/9", 9),
        ("es/APTA", 0),
        ("es/+7", 7),
        ("es/X", 18),
        ("it/T", 0),
        ("it/VM14", 14),
        ("it/VM18", 18),
        ("jp/PG12", 12),
        ("jp/R15+", 15),
        ("jp/R18+", 18),
        ("kr/ALL", 0),
        ("kr/15", 15),
        ("br/L", 0),
        ("br/14", 14),
        ("se/Btl", 0),
        ("se/11", 11),
        ("no/A", 0),
        ("no/9", 9),
        ("dk/A", 0),
        ("dk/7", 7),
    ],
)
def test_each_system_maps_its_labels_to_ages(label: str, age: int) -> None:
    assert rating_age(label) == age


@pytest.mark.parametrize(
    "label",
    [
        "PG-13",
        "pg-13",
        "PG13",
        "PG 13",
        "Rated PG-13",
        "rated: PG-13",
        "US:PG-13",
        "us/PG-13",
        "US: PG-13",
        "  us / pg-13  ",
        "us/Rated PG-13",
    ],
)
def test_spellings_of_pg13_all_count_as_13(label: str) -> None:
    assert rating_age(label) == 13


@pytest.mark.parametrize(
    ("label", "age"),
    [
        ("PG", 10),  # the US PG, not the British or Australian one
        ("12A", 12),  # found in the British table
        ("M", 15),  # only Australia has a bare M
        ("VM14", 14),
        ("16", 16),
        ("16+", 16),
        ("MA15+", 15),
    ],
)
def test_bare_labels_resolve_in_the_documented_order(label: str, age: int) -> None:
    assert rating_age(label) == age


def test_a_country_prefix_selects_that_countrys_meaning() -> None:
    assert rating_age("PG") == 10
    assert rating_age("gb/PG") == 8
    assert rating_age("au/PG") == 8
    assert rating_age("R") == 17
    assert rating_age("ca/R") == 18


def test_a_known_country_without_the_label_falls_back_only_to_plain_ages() -> None:
    assert rating_age("us/15") == 15
    assert rating_age("us/M") is None
    assert rating_age("gb/PG-13") is None


def test_an_unknown_country_prefix_is_looked_up_like_a_bare_label() -> None:
    assert rating_age("xx/PG-13") == 13
    assert rating_age("fi/16") == 16


def test_fsk_is_german_even_without_a_prefix_but_not_under_another_country() -> None:
    assert rating_age("FSK 16") == 16
    assert rating_age("gb/FSK 12") is None


@pytest.mark.parametrize(
    "label",
    ["NR", "Unrated", "Not Rated", "not-rated", "us/NR", "", "   ", "FSK", "Rated",
     "banana", "99", "100+", "us:", "/", "PG-1300", "TV-15"],
)
def test_unrated_and_unrecognised_labels_have_no_age(label: str) -> None:
    assert rating_age(label) is None


def test_pg13_is_above_a_limit_of_12() -> None:
    age = rating_age("PG-13")
    assert age is not None and age > 12


def test_levels_order_labels_by_age() -> None:
    labels = ["NC-17", "G", "PG-13", "TV-14", "PG", "R", "TV-Y7"]
    ordered = sorted(labels, key=lambda label: rating_level(label) or -1)
    assert ordered == ["G", "TV-Y7", "PG", "PG-13", "TV-14", "R", "NC-17"]


def test_level_is_none_exactly_when_age_is_none() -> None:
    for label in ["NR", "PG", "de/12", "nonsense"]:
        assert (rating_level(label) is None) == (rating_age(label) is None)


def test_every_table_entry_is_reachable_through_its_country_prefix() -> None:
    for country, table in RATING_SYSTEMS.items():
        for code, age in table.items():
            assert rating_age(f"{country}/{code}") == age, (country, code)


def test_bare_order_covers_every_system() -> None:
    assert set(BARE_LABEL_ORDER) == set(RATING_SYSTEMS)
