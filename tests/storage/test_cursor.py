from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.errors import Invalid
from reelhouse.storage.cursor import (
    FINGERPRINT_KEY,
    MAX_TOKEN_LENGTH,
    SIGNATURE_BYTES,
    CursorCodec,
    fingerprint,
)

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


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _raw(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def _signed_token(body: bytes, version: int = 1, secret: bytes = SECRET) -> str:
    signed = bytes([version]) + body
    signature = hmac.new(secret, signed, hashlib.sha256).digest()[:SIGNATURE_BYTES]
    return _b64(signed + signature)


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
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_encoding_is_deterministic_whatever_the_key_order() -> None:
    reordered = dict(reversed(list(PAYLOAD.items())))
    assert CODEC.encode(PAYLOAD) == CODEC.encode(reordered)


def test_every_single_bit_flip_of_the_raw_token_is_refused() -> None:
    raw = _raw(CODEC.encode(PAYLOAD))
    for position in range(len(raw)):
        for bit in range(8):
            tampered = bytearray(raw)
            tampered[position] ^= 1 << bit
            _assert_invalid(_b64(bytes(tampered)))


def test_every_single_bit_flip_of_the_token_text_is_refused() -> None:
    token = CODEC.encode(PAYLOAD)
    for position in range(len(token)):
        for bit in range(7):
            changed = chr(ord(token[position]) ^ (1 << bit))
            _assert_invalid(token[:position] + changed + token[position + 1 :])


@given(payloads, st.data())
def test_any_truncation_is_refused(payload: dict[str, Any], data: st.DataObject) -> None:
    token = CODEC.encode(payload)
    cut = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    _assert_invalid(token[:cut])


def test_a_token_signed_with_another_secret_is_refused() -> None:
    other = CursorCodec(b"another-secret-of-enough-length")
    _assert_invalid(other.encode(PAYLOAD))


def test_a_correctly_signed_token_of_another_version_is_refused() -> None:
    _assert_invalid(_signed_token(b'{"id":"x"}', version=2))


def test_a_correctly_signed_token_that_is_not_a_json_object_is_refused() -> None:
    for body in [b"[1,2]", b'"id"', b"{not json", b"\xff\xfe", b""]:
        _assert_invalid(_signed_token(body))


def test_a_hand_built_token_with_the_same_layout_decodes() -> None:
    # Guards the helper above: the refusals are about content, not layout.
    assert CODEC.decode(_signed_token(b'{"id":"x"}')) == {"id": "x"}


def test_a_padded_token_is_refused() -> None:
    token = CODEC.encode(PAYLOAD)
    _assert_invalid(token + "=" * (-len(token) % 4 or 4))


def test_a_token_differing_only_in_unused_trailing_bits_is_refused() -> None:
    # 1 + len(body) + 16 bytes not a multiple of 3 leaves unused bits in the last character.
    payload = next(
        {"id": "x" * n} for n in range(3) if len(_raw(CODEC.encode({"id": "x" * n}))) % 3
    )
    token = CODEC.encode(payload)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    twins = [c for c in alphabet if c != token[-1] and _raw(token[:-1] + c) == _raw(token)]
    assert twins
    for twin in twins:
        _assert_invalid(token[:-1] + twin)


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
        CODEC.encode({"v": "x" * MAX_TOKEN_LENGTH})


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
