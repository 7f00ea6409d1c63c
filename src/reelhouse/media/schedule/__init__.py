"""Schedule rules, pure: parsing and evaluating intervals, daily times, cron and windows.

``_rules`` parses a rule and computes its next due time and window edges;
``_defaults`` holds the core tasks' default rules. The actor that acts on
them is :mod:`reelhouse.actors.schedule`.
"""

from ._defaults import (
    CORE_TASKS,
)
from ._rules import (
    Rule,
    RuleError,
    Window,
    allowed_at,
    next_cron,
    next_due,
    next_window_open,
    parse_rule,
    parse_rules,
    parse_window,
    validate_cron,
    window_close,
)

__all__ = [
    "CORE_TASKS",
    "Rule",
    "RuleError",
    "Window",
    "allowed_at",
    "next_cron",
    "next_due",
    "next_window_open",
    "parse_rule",
    "parse_rules",
    "parse_window",
    "validate_cron",
    "window_close",
]
