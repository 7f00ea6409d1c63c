"""RFC 3339 rendering of stored millisecond times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from reelhouse.timefmt import rfc3339, rfc3339_ms

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# From year 1000: strftime writes earlier years with fewer than four digits.
@given(st.integers(min_value=-30_610_224_000_000, max_value=253_402_300_799_999))
def test_milliseconds_render_like_the_datetime_they_stand_for(epoch_ms: int) -> None:
    assert rfc3339_ms(epoch_ms) == rfc3339(EPOCH + timedelta(milliseconds=epoch_ms))


def test_known_instants() -> None:
    assert rfc3339_ms(0) == "1970-01-01T00:00:00.000Z"
    assert rfc3339_ms(1_700_000_000_123) == "2023-11-14T22:13:20.123Z"
    assert rfc3339_ms(-1) == "1969-12-31T23:59:59.999Z"
    assert rfc3339_ms(-30_610_224_000_001) == "0999-12-31T23:59:59.999Z"  # always four year digits
