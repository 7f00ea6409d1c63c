"""Path text: any name's bytes as valid Unicode, losslessly, and UTF-8 names unchanged."""

from __future__ import annotations

import os

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.media.file_names import from_fs, from_fs_bytes, readable, to_bytes, to_fs

# Bytes that stress the escapes: undecodable bytes, backslashes and what may follow them.
TRICKY = st.binary(max_size=24) | st.lists(
    st.sampled_from([b"\\", b"x", b"5c", b"e9", b"ff", b"7f", b"\xe9", b"\xff", b"\x80", b"\xc3\xa9", b"\xed\xb3\xa9", b"a", b"/"]),
    max_size=12,
).map(b"".join)
UNICODE_NAME = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\\\x00"), max_size=24)


@settings(max_examples=2000)
@given(TRICKY)
def test_any_bytes_become_valid_unicode_and_come_back(raw: bytes) -> None:
    text = from_fs_bytes(raw)
    text.encode("utf-8")  # strict: storable in SQLite and PostgreSQL text, and in JSON
    assert orjson.loads(orjson.dumps(text)) == text
    assert to_bytes(text) == raw
    assert os.fsencode(to_fs(text)) == raw
    assert text.count("/") == raw.count(b"/")


@settings(max_examples=500)
@given(TRICKY, TRICKY)
def test_path_text_keeps_prefixes_and_separators(head: bytes, tail: bytes) -> None:
    assert from_fs_bytes(head + b"/" + tail) == from_fs_bytes(head) + "/" + from_fs_bytes(tail)


@settings(max_examples=500)
@given(TRICKY, TRICKY)
def test_different_names_have_different_path_text(one: bytes, other: bytes) -> None:
    assert (from_fs_bytes(one) == from_fs_bytes(other)) == (one == other)


@given(UNICODE_NAME)
def test_a_utf8_name_without_backslashes_is_its_own_path_text(name: str) -> None:
    assert from_fs(name) is name or from_fs(name) == name
    assert to_fs(name) == name and readable(name) == name


@settings(max_examples=500)
@given(TRICKY)
def test_readable_text_is_valid_unicode(raw: bytes) -> None:
    shown = readable(from_fs_bytes(raw))
    shown.encode("utf-8")
    assert shown == raw.decode("utf-8", "replace")


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"Caf\xe9 (2001).mkv", "Caf\\xe9 (2001).mkv"),
        (b"Caf\xc3\xa9", "Café"),
        (b"C:\\x41\\n", "C:\\x41\\n"),  # backslashes that read as no escape stay as they are
        (b"a\\xe9", "a\\x5cxe9"),  # one that would read as an escape is escaped itself
        (b"a\\x5c", "a\\x5cx5c"),
        (b"\\\xff", "\\\\xff"),
    ],
)
def test_examples(raw: bytes, text: str) -> None:
    assert from_fs_bytes(raw) == text and to_bytes(text) == raw


def test_to_fs_accepts_an_os_string_unchanged() -> None:
    name = os.fsdecode(b"Caf\xe9")
    assert to_fs(name) == name and from_fs(name) == "Caf\\xe9"
