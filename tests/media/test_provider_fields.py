"""plan_fields: which provider values an item takes (pure rules)."""

from __future__ import annotations

from typing import Any

from reelhouse.media.provider_fields import StoredItem, dedupe_people, plan_fields
from reelhouse.media.provider_metadata import ProviderItem, ProviderPerson

ANSWER = ProviderItem("1", name="Arrival", overview="Aliens.", runtime_minutes=116, production_year=2016)


def stored(**fields: Any) -> StoredItem:
    base: dict[str, Any] = {
        "id": "m", "type": "Movie", "has_nfo": False, "locked_fields": frozenset(),
        "columns": {"name": "arrival", "overview": None, "runtime_ticks": None, "production_year": None},
        "provider_ids": {}, "extra": {}, "value_kinds": frozenset(), "has_credits": False,
    }  # fmt: skip
    base.update(fields)
    return StoredItem(**base)


def test_locked_field_aliases_lock_their_fields() -> None:
    plan = plan_fields(stored(locked_fields=frozenset({"plot", "year", "title"})), ANSWER, "replaceAll")
    assert set(plan.columns) == {"runtime_ticks"}


def test_the_runtime_is_filled_only_while_unknown_even_with_replace_all() -> None:
    columns = {"name": "x", "overview": None, "runtime_ticks": 42, "production_year": None}
    assert "runtime_ticks" not in plan_fields(stored(columns=columns), ANSWER, "replaceAll").columns
    assert plan_fields(stored(), ANSWER, "missing").columns["runtime_ticks"] == 116 * 60 * 10_000_000


def test_a_value_the_provider_lacks_never_blanks_a_stored_one() -> None:
    columns = {"name": "Mine", "overview": "Kept.", "runtime_ticks": None, "production_year": None}
    plan = plan_fields(stored(columns=columns, extra={"provider": "tmdb"}), ProviderItem("1"), "replaceAll")
    assert "overview" not in plan.columns and "name" not in plan.columns


def test_a_blank_text_counts_as_empty() -> None:
    columns = {"name": "Mine", "overview": "  ", "runtime_ticks": None, "production_year": None}
    assert plan_fields(stored(columns=columns, has_nfo=True), ANSWER, "missing").columns["overview"] == "Aliens."


def test_people_are_the_same_by_a_shared_provider_id_then_by_name() -> None:
    people = dedupe_people([
        ProviderPerson("A. Adams", "Actor", "Louise", 3, {"tmdb": "9"}),
        ProviderPerson("Amy Adams", "Actor", "Louise", 4, {"tmdb": "9"}),
        ProviderPerson("a. adams", "Actor", "Louise", 5),
        ProviderPerson("A. Adams", "Producer", "", None),
    ])  # fmt: skip
    assert [(p.name, p.kind, p.order) for p in people] == [("A. Adams", "Actor", 3), ("A. Adams", "Producer", 3)]


def test_the_runtime_waits_for_a_pending_probe() -> None:
    assert "runtime_ticks" not in plan_fields(stored(probe_pending=True), ANSWER, "missing").columns
