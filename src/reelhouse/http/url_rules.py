"""URL rules whose URL builders are compiled when first used, not when the app is built.

werkzeug compiles two Python functions per rule (``url_for``'s builders)
as the rule is added: about 1.3 ms a rule, and the app has some 150 rules
on two surfaces, so building them was 0.19 s of the 0.23 s of CPU a server
start and stop took (measured with cProfile over ten in-process starts).
This server builds no URL from its rules (no ``url_for``; redirects are
written out), so the builders are compiled on first use instead, which
may be never. Matching is unchanged: the regular expressions are compiled
as before.

``Rule._compile_builder`` is werkzeug's own; pyproject.toml pins the
werkzeug range this was tested with, and tests/http/test_url_rules.py
builds a URL through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quart.routing import QuartRule
from werkzeug.routing import Rule


class LazyBuilderRule(QuartRule):
    """Quart's rule (websocket routes, automatic OPTIONS) compiling its URL builders on first use."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        compiled: list[Callable[..., tuple[str, str]]] = []

        def build(rule: Rule, *args: Any, **kwargs: Any) -> tuple[str, str]:
            if not compiled:
                compiled.append(Rule._compile_builder(rule, append_unknown).__get__(rule, None))
            return compiled[0](*args, **kwargs)

        return build
