"""The lang chain of GET /plugins/installed."""

from __future__ import annotations

import pytest

from reelhouse.errors import Invalid
from reelhouse.media.plugin_text import accept_language, localized, parse_lang

TEXTS = {"en": "Hello", "fr": "Bonjour", "zh-CN": "你好"}


def test_the_first_language_present_wins_then_its_base_then_english() -> None:
    assert localized(TEXTS, ["de", "fr"]) == "Bonjour"
    assert localized(TEXTS, ["fr-CA"]) == "Bonjour"
    assert localized(TEXTS, ["zh-cn"]) == "你好"
    assert localized(TEXTS, ["de"]) == "Hello"
    assert localized({}, ["de"]) is None


def test_lang_takes_at_most_eight_languages() -> None:
    assert parse_lang("en, fr") == ["en", "fr"]
    assert parse_lang(None) == []
    assert len(parse_lang(",".join(["en"] * 8))) == 8
    with pytest.raises(Invalid) as nine:
        parse_lang(",".join(["en"] * 9))
    assert nine.value.params["field"] == "lang"
    with pytest.raises(Invalid):
        parse_lang("en,,fr")


def test_accept_language_is_ordered_by_quality() -> None:
    assert accept_language("fr;q=0.5, zh-CN, *;q=0.1, de;q=0") == ["zh-CN", "fr"]
    assert accept_language(None) == []
