"""People: one person's record (GET /people/{id}), and the bookkeeping of
filling their details and pictures from a provider.

A person (table ``people``, shared by every library: one id per case-folded
name) gets ``overview``, ``details`` (birthDate, deathDate, birthPlace,
homepage) and a picture from the provider's person record; ``details_state``
says where that stands: ``pending`` (never asked), ``filled``, ``skipped``
(no provider id, or the provider had nothing) or ``failed``.  The picture
is a file of the person image store (``<data_dir>/people``, see
:func:`person_image_root`), named by its content tag; ``image_url`` keeps
the provider's URL so it can be fetched again (personSourceRefetch).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reelhouse.errors import NotFound
from reelhouse.jsonfields import put_present
from reelhouse.media.containment import SYSTEM_DIRS, Confinement

from ._store import Statement, Store

PERSON_IMAGE_DIR = "people"
DETAIL_STATES = ("pending", "filled", "skipped", "failed")
CREDITS_SHOWN = 200  # credits listed in GET /people/{id}; all of them through GET /items?personId=


@dataclass(frozen=True, slots=True)
class PersonRow:
    """What a fill needs of one person."""

    id: str
    name: str
    provider_ids: dict[str, str]
    image_url: str | None
    image_path: str | None
    image_tag: str | None


@dataclass(frozen=True, slots=True)
class PersonImage:
    path: str
    tag: str


def person_image_root(data_dir: str | os.PathLike[str]) -> Path:
    """Where person pictures are kept: ``<data_dir>/people/<tag>.<ext>`` (outside the
    provider image store, whose sweep knows items only)."""
    return Path(data_dir) / PERSON_IMAGE_DIR


def person_confinement(data_dir: str | os.PathLike[str] | None) -> Confinement:
    """Where a person's picture may resolve: the person image store only."""
    if data_dir is None:
        return Confinement(())
    return Confinement((os.path.realpath(person_image_root(data_dir)),), SYSTEM_DIRS)


_PERSON = (
    "SELECT id, name, sort_name, provider_ids, image_tag, overview, details, details_state, details_at"
    " FROM people WHERE id = ?"
)
_CREDITS = (
    "SELECT c.item_id, c.kind, c.role, i.name, i.type, i.library_id, i.production_year FROM credits c"
    " JOIN items i ON i.id = c.item_id WHERE c.person_id = ? AND i.missing = 0"
    " ORDER BY i.production_year DESC, i.sort_name, c.item_id, c.kind LIMIT ?"
)


async def read_person(store: Store, person_id: str, *, items: frozenset[str] | None = None) -> dict[str, Any]:
    """The Person JSON (with its credits on ``items``, None = all); NotFound for an unknown id."""
    rows, credits = await store.fetch_each([(_PERSON, (person_id,)), (_CREDITS, (person_id, CREDITS_SHOWN))])
    if not rows:
        raise NotFound(f"No person {person_id}.", params={"personId": person_id})
    row = rows[0]
    data: dict[str, Any] = {"id": row["id"], "name": row["name"], "sortName": row["sort_name"]}
    put_present(data, (("imageTag", row["image_tag"]), ("overview", row["overview"])))
    data.update(_json(row["details"]))
    data["providerIds"] = _json(row["provider_ids"])
    data["detailsState"] = row["details_state"]
    data["credits"] = [
        put_present({"itemId": c["item_id"], "name": c["name"], "type": c["type"], "kind": c["kind"]},
                    (("role", c["role"] or None), ("productionYear", c["production_year"])))
        for c in credits if items is None or c["item_id"] in items
    ]
    return data


async def person_exists(store: Store, person_id: str) -> bool:
    return await store.fetch_one("SELECT 1 FROM people WHERE id = ?", (person_id,)) is not None


async def person_item_libraries(store: Store, person_id: str, limit: int = CREDITS_SHOWN) -> dict[str, str]:
    """Items crediting the person, with their library (for the visibility check of a member's request)."""
    rows = await store.fetch_all(
        "SELECT DISTINCT c.item_id, i.library_id FROM credits c JOIN items i ON i.id = c.item_id"
        " WHERE c.person_id = ? ORDER BY c.item_id LIMIT ?", (person_id, limit))
    return {row[0]: row[1] for row in rows}


