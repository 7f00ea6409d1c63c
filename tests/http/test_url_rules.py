"""The app's URL rules compile their URL builders on first use and still build, match and redirect as werkzeug's."""

from __future__ import annotations

import pytest
from werkzeug.routing import Map, MapAdapter, RequestRedirect

from reelhouse.http.url_rules import LazyBuilderRule


def _adapter() -> MapAdapter:
    rules = [LazyBuilderRule("/items/<item_id>", endpoint="item"), LazyBuilderRule("/folder/", endpoint="folder")]
    return Map(rules).bind("example.test")


def test_a_url_is_built_from_a_rule_whose_builder_was_never_compiled() -> None:
    adapter = _adapter()
    assert adapter.build("item", {"item_id": "a b"}) == "/items/a%20b"
    assert adapter.build("item", {"item_id": "c", "page": "2"}) == "/items/c?page=2"


def test_matching_and_the_missing_slash_redirect_are_werkzeugs() -> None:
    adapter = _adapter()
    assert adapter.match("/items/x") == ("item", {"item_id": "x"})
    with pytest.raises(RequestRedirect) as redirect:
        adapter.match("/folder")
    assert redirect.value.new_url == "http://example.test/folder/"
