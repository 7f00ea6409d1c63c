from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.http import http_date

from reelhouse.http.conditional import Decision, evaluate, parse_http_date

ETAG = '"v1"'
MODIFIED = datetime(2024, 5, 1, 12, 0, 0, 500_000, tzinfo=UTC)  # sub-second on purpose
LENGTH = 1000
AT = "Wed, 01 May 2024 12:00:00 GMT"  # MODIFIED, to the second
BEFORE = "Wed, 01 May 2024 11:59:59 GMT"
AFTER = "Wed, 01 May 2024 12:00:01 GMT"


def decide(method: str = "GET", **headers: str) -> Decision:
    named = {name.replace("_", "-"): value for name, value in headers.items()}
    return evaluate(named, ETAG, MODIFIED, LENGTH, method)


def status(method: str = "GET", **headers: str) -> int:
    return decide(method, **headers).status


# --- preconditions -----------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "method", "expected"),
    [
        ({}, "GET", 200),
        # If-Match: strong comparison
        ({"If-Match": '"v1"'}, "GET", 200),
        ({"If-Match": "*"}, "GET", 200),
        ({"If-Match": '"v0", "v1"'}, "GET", 200),
        ({"If-Match": '"v0"'}, "GET", 412),
        ({"If-Match": 'W/"v1"'}, "GET", 412),
        ({"If-Match": "v1"}, "GET", 412),
        ({"If-Match": ""}, "GET", 412),
        ({"If-Match": '"v0"'}, "PUT", 412),
        # If-Unmodified-Since
        ({"If-Unmodified-Since": AT}, "GET", 200),
        ({"If-Unmodified-Since": AFTER}, "GET", 200),
        ({"If-Unmodified-Since": BEFORE}, "GET", 412),
        ({"If-Unmodified-Since": BEFORE}, "DELETE", 412),
        ({"If-Unmodified-Since": "yesterday"}, "GET", 200),
        # If-Match decides alone when both are present
        ({"If-Match": '"v1"', "If-Unmodified-Since": BEFORE}, "GET", 200),
        ({"If-Match": '"v0"', "If-Unmodified-Since": AFTER}, "GET", 412),
        # If-None-Match: weak comparison
        ({"If-None-Match": '"v1"'}, "GET", 304),
        ({"If-None-Match": 'W/"v1"'}, "GET", 304),
        ({"If-None-Match": "*"}, "GET", 304),
        ({"If-None-Match": '"v0", W/"v1"'}, "HEAD", 304),
        ({"If-None-Match": '"v0"'}, "GET", 200),
        ({"If-None-Match": '"V1"'}, "GET", 200),
        ({"If-None-Match": "garbage"}, "GET", 200),
        ({"If-None-Match": '"v1"'}, "POST", 412),
        ({"If-None-Match": "*"}, "PUT", 412),
        # If-Modified-Since, GET and HEAD only
        ({"If-Modified-Since": AT}, "GET", 304),
        ({"If-Modified-Since": AFTER}, "HEAD", 304),
        ({"If-Modified-Since": BEFORE}, "GET", 200),
        ({"If-Modified-Since": AT}, "POST", 200),
        ({"If-Modified-Since": "not a date"}, "GET", 200),
        ({"If-Modified-Since": "Wed, 01 May 2024 12:00:00 UTC"}, "GET", 200),
        # If-None-Match wins over If-Modified-Since, both ways
        ({"If-None-Match": '"v0"', "If-Modified-Since": AT}, "GET", 200),
        ({"If-None-Match": '"v1"', "If-Modified-Since": BEFORE}, "GET", 304),
        # a failed If-Match is decided before If-None-Match
        ({"If-Match": '"v0"', "If-None-Match": '"v1"'}, "GET", 412),
        ({"If-Unmodified-Since": BEFORE, "If-None-Match": '"v1"'}, "GET", 412),
        ({"If-Match": '"v1"', "If-None-Match": '"v1"'}, "GET", 304),
    ],
)
def test_preconditions_follow_rfc_9110_order(
    headers: dict[str, str], method: str, expected: int
) -> None:
    assert evaluate(headers, ETAG, MODIFIED, LENGTH, method).status == expected


@pytest.mark.parametrize(
    "value",
    ['"a,b", "v1"', '"v0","v1"', ' "v0" ,  "v1" ', 'junk, "v1"', '"v0"junk, "v1"', '"x", , "v1"'],
)
def test_entity_tag_lists_are_split_outside_quotes(value: str) -> None:
    assert status(If_None_Match=value) == 304


