"""Waits that come from outside (a plugin, an upstream's ``Retry-After``) as sane seconds.

A plugin's ``retryAfterSeconds`` or an upstream's ``Retry-After`` is input
like any other: ``1e30``, ``99999999999999999999``, a negative number, NaN,
a string or a date must neither overflow what is computed from it (a wall
clock time in milliseconds, a date to format, a database integer) nor pause
anything for ever. :func:`wait_seconds` is the one reading of such a value:
``None`` when it is no duration at all (the caller's default applies), else
a number of seconds within [:data:`MIN_WAIT_SECONDS`, :data:`MAX_WAIT_SECONDS`].
"""

from __future__ import annotations

import email.utils
import math
import time
from datetime import UTC
from typing import Final

MIN_WAIT_SECONDS: Final = 1.0  # "now" or the past: the shortest wait honoured
# A day: a provider whose daily quota is spent is asked again tomorrow, and a
# longer wait is more likely a bug than a plan.
MAX_WAIT_SECONDS: Final = 86400.0


def wait_seconds(value: object, *, now: float | None = None) -> float | None:
    """``value`` (a number, delta-seconds text or an HTTP date) as seconds to wait, clamped.

    ``now`` (epoch seconds, default the wall clock) is what an HTTP date
    is measured from. Infinity clamps to the maximum, a negative or past
    wait to the minimum; NaN, a boolean and text that is neither a number
    nor a date are ``None``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _clamp(value)  # compared as an int: no float overflow on 10**400
    if isinstance(value, float):
        return None if math.isnan(value) else _clamp(value)
    if isinstance(value, str):
        return _text_seconds(value.strip(), now)
    return None


def _text_seconds(text: str, now: float | None) -> float | None:
    try:
        number = float(text)
    except ValueError:
        pass
    else:
        return None if math.isnan(number) else _clamp(number)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": HTTP dates are GMT
        when = when.replace(tzinfo=UTC)
    return _clamp(when.timestamp() - (time.time() if now is None else now))


def _clamp(seconds: float) -> float:
    if seconds >= MAX_WAIT_SECONDS:
        return MAX_WAIT_SECONDS
    if seconds <= MIN_WAIT_SECONDS:
        return MIN_WAIT_SECONDS
    return float(seconds)
