"""One import from another server: read (``_peer_source``), match and plan (``media/peer_import``), write.

:func:`run_import` reads every member of the peer whose name is one of
our members' (case-insensitive; ``only`` narrows it to those names), each
one's movies, series and episodes, matches them to ours and plans what
would change. A dry run stops there; ``apply`` writes the plan through
the guarded statements of ``storage/peer_import.py``. Either way the run
is the job ``peerImport:{startedAtMs}`` in the stored jobs (so ``GET
/jobs`` of a serving process lists it): ``importingItem`` {name} while it
reads, then ``succeeded`` (or ``failed``) with the counts in its message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from reelhouse.media.peer_import import ItemMatcher, OurItem, OurWatch, PeerItem, WatchChange, plan_ids, plan_watch
from reelhouse.storage import Store, now_ms
from reelhouse.storage.jobs import save_job
from reelhouse.storage.peer_import import (
    import_provider_ids,
    import_watch_state,
    our_items,
    our_members,
    our_watch,
)
from reelhouse.timefmt import rfc3339_ms

from ._peer_source import PeerSource, public_address

PROGRESS_EVERY_SECONDS = 5.0
_UNTOUCHED = OurWatch()


@dataclass
class MemberPlan:
    their_name: str
    member_id: str | None  # ours; None: no member of that name here
    changes: list[WatchChange] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # our item id -> name, for the report
    seen: int = 0
    unmatched: int = 0
    written: int = 0


@dataclass
class ImportPlan:
    address: str
    dry_run: bool
    members: list[MemberPlan] = field(default_factory=list)
    provider_ids: dict[str, tuple[OurItem, dict[str, str]]] = field(default_factory=dict)
    ids_written: int = 0

    def counts(self) -> dict[str, int]:
        changes = [c for m in self.members for c in m.changes]
        return {
            "played": sum(1 for c in changes if c.take_watch and c.played),
            "positions": sum(1 for c in changes if c.take_watch and not c.played),
            "favorites": sum(1 for c in changes if c.add_favorite),
            "providerIds": len(self.provider_ids),
            "unmatched": sum(m.unmatched for m in self.members),
            "seen": sum(m.seen for m in self.members),
        }


class ImportJob:
    """The job's row, written at the start, while reading (now and then) and at the end."""

    def __init__(self, store: Store, address: str, dry_run: bool) -> None:
        self._store = store
        self.started_ms = now_ms()
        self._told_at = trio.current_time()
        title = "Import from another server" + (" (dry run)" if dry_run else "")
        self.body: dict[str, Any] = {"id": f"peerImport:{self.started_ms}", "title": title, "cancellable": False,
                                     "state": "running", "kind": "peerImport", "subject": address,
                                     "trigger": "manual", "startedAt": rfc3339_ms(self.started_ms), "processed": 0}

    async def save(self, *, finished: bool = False) -> None:
        await save_job(self._store, self.body, started_at_ms=self.started_ms,
                       finished_at_ms=now_ms() if finished else None)

    async def importing(self, name: str, processed: int) -> None:
        if trio.current_time() - self._told_at < PROGRESS_EVERY_SECONDS:
            return
        self._told_at = trio.current_time()
        self.body.update(processed=processed, messageCode="importingItem", messageParams={"name": name},
                         message=f"Importing {name}.")
        await self.save()

    async def finish(self, state: str, message: str, **fields: Any) -> None:
        for live_only in ("messageCode", "messageParams"):
            self.body.pop(live_only, None)
        finished = now_ms()
        self.body.update(state=state, message=message, finishedAt=rfc3339_ms(finished), **fields)
        await self.save(finished=True)


async def run_import(store: Store, source: PeerSource, *, address: str, apply: bool, only: Sequence[str] = (),
                     job: ImportJob | None = None) -> ImportPlan:
    """Plan the import (and write it when ``apply``); raises SourceError when the peer cannot be read."""
    plan = ImportPlan(public_address(address), not apply)
    await source.check()
    matcher = ItemMatcher(await our_items(store))
    ours = await our_members(store)
    wanted = {name.casefold() for name in only}
    for user in await source.users():
        if wanted and user.name.casefold() not in wanted:
            continue
        member = MemberPlan(user.name, ours.get(user.name.casefold()))
        plan.members.append(member)
        if member.member_id is None:
            continue
        await _plan_member(store, source, user.id, member, matcher, plan, job)
    if apply:
        await _write(store, plan)
    return plan


async def _plan_member(store: Store, source: PeerSource, user_id: str, member: MemberPlan, matcher: ItemMatcher,
                       plan: ImportPlan, job: ImportJob | None) -> None:
    matched: list[tuple[OurItem, PeerItem]] = []
    async for theirs in source.items(user_id):
        member.seen += 1
        if job is not None:
            await job.importing(theirs.name, sum(m.seen for m in plan.members))
        item = matcher.match(theirs)
        if item is None:
            member.unmatched += 1
            continue
        matched.append((item, theirs))
        new_ids = plan_ids(item, theirs)
        if new_ids and item.id not in plan.provider_ids:
            plan.provider_ids[item.id] = (item, new_ids)
    assert member.member_id is not None
    states = await our_watch(store, member.member_id, [item.id for item, _ in matched])
    for item, theirs in matched:
        if theirs.user_data is None:
            continue
        change = plan_watch(item, states.get(item.id, _UNTOUCHED), theirs.user_data)
        if change is not None:
            member.changes.append(change)
            member.names[item.id] = item.name


async def _write(store: Store, plan: ImportPlan) -> None:
    for member in plan.members:
        if member.member_id is not None and member.changes:
            member.written = await import_watch_state(store, member.member_id, member.changes)
    for item, new_ids in plan.provider_ids.values():
        plan.ids_written += int(await import_provider_ids(store, item, new_ids))


def describe(plan: ImportPlan, out: Callable[[str], None]) -> None:
    """The plan, one line per change, then one line per member and a total."""
    verb = "would" if plan.dry_run else "did"
    for member in plan.members:
        for change in member.changes:
            name = member.names.get(change.item_id, change.item_id)
            if change.take_watch:
                what = "mark played" if change.played else f"resume at {change.position_ms // 1000} s"
                out(f"{verb} {what}\t{member.their_name}\t{name}")
            if change.add_favorite:
                out(f"{verb} add favourite\t{member.their_name}\t{name}")
    for item, new_ids in plan.provider_ids.values():
        ids = ", ".join(f"{k}={v}" for k, v in sorted(new_ids.items()))
        out(f"{verb} add provider ids\t{item.name}\t{ids}")
    for member in plan.members:
        if member.member_id is None:
            out(f"member {member.their_name}: no member of that name here; skipped")
        else:
            out(f"member {member.their_name}: {member.seen} items read, {len(member.changes)} to change,"
                f" {member.unmatched} not matched")
    counts = plan.counts()
    out(f"{'dry run' if plan.dry_run else 'imported'}: {counts['played']} played, {counts['positions']} positions,"
        f" {counts['favorites']} favourites, {counts['providerIds']} provider ids, {counts['unmatched']} unmatched")