@pytest.mark.parametrize("value", ['"v1,"', '"v0, v1"', '"v0" "v1"', 'W/ "v1"', "W/v1", '"v1'])
def test_malformed_list_members_never_match(value: str) -> None:
    assert status(If_None_Match=value) == 200


def test_a_long_list_is_searched_to_its_last_member() -> None:
    members = ", ".join(f'"t{number}"' for number in range(2000))
    assert status(If_None_Match=members + ', "v1"') == 304
    assert status(If_None_Match=members + " " * 5000 + "x") == 200


def test_header_names_are_case_insensitive() -> None:
    headers = {"if-none-match": '"v1"'}
    assert evaluate(headers, ETAG, MODIFIED, LENGTH).status == 304
    assert evaluate({"RANGE": "bytes=0-0"}, ETAG, MODIFIED, LENGTH).status == 206


def test_method_names_are_case_insensitive() -> None:
    assert status("head", If_None_Match='"v1"') == 304
    assert status("get", Range="bytes=0-9") == 206


def test_dates_compare_at_whole_seconds() -> None:
    # MODIFIED has .5 s; the header it produced must still count as "not modified".
    assert status(If_Modified_Since=http_date(MODIFIED)) == 304
    assert status(If_Unmodified_Since=http_date(MODIFIED)) == 200


def test_naive_and_offset_last_modified_are_treated_as_the_same_instant() -> None:
    naive = MODIFIED.replace(tzinfo=None)
    shifted = MODIFIED.astimezone(timezone(timedelta(hours=2)))
    for value in (naive, shifted):
        assert evaluate({"If-Modified-Since": AT}, ETAG, value, LENGTH).status == 304


def test_unknown_last_modified_ignores_date_conditions() -> None:
    for headers in ({"If-Modified-Since": AT}, {"If-Unmodified-Since": BEFORE}):
        assert evaluate(headers, ETAG, None, LENGTH).status == 200
    ranged = {"Range": "bytes=0-9", "If-Range": AT}
    assert evaluate(ranged, ETAG, None, LENGTH).status == 200


# --- ranges -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "start", "end"),
    [
        ("bytes=0-499", 0, 499),
        ("bytes=500-999", 500, 999),
        ("bytes=0-0", 0, 0),
        ("bytes=999-999", 999, 999),
        ("bytes=500-", 500, 999),
        ("bytes=0-", 0, 999),
        ("bytes=900-5000", 900, 999),
        ("bytes=-100", 900, 999),
        ("bytes=-1", 999, 999),
        ("bytes=-1000", 0, 999),
        ("bytes=-5000", 0, 999),
        ("BYTES=10-19", 10, 19),
        ("bytes = 10 - 19", 10, 19),
        ("bytes=0-99999999999999999999999", 0, 999),
    ],
)
def test_a_single_satisfiable_range_is_partial_content(value: str, start: int, end: int) -> None:
    decision = decide(Range=value)
    assert decision == Decision(206, start, end, f"bytes {start}-{end}/{LENGTH}")
    assert decision.length == end - start + 1


@pytest.mark.parametrize(
    "value", ["bytes=1000-", "bytes=1000-1000", "bytes=5000-6000", "bytes=-0", "bytes=" + "9" * 5000 + "-"]
)
def test_an_unsatisfiable_range_is_416_with_the_length(value: str) -> None:
    decision = decide(Range=value)
    assert decision == Decision(416, content_range=f"bytes */{LENGTH}")
    assert decision.length is None


@pytest.mark.parametrize(
    "value",
    [
        "bytes=0-1,5-6",  # several ranges: served whole
        "bytes=0-1, -5",
        "bytes=500-100",  # last before first: invalid, ignored
        "bytes=-",
        "bytes=",
        "bytes",
        "items=0-5",
        "bytes=a-b",
        "bytes=1.5-2",
        "bytes=-5-",
        "0-5",
        "",
    ],
)
def test_multiple_or_malformed_ranges_serve_the_whole_representation(value: str) -> None:
    assert decide(Range=value) == Decision(200)


@given(
    length=st.integers(min_value=1, max_value=10_000),
    first=st.none() | st.integers(min_value=0, max_value=20_000),
    last=st.none() | st.integers(min_value=0, max_value=20_000),
)
def test_a_partial_answer_always_lies_inside_the_representation(
    length: int, first: int | None, last: int | None
) -> None:
    spec = f"bytes={'' if first is None else first}-{'' if last is None else last}"
    decision = evaluate({"Range": spec}, ETAG, MODIFIED, length)
    if decision.status == 206:
        assert decision.start is not None and decision.end is not None
        assert 0 <= decision.start <= decision.end < length
        assert decision.content_range == f"bytes {decision.start}-{decision.end}/{length}"
    else:
        assert decision.status in (200, 416)


