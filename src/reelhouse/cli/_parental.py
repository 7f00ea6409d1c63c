"""`reelhouse user set`'s parental-control flags (reference, UserPolicy.parental).

Each flag sets one ParentalControls field over the member's current rule
(lists given replace the stored list); the store normalises and validates
the result.  ``--clear-parental`` with any of them is a usage error (exit 2),
as ``clearParental`` with ``parental`` is 400 on the API.
"""

from __future__ import annotations

import argparse
from typing import Any

from reelhouse.errors import Invalid
from reelhouse.media.parental import parse_window

_LISTS = (
    ("--block-tag", "block_tag", "blockedTags", "T", "hide items with this tag"),
    ("--block-genre", "block_genre", "blockedGenres", "G", "hide items of this genre"),
    ("--block-item", "block_item", "blockedItems", "ID", "hide this item (highest priority)"),
    ("--allow-item", "allow_item", "allowedItems", "ID", "allow this item (a series: all of it) regardless of rules"),
)


def add_parental_flags(change: argparse.ArgumentParser) -> None:
    group = change.add_argument_group("parental controls")
    group.add_argument("--max-age", type=int, metavar="N", help="highest content age: 0, 7, 12, 16 or 18")
    for flag, dest, _field, metavar, what in _LISTS:
        group.add_argument(flag, dest=dest, action="append", metavar=metavar, help=f"{what} (repeatable)")
    group.add_argument("--daily-limit", type=int, metavar="MINUTES", help="minutes of playback a day; 0 = none")
    group.add_argument(
        "--window", action="append", nargs=2, metavar=("DAYS", "HH:MM-HH:MM"),
        help="when playback is allowed; DAYS 0 (Sunday) to 6 as lists or ranges, e.g. 1-5 or 0,6 (repeatable)",
    )  # fmt: skip
    group.add_argument("--clear-parental", action="store_true", help="remove the member's parental controls")


def parental_fields(args: argparse.Namespace) -> dict[str, Any] | None:
    """The ParentalControls fields the flags set, or None when none was given.

    Raises Invalid for a malformed --window, and for --clear-parental given
    with parental flags (``params.field`` = clearParental).
    """
    fields: dict[str, Any] = {}
    if args.max_age is not None:
        fields["maxAge"] = args.max_age
    for _flag, dest, field, _metavar, _what in _LISTS:
        if getattr(args, dest) is not None:
            fields[field] = list(getattr(args, dest))
    if args.daily_limit is not None:
        fields["dailyLimitMinutes"] = args.daily_limit
    if args.window is not None:
        fields["windows"] = [parse_window(days, span).to_json() for days, span in args.window]
    if fields and args.clear_parental:
        raise Invalid("--clear-parental cannot be given with parental flags.", field="clearParental")
    return fields or None
