from __future__ import annotations

import secrets
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reelhouse.storage.cursor as cursor_module
from reelhouse.errors import Invalid
from reelhouse.storage.cursor import FINGERPRINT_KEY, MAX_TOKEN_LENGTH, CursorCodec, fingerprint

SECRET = b"0123456789abcdef-secret"
CODEC = CursorCodec(SECRET)
PAYLOAD = {
    "v": "Arrival",
    "n": "arrival",
    "id": "it_42",
    "s": "name",
    "o": "asc",
    FINGERPRINT_KEY: "abc",
}

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
payloads = st.dictionaries(
    st.text(max_size=10),
    json_scalars | st.lists(json_scalars, max_size=4),
    max_size=8,
)


def _assert_invalid(token: Any, **kwargs: Any) -> None:
    with pytest.raises(Invalid) as caught:
        CODEC.decode(token, **kwargs)
    assert caught.value.params["field"] == "cursor"
    assert caught.value.code == "field_invalid"


@settings(max_examples=200)
@given(payloads)
def test_any_json_payload_round_trips(payload: dict[str, Any]) -> None:
    assert CODEC.decode(CODEC.encode(payload)) == payload


@given(payloads)
def test_tokens_are_url_safe_without_padding(payload: dict[str, Any]) -> None:
    token = CODEC.encode(payload)
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


def test_encoding_is_deterministic_whatever_the_key_order() -> None:
    reordered = dict(reversed(list(PAYLOAD.items())))
    assert CODEC.encode(PAYLOAD) == CODEC.encode(reordered)


def _refused_or_same(token: str) -> None:
    """A changed token never reads as another payload: refused, or (base64's unused bits) the same one."""
    try:
        decoded = CODEC.decode(token)
    except Invalid as refused:
        assert refused.params["field"] == "cursor"
    else:
        assert decoded == PAYLOAD


def test_every_single_bit_flip_of_the_token_text_never_reads_as_another_payload() -> None:
    token = CODEC.encode(PAYLOAD)
    for position in range(len(token)):
        for bit in range(7):
            _refused_or_same(token[:position] + chr(ord(token[position]) ^ (1 << bit)) + token[position + 1 :])


def test_a_padded_token_never_reads_as_another_payload() -> None:
    token = CODEC.encode(PAYLOAD)
    _refused_or_same(token + "=" * (-len(token) % 4 or 4))


@given(payloads, st.data())
def test_any_truncation_is_refused(payload: dict[str, Any], data: st.DataObject) -> None:
    token = CODEC.encode(payload)
    cut = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    _assert_invalid(token[:cut])


def test_a_token_signed_with_another_secret_is_refused() -> None:
    other = CursorCodec(b"another-secret-of-enough-length")
    _assert_invalid(other.encode(PAYLOAD))


def test_a_token_of_another_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cursor_module, "_SALT", "reelhouse-cursor-v2")
    _assert_invalid(CursorCodec(SECRET).encode(PAYLOAD))


def test_a_correctly_signed_token_that_is_not_a_json_object_is_refused() -> None:
    for body in [[1, 2], "id", 3, None]:
        _assert_invalid(CODEC._serializer.dumps(body))


@pytest.mark.parametrize(
    "token",
    ["", "=", "a", "abc", "!!!!", "a b c", "ab\ncd", "é" * 20, "A" * 22, "A" * (MAX_TOKEN_LENGTH + 1)],
)
def test_malformed_tokens_are_refused(token: str) -> None:
    _assert_invalid(token)


def test_a_non_string_token_is_refused() -> None:
    _assert_invalid(None)
    _assert_invalid(b"abc")


def test_an_oversized_token_is_refused_before_any_work() -> None:
    _assert_invalid(CODEC.encode(PAYLOAD) + "A" * MAX_TOKEN_LENGTH)


def test_encoding_a_payload_too_large_for_a_token_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        CODEC.encode({"v": secrets.token_urlsafe(MAX_TOKEN_LENGTH)})  # beyond what compression saves


def test_encoding_values_json_cannot_carry_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        CODEC.encode({"v": float("nan")})
    with pytest.raises(TypeError):
        CODEC.encode({"v": object()})


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError):
        CursorCodec(b"short")


def test_non_ascii_sort_values_survive() -> None:
    payload = {"v": "千と千尋の神隠し", "n": "Ärger", "id": "x"}
    assert CODEC.decode(CODEC.encode(payload)) == payload


def test_decode_accepts_a_matching_fingerprint_and_refuses_another() -> None:
    params = {"type": ["Movie"], "sort": ["name"]}
    token = CODEC.encode({"id": "x", FINGERPRINT_KEY: fingerprint(params)})
    assert CODEC.decode(token, fingerprint=fingerprint(params))["id"] == "x"
    _assert_invalid(token, fingerprint=fingerprint({"type": ["Series"], "sort": ["name"]}))


def test_decode_with_a_fingerprint_refuses_a_payload_without_one() -> None:
    _assert_invalid(CODEC.encode({"id": "x"}), fingerprint=fingerprint({}))


def test_fingerprint_ignores_paging_parameters() -> None:
    base = {"type": ["Movie"], "sort": ["name"]}
    paged = {**base, "cursor": ["abc"], "limit": ["10"], "includeTotal": ["true"], "offset": ["40"]}
    assert fingerprint(base) == fingerprint(paged)


def test_fingerprint_ignores_parameter_order_value_order_and_repeats() -> None:
    one = {"type": ["Movie", "Series"], "genreId": ["Drama"]}
    two = {"genreId": ["Drama"], "type": ["Series", "Movie", "Movie"]}
    assert fingerprint(one) == fingerprint(two)


def test_fingerprint_treats_a_parameter_without_values_as_absent() -> None:
    assert fingerprint({"type": [], "q": ["x"]}) == fingerprint({"q": ["x"]})


def test_fingerprint_treats_a_plain_string_as_one_value() -> None:
    assert fingerprint({"q": "abc"}) == fingerprint({"q": ["abc"]})


@pytest.mark.parametrize(
    "other",
    [
        {"type": ["Series"]},
        {"type": ["Movie"], "year": ["2001"]},
        {"type": ["movie"]},
        {"type": ["Movie"], "order": ["desc"]},
        {"kind": ["Movie"]},
        {"type": ["Movie,Series"]},
        {},
    ],
)
def test_fingerprint_changes_with_any_filter(other: dict[str, list[str]]) -> None:
    assert fingerprint({"type": ["Movie"]}) != fingerprint(other)


def test_fingerprint_does_not_confuse_names_with_values() -> None:
    assert fingerprint({"a": ["b", "c"]}) != fingerprint({"a": ["b"], "c": []})
    assert fingerprint({"ab": ["c"]}) != fingerprint({"a": ["bc"]})


def test_fingerprint_is_a_fixed_value_across_runs_and_versions() -> None:
    # Changing the normalization silently invalidates every live cursor.
    assert fingerprint({"type": ["Movie"], "sort": ["name"]}) == "axS9Ta-VS1M8-OkNDzplmg"