async def find_person_image(store: Store, person_id: str) -> PersonImage:
    """The person's picture; NotFound (unknown person, or none)."""
    row = await store.fetch_one("SELECT image_path, image_tag FROM people WHERE id = ?", (person_id,))
    if row is None:
        raise NotFound("No such person.")
    if not row["image_path"] or not row["image_tag"]:
        raise NotFound("The person has no picture.")
    return PersonImage(row["image_path"], row["image_tag"])


async def people_in_states(store: Store, states: Sequence[str], *, after: str = "", limit: int = 100,
                           missing_image: bool = False) -> list[PersonRow]:
    """People in ``states`` with ids after ``after`` (a page of a fill), who appear in a credit.

    ``missing_image``: only those with a provider picture URL (to fetch again).
    """
    marks = ", ".join("?" for _ in states)
    image = " AND p.image_url IS NOT NULL" if missing_image else ""
    rows = await store.fetch_all(
        "SELECT p.id, p.name, p.provider_ids, p.image_url, p.image_path, p.image_tag FROM people p"
        f" WHERE p.details_state IN ({marks}) AND p.id > ?{image}"
        " AND EXISTS (SELECT 1 FROM credits c WHERE c.person_id = p.id) ORDER BY p.id LIMIT ?",
        (*states, after, limit))
    return [PersonRow(r["id"], r["name"], {str(k).lower(): str(v) for k, v in _json(r["provider_ids"]).items()},
                      r["image_url"], r["image_path"], r["image_tag"]) for r in rows]


async def has_people_to_fill(store: Store) -> bool:
    """Whether a credited person still ``pending`` carries a provider id (personDetailsFill has work)."""
    row = await store.fetch_one(
        "SELECT 1 FROM people p WHERE p.details_state = 'pending' AND p.provider_ids <> '{}'"
        " AND EXISTS (SELECT 1 FROM credits c WHERE c.person_id = p.id) LIMIT 1")
    return row is not None


async def count_people_in_states(store: Store, states: Sequence[str], *, missing_image: bool = False) -> int:
    marks = ", ".join("?" for _ in states)
    image = " AND p.image_url IS NOT NULL" if missing_image else ""
    value = await store.fetch_value(
        f"SELECT COUNT(*) FROM people p WHERE p.details_state IN ({marks}){image}"
        " AND EXISTS (SELECT 1 FROM credits c WHERE c.person_id = p.id)", tuple(states))
    return int(value or 0)


@dataclass(frozen=True, slots=True)
class PersonDetailsWrite:
    person_id: str
    state: str  # filled, skipped, failed
    now_ms: int
    overview: str | None = None
    details: dict[str, str] | None = None
    image_url: str | None = None
    image: PersonImage | None = None
    provider_ids: dict[str, str] | None = None


async def save_person_details(store: Store, write: PersonDetailsWrite) -> None:
    """Record a fill's outcome: what it found is set, what it did not is kept."""
    columns: dict[str, Any] = {"details_state": write.state, "details_at": write.now_ms, "updated_at": write.now_ms}
    if write.overview:
        columns["overview"] = write.overview
    if write.details:
        columns["details"] = _dumps(write.details)
    if write.image_url:
        columns["image_url"] = write.image_url
    if write.image is not None:
        columns.update(image_path=write.image.path, image_tag=write.image.tag)
    if write.provider_ids:
        columns["provider_ids"] = _dumps(write.provider_ids)
    assignments = ", ".join(f"{column} = ?" for column in columns)
    await store.transaction([Statement(f"UPDATE people SET {assignments} WHERE id = ?",
                                       (*columns.values(), write.person_id))])


async def mark_people(store: Store, from_states: Sequence[str], to_state: str) -> int:
    """Move every person in ``from_states`` to ``to_state`` (a recheck asks them again); how many."""
    marks = ", ".join("?" for _ in from_states)
    (result,) = await store.transaction([Statement(
        f"UPDATE people SET details_state = ? WHERE details_state IN ({marks})", (to_state, *from_states))])
    return result.rowcount


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
