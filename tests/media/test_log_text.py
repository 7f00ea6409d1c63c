"""Text from outside reaches the log as one line that cannot drive a terminal or forge entries."""

from __future__ import annotations

import pytest

from reelhouse.media.log_text import loggable


@pytest.mark.parametrize(("raw", "escaped"), [
    ("\x1b[2J\x1b]0;pwned\x07", "\\x1b[2J\\x1b]0;pwned\\x07"),  # clear screen, window title, bell
    ("ok\r\nERROR reelhouse: forged", "ok\\r\\nERROR reelhouse: forged"),
    ("tab\there\x00nul\x7fdel", "tab\\there\\x00nul\\x7fdel"),
    ("c1 \x9b31m csi", "c1 \\x9b31m csi"),
    ("user \u202eexe.txt", "user \\u202eexe.txt"),  # right-to-left override
    ("\u2066isolate\u2069 \u200fmark \u061calm", "\\u2066isolate\\u2069 \\u200fmark \\u061calm"),
    ("line\u2028sep\u2029para", "line\\u2028sep\\u2029para"),
    ("bad byte \udcff", "bad byte \\udcff"),
    ("C:\\plugins\\x1b", "C:\\\\plugins\\\\x1b"),  # a backslash is escaped: an escape always means one was made
])
def test_control_separator_and_bidi_characters_are_escaped(raw: str, escaped: str) -> None:
    assert loggable(raw) == escaped


def test_ordinary_text_in_any_script_is_left_as_it_is() -> None:
    text = "scraped 12 items: Amélie, 千と千尋の神隠し, עברית, 👩‍👩‍👧 (zero-width joiner kept)"
    assert loggable(text) == text
