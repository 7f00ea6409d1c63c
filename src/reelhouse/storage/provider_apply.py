"""Reading the items a provider match applies to, and writing one item's changes.

:func:`load_targets` reads an item (or a series' seasons and episodes) with
what :func:`reelhouse.media.provider_fields.plan_fields` needs and the
item's images; :func:`apply_statements` turns one item's plan into the
statements of its single transaction.  The item row is updated column by
column (only what changed, plus the scrape bookkeeping), guarded by
``lock_data = 0`` so an item locked meanwhile is left alone; the scanner
keeps provider values on rescans (it rewrites metadata columns only from
an NFO) and deletes only ``source = 'local'`` image rows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reelhouse.media.assembly import ImageRecord, person_id
from reelhouse.media.provider_fields import COLUMNS, CreditPlan, FieldPlan, StoredItem

from ._name_key import name_key
from ._scrape_record import IDENTIFIED_KEY
from ._store import Row, Statement, Store
from .stored_images import PROVIDER_SOURCE

_ITEM_COLUMNS = (
    "id, library_id, type, path, dir_path, has_nfo, lock_data, locked_fields, provider_ids, extra,"
    " index_number, parent_index_number, runtime_ticks, probe_pending, " + ", ".join(COLUMNS.values())
)
_BY_ID = "id = ?"
_CHILDREN = "series_id = ? AND type IN ('Season', 'Episode') AND missing = 0"


@dataclass(frozen=True, slots=True)
class StoredImageSlot:
    source: str  # local (also NULL: rows older than the source column), provider...
    path: str


@dataclass(frozen=True, slots=True)
class ApplyTarget:
    """One catalogue item a match applies to."""

    stored: StoredItem
    library_id: str
    lock_data: bool
    path: str | None
    dir_path: str | None
    index_number: int | None
    parent_index_number: int | None
    images: Mapping[tuple[str, int], StoredImageSlot] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScrapeMark:
    """The bookkeeping every applied item gets (MetadataState)."""

    provider: str
    provider_item_id: str
    scrape_state: str
    now_ms: int


async def load_targets(store: Store, item_id: str, *, children: bool = False) -> list[ApplyTarget]:
    """The item ``item_id`` (``children``: instead the live seasons and episodes of that series)."""
    where = _CHILDREN if children else _BY_ID
    owned = f"item_id IN (SELECT id FROM items WHERE {where})"
    items, kinds, credited, images = await store.fetch_each([
        (f"SELECT {_ITEM_COLUMNS} FROM items WHERE {where}", (item_id,)),
        (f"SELECT DISTINCT item_id, kind FROM item_values WHERE {owned}", (item_id,)),
        (f"SELECT DISTINCT item_id FROM credits WHERE {owned}", (item_id,)),
        (f"SELECT item_id, kind, idx, source, path FROM images WHERE {owned}", (item_id,)),
    ])  # fmt: skip
    value_kinds: dict[str, set[str]] = {}
    for row in kinds:
        value_kinds.setdefault(row["item_id"], set()).add(row["kind"])
    with_credits = {row["item_id"] for row in credited}
    slots: dict[str, dict[tuple[str, int], StoredImageSlot]] = {}
    for row in images:
        slot = StoredImageSlot(row["source"] or "local", row["path"])
        slots.setdefault(row["item_id"], {})[(row["kind"], int(row["idx"]))] = slot
    return [
        _target(row, frozenset(value_kinds.get(row["id"], ())), row["id"] in with_credits, slots.get(row["id"], {}))
        for row in items
    ]


def _target(
    row: Row, kinds: frozenset[str], has_credits: bool, images: dict[tuple[str, int], StoredImageSlot]
) -> ApplyTarget:
    locked = _json(row["locked_fields"], list)
    stored = StoredItem(
        id=row["id"],
        type=row["type"],
        has_nfo=bool(row["has_nfo"]),
        locked_fields=frozenset(str(name).lower() for name in locked if isinstance(name, str)),
        columns={column: row[column] for column in (*COLUMNS.values(), "runtime_ticks")},
        provider_ids={str(k).lower(): str(v) for k, v in _json(row["provider_ids"], dict).items() if v},
        extra=_json(row["extra"], dict),
        value_kinds=kinds,
        has_credits=has_credits,
        probe_pending=bool(row["probe_pending"]),
    )
    return ApplyTarget(
        stored, row["library_id"], bool(row["lock_data"]), row["path"], row["dir_path"],
        row["index_number"], row["parent_index_number"], images,
    )  # fmt: skip


def apply_statements(
    target: ApplyTarget,
    plan: FieldPlan,
    mark: ScrapeMark,
    *,
    images: Sequence[ImageRecord] = (),
    dropped_images: Sequence[tuple[str, int]] = (),
) -> list[Statement]:
    """The statements of one item's transaction: the item row first (guarded by ``lock_data = 0``)."""
    item = target.stored.id
    statements = [_item_update(target, plan, mark)]
    for kind, values in plan.values.items():
        statements.append(Statement("DELETE FROM item_values WHERE item_id = ? AND kind = ?", (item, kind)))
        rows = [(item, kind, value, n) for n, value in enumerate(values)]
        statements.append(Statement(_VALUE_INSERT, many=rows))
    if plan.credits is not None:
        people: dict[str, CreditPlan] = {}
        for c in plan.credits:  # the first credit of a person that names a picture gives it
            pid = person_id(c.name)
            if pid not in people or (people[pid].image_url is None and c.image_url is not None):
                people[pid] = c
        statements.append(Statement(_PERSON_UPSERT, many=[
            (pid, c.name, c.name, _dumps(dict(sorted(c.provider_ids.items()))), c.image_url, mark.now_ms, mark.now_ms)
            for pid, c in people.items()
        ]))  # fmt: skip
        statements.append(Statement("DELETE FROM credits WHERE item_id = ?", (item,)))
        credits = {(person_id(c.name), c.kind, c.role): c.order for c in plan.credits}
        statements.append(Statement(_CREDIT_INSERT, many=[(item, *key, order) for key, order in credits.items()]))
    if dropped_images:
        statements.append(Statement(_IMAGE_DROP, many=[(item, kind, index) for kind, index in dropped_images]))
    if images:
        statements.append(Statement(_IMAGE_UPSERT, many=[
            (item, i.kind, i.index, i.path, i.tag, i.width, i.height, i.size, i.mtime_ms) for i in images
        ]))  # fmt: skip
    return [s for s in statements if s.many is None or s.many]