def test_ranges_are_for_get_only() -> None:
    for method in ("HEAD", "POST", "PUT"):
        assert decide(method, Range="bytes=0-9") == Decision(200)


def test_an_empty_representation_ignores_ranges() -> None:
    for value in ("bytes=0-", "bytes=-5", "bytes=0-0"):
        assert evaluate({"Range": value}, ETAG, MODIFIED, 0) == Decision(200)


@pytest.mark.parametrize(
    ("if_range", "expected"),
    [
        ('"v1"', 206),
        (AT, 206),
        ('"v0"', 200),
        ('W/"v1"', 200),  # If-Range needs a strong comparison
        (BEFORE, 200),
        (AFTER, 200),  # the date must be exact, not merely later
        ("not a validator", 200),
        ("v1", 200),
        ("", 200),
    ],
)
def test_if_range_honours_the_range_only_for_the_current_representation(
    if_range: str, expected: int
) -> None:
    assert status(Range="bytes=0-9", If_Range=if_range) == expected


def test_if_range_without_range_is_a_plain_200() -> None:
    assert decide(If_Range='"v1"') == Decision(200)


def test_if_range_that_fails_serves_200_even_for_an_unsatisfiable_range() -> None:
    assert status(Range="bytes=5000-", If_Range='"v0"') == 200


def test_preconditions_are_decided_before_ranges() -> None:
    assert status(Range="bytes=0-9", If_None_Match='"v1"') == 304
    assert status(Range="bytes=5000-", If_Match='"v0"') == 412
    assert status(Range="bytes=0-9", If_None_Match='"v0"') == 206


@pytest.mark.parametrize("etag", ["v1", 'W/"v1"', '"v1', ""])
def test_a_representation_without_a_strong_etag_is_a_caller_error(etag: str) -> None:
    with pytest.raises(ValueError):
        evaluate({}, etag, MODIFIED, LENGTH)


def test_a_negative_length_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        evaluate({}, ETAG, MODIFIED, -1)


# --- dates --------------------------------------------------------------------


def test_http_date_formats_imf_fixdate_in_gmt() -> None:
    assert http_date(datetime(1994, 11, 6, 8, 49, 37, tzinfo=UTC)) == "Sun, 06 Nov 1994 08:49:37 GMT"
    assert http_date(datetime(2024, 1, 2, 3, 4, 5, 999_999)) == "Tue, 02 Jan 2024 03:04:05 GMT"
    plus_two = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    assert http_date(plus_two) == "Tue, 02 Jan 2024 01:04:05 GMT"


@pytest.mark.parametrize(
    "text",
    [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "sun, 06 nov 1994 08:49:37 gmt",
        "  Sun, 06 Nov 1994 08:49:37 GMT ",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Sun Nov 06 08:49:37 1994",
    ],
)
def test_all_three_http_date_formats_parse(text: str) -> None:
    assert parse_http_date(text) == datetime(1994, 11, 6, 8, 49, 37, tzinfo=UTC)


def test_rfc850_years_more_than_50_years_ahead_belong_to_the_past_century() -> None:
    this_year = datetime.now(UTC).year
    near = (this_year + 10) % 100
    parsed = parse_http_date(f"Monday, 01-Jan-{near:02d} 00:00:00 GMT")
    assert parsed is not None and parsed.year == this_year + 10
    far = (this_year + 60) % 100
    parsed = parse_http_date(f"Monday, 01-Jan-{far:02d} 00:00:00 GMT")
    assert parsed is not None and parsed.year == this_year + 60 - 100


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "2024-05-01T12:00:00Z",
        "Wed, 01 May 2024 12:00:00 UTC",
        "Wed, 01 May 2024 12:00:00 +0000",
        "Wed, 1 May 2024 12:00:00 GMT",
        "Wed, 31 Feb 2024 12:00:00 GMT",
        "Wed, 01 Foo 2024 12:00:00 GMT",
        "Wed, 01 May 2024 25:00:00 GMT",
        "Xyz, 01 May 2024 12:00:00 GMT",
        "Wed, 01 May 2024 12:00 GMT",
    ],
)
def test_invalid_dates_parse_to_none(text: str) -> None:
    assert parse_http_date(text) is None


def test_http_date_round_trips_to_the_second() -> None:
    value = datetime(2031, 7, 15, 23, 59, 58, 123_456, tzinfo=UTC)
    assert parse_http_date(http_date(value)) == value.replace(microsecond=0)