def _item_update(target: ApplyTarget, plan: FieldPlan, mark: ScrapeMark) -> Statement:
    columns: dict[str, Any] = dict(plan.columns)
    if "sort_name" in columns:
        columns["name_key"] = name_key(columns["sort_name"])
    if plan.provider_ids is not None:
        columns["provider_ids"] = _dumps(plan.provider_ids)
    extra = dict(target.stored.extra)
    if plan.ratings is not None:
        extra["ratings"] = list(plan.ratings)
    extra.pop("scrapeError", None)
    extra.update(provider=mark.provider, providerItemId=mark.provider_item_id, scrapedAt=mark.now_ms)
    if mark.scrape_state == "identified":
        extra[IDENTIFIED_KEY] = True
    else:
        extra.pop(IDENTIFIED_KEY, None)
    columns.update(extra=_dumps(extra), scrape_state=mark.scrape_state, scrape_refresh=None,
                   date_modified=mark.now_ms)
    assignments = ", ".join(f"{column} = ?" for column in columns)
    return Statement(
        f"UPDATE items SET {assignments} WHERE id = ? AND lock_data = 0", (*columns.values(), target.stored.id)
    )


_VALUE_INSERT = "INSERT INTO item_values (item_id, kind, value, position) VALUES (?, ?, ?, ?)"
# A person already known keeps their ids once they have some, and the first picture URL named.
_PERSON_UPSERT = (
    "INSERT INTO people (id, name, sort_name, provider_ids, image_url, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET"
    " provider_ids = CASE WHEN people.provider_ids = '{}' THEN excluded.provider_ids ELSE people.provider_ids END,"
    " image_url = COALESCE(people.image_url, excluded.image_url), updated_at = excluded.updated_at"
    " WHERE (people.provider_ids = '{}' AND excluded.provider_ids <> '{}')"
    " OR (people.image_url IS NULL AND excluded.image_url IS NOT NULL)"
)
_CREDIT_INSERT = "INSERT INTO credits (item_id, person_id, kind, role, sort_order) VALUES (?, ?, ?, ?, ?)"
_IMAGE_DROP = f"DELETE FROM images WHERE item_id = ? AND kind = ? AND idx = ? AND source = '{PROVIDER_SOURCE}'"
# A local image that appeared meanwhile (a scan) keeps its slot.
_IMAGE_UPSERT = (
    "INSERT INTO images (item_id, kind, idx, path, tag, width, height, size, mtime, source)"
    f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '{PROVIDER_SOURCE}')"
    " ON CONFLICT (item_id, kind, idx) DO UPDATE SET path = excluded.path, tag = excluded.tag,"
    " width = excluded.width, height = excluded.height, size = excluded.size, mtime = excluded.mtime,"
    f" extra = '{{}}' WHERE images.source = '{PROVIDER_SOURCE}'"
)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _json(text: str | None, kind: type) -> Any:
    try:
        value = json.loads(text) if text else kind()
    except ValueError:
        return kind()
    return value if isinstance(value, kind) else kind()
