"""LibraryRegistry: creates libraries and runs one LibraryActor for each.

Creation is serialised here, so two requests can never both claim
overlapping roots. Roots are compared by their real paths (a symbolic link
to another library's root overlaps it); a root that is, or is under,
``/proc``, ``/sys``, ``/dev`` (or holds one: ``/``) or the server's data
directory is refused with ``library_path_not_allowed`` (a root holding the
data directory is accepted: the walk and the image endpoint never enter
it; see :mod:`reelhouse.media.containment`). Everything is validated
before anything is written; the write is one transaction, and if the new
LibraryActor cannot start, or the asker gives up (its deadline passes),
the library is removed again.

Validating touches the disk (a root is walked for ``.strm`` files, up to
:data:`~.library_roots.STRM_LOOKUP_LIMIT` entries): that runs in a task of the registry's
nursery and a worker thread, off the mailbox turn, so requests for other
libraries do not wait behind a slow disk. The result comes back as a
message (:class:`_Checked`), and only the overlap check and the write run
in the turn, one creation at a time.

Deleting a library (:class:`DeleteLibrary`) stops its actor (a running
scan is cancelled and publishes ``scan.cancelled``), deletes its rows (items, scans and the rest go
with it, ``ON DELETE CASCADE``) and publishes ``library.deleted`` on the
bus, which the Scheduler follows to run ``database_maintenance`` once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from reelhouse import errors
from reelhouse.errors import DomainError
from reelhouse.media.library_options import apply_update, parse_collection_type
from reelhouse.runtime import (
    ActorCrashed,
    ActorError,
    ActorRef,
    ActorStopped,
    Ask,
    AskTimeout,
    ChildSpec,
    NestedAskFailed,
    PendingReply,
    Supervisor,
    nested_ask_failed,
)
from reelhouse.shutdown import bounded_shield
from reelhouse.storage import Store, StoreError
from reelhouse.storage.cluster_fence import fenced
from reelhouse.storage.cluster_leases import Lease
from reelhouse.storage.jobs import fail_unfinished_jobs
from reelhouse.storage.libraries import (
    LibraryRecord,
    all_library_paths,
    create_library,
    delete_library,
    existing_user_ids,
    get_library,
    list_libraries,
    new_library_id,
    update_library_roots,
)
from reelhouse.storage.scans import fail_running_scans

from .cluster import Leadership, LeaseLost, LeaseWon, RemoteRef, keep_leading, library_target, offer_to_lead
from .cluster.inbox import library_targets, serve_commands
from .library import LibraryActor, LibraryServices, StartScan
from .library_change import ChangeLibrary, CheckedChange, check_change
from .library_roots import check_no_overlap, others_paths, real_paths, roots_have_strm, valid_name, valid_paths
from .library_settings import check_roots_writable, entitled
from .plugins.infos import installed_plugin_infos

log = logging.getLogger(__name__)

# How long removing a library whose creation was given up may take (never
# past the shutdown deadline).
REMOVE_TIMEOUT_SECONDS = 5.0
LIBRARY_DELETED = "library.deleted"  # the bus event of a deleted library: {"libraryId": ...}
DATABASE_RETRY_AFTER_SECONDS = 5  # a creation the database did not complete: try again shortly


@dataclass(frozen=True, slots=True)
class CreateLibrary(Ask["LibraryRecord"]):
    """Ask: create a library; replies with its LibraryRecord."""

    name: Any
    paths: Any
    collection_type: Any
    options: Mapping[str, Any] | None
    realtime_monitor: bool | None
    access_user_ids: Sequence[str]


@dataclass(frozen=True, slots=True)
class _NewLibrary:
    """A CreateLibrary request whose checks passed (everything but the overlap with other libraries)."""

    name: str
    collection_type: str
    paths: tuple[str, ...]
    options: Any
    access_user_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Checked:
    """Tell (registry to itself): the off-turn checks of a creation are done."""

    library: _NewLibrary
    reply: PendingReply


@dataclass(frozen=True, slots=True)
class GetLibraryRef(Ask[ActorRef]):
    """Ask: the ActorRef of a library's actor; NotFound for an unknown id."""

    library_id: str


@dataclass(frozen=True, slots=True)
class DeleteLibrary(Ask["LibraryRecord"]):
    """Ask: delete a library and everything of it; replies its LibraryRecord; NotFound."""

    library_id: str


@dataclass(frozen=True, slots=True)
class ListLibraryRefs(Ask["dict[str, ActorRef]"]):
    """Ask: {library id: ActorRef} for every library."""


class LibraryRegistry(Supervisor):
    """With a cluster (PostgreSQL), it runs the actors of the libraries this node leads
    (:mod:`reelhouse.actors.cluster`) and answers the others' refs with RemoteRefs."""

    def __init__(self, services: LibraryServices) -> None:
        super().__init__()
        self._services = services
        self._leadership = None if services.cluster is None else Leadership(services.cluster)

    async def on_start(self) -> None:
        await super().on_start()
        records = await list_libraries(self._services.store)
        if self._leadership is None:  # one server: it leads every library
            for record in records:
                await self._start_library(record)
            return
        leadership, node = self._leadership, self._leadership.node
        # First: the leases won below are renewed while their libraries start.
        self.nursery.start_soon(keep_leading, leadership, self.ref)
        try:
            won = await offer_to_lead(leadership, records)
        except StoreError as error:  # a stalled holder's row lock: the next round tries again
            log.warning("could not offer to lead libraries yet: %s", error)
            won = []
        for record, lease in won:
            await self._lead(record, lease)
        targets = library_targets(lambda: list(leadership.epochs))
        self.nursery.start_soon(serve_commands, node, targets, self._local_library)

    async def handle(self, msg: object) -> object:
        match msg:
            case CreateLibrary():
                reply = self.defer_reply()
                self.nursery.start_soon(self._check, msg, reply)
            case _Checked(library=library, reply=reply):
                await self._create_checked(library, reply)
            case GetLibraryRef(library_id=library_id):
                return await self._library_ref(library_id)
            case ListLibraryRefs():
                return await self._library_refs()
            case LeaseWon(record=record, lease=lease):
                if self._leadership is not None:
                    await self._lead(record, lease)
            case LeaseLost(library_id=library_id, epoch=epoch):
                if self._leadership is not None and self._leadership.dropped(library_id, epoch):
                    await self.stop_child(_child_name(library_id))
            case DeleteLibrary(library_id=library_id):
                return await self._delete(library_id)
            case ChangeLibrary():
                reply = self.defer_reply()
                self.nursery.start_soon(self._check_change, msg, reply)
            case CheckedChange():
                await self._change_checked(msg)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    def _local_library(self, target: str) -> ActorRef | None:
        """The actor here of ``library:<id>`` or ``scrape:<id>`` (its library's: it asks for the queue)."""
        return self.child(_child_name(target.split(":", 1)[1]))

    async def _library_ref(self, library_id: str) -> ActorRef:
        ref = self.child(_child_name(library_id))
        if ref is not None:
            return ref
        if self._leadership is not None and await get_library(self._services.store, library_id) is not None:
            return RemoteRef(self._leadership.node, library_target(library_id))
        raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})

    async def _library_refs(self) -> dict[str, ActorRef]:
        local = {name.removeprefix("library-"): self.child(name) for name in self.child_names}
        refs: dict[str, ActorRef] = {k: v for k, v in local.items() if v is not None}
        if self._leadership is not None:
            for record in await list_libraries(self._services.store):
                refs.setdefault(record.id, RemoteRef(self._leadership.node, library_target(record.id)))
        return refs

    async def _lead(self, record: LibraryRecord, lease: Lease) -> None:
        """Start leading ``record``'s library under ``lease``: what a dead leader left
        running is recorded failed, then its actor starts inside the lease's fence."""
        assert self._leadership is not None
        leadership, store = self._leadership, self._services.store
        if not leadership.held(lease):  # lost (not renewed in time) before this turn came
            log.warning("not leading library %s: its lease (epoch %d) was lost first", record.id, lease.epoch)
            return
        message = _taken_over_message(lease)
        try:
            with fenced(leadership.fence(record.id)):  # the actor's tasks inherit it
                await fail_running_scans(store, message, library_id=record.id)
                await fail_unfinished_jobs(store, message, job_id=f"scan:{record.id}")
                await self._start_library(record)
        except StoreError as error:
            log.warning("could not start leading library %s: %s", record.id, error)
            leadership.dropped(record.id)
            return
        log.info("leading library %s (epoch %d)", record.id, lease.epoch)

    async def _check(self, request: CreateLibrary, reply: PendingReply) -> None:
        """Validate a creation off the mailbox turn, then hand it back to the turn."""
        with trio.CancelScope(deadline=reply.deadline):
            try:
                library = await _checked_request(self._services.store, request, self._services)
            except (DomainError, NestedAskFailed) as error:  # refused, or a part it asked is busy
                reply.fail(error)
                return
            except Exception as error:  # this request's failure, not the registry's
                log.exception("checking a new library failed")
                crash = ActorCrashed(self.ref.name, f"checking the new library failed: {error!r}")
                crash.__cause__ = error
                reply.fail(crash)
                return
            try:
                await self.ref.tell(_Checked(library, reply))
            except ActorStopped as error:  # the registry is stopping
                reply.fail(error)
            return
        reply.fail(AskTimeout(self.ref.name, "the library's checks outlasted the ask's deadline"))

    async def _create_checked(self, library: _NewLibrary, reply: PendingReply) -> None:
        if not reply.wanted:
            reply.fail(AskTimeout(self.ref.name, "the asker gave up"))
            return  # its asker gave up meanwhile: nothing is written
        with trio.CancelScope(deadline=reply.deadline) as scope:
            try:
                record = await self._create(library)
            except DomainError as error:
                reply.fail(error)
            except ActorError as error:  # the first scan's ask failed; the library was removed
                reply.fail(nested_ask_failed(self.ref.name, error))
            except StoreError as error:  # the database failed this creation, not the registry
                log.warning("creating a library failed: %s", error)
                reply.fail(_database_unavailable(error))
            else:
                reply.set(record)
        if scope.cancelled_caught:
            reply.fail(AskTimeout(self.ref.name, "the creation outlasted the ask's deadline"))

    async def _create(self, library: _NewLibrary) -> LibraryRecord:
        store = self._services.store
        # Again in the turn: the checks ran concurrently with other creations.
        existing = await all_library_paths(store)
        real = await trio.to_thread.run_sync(
            real_paths, [*library.paths, *(root for _id, root in existing)], abandon_on_cancel=True
        )
        check_no_overlap(list(library.paths), existing, real)
        library_id = new_library_id()
        # In a cluster the lease comes first: no other node may lead the library once its row exists.
        lease = None if self._leadership is None else await self._leadership.acquire(library_id)
        try:
            record = await create_library(
                store,
                library_id=library_id,
                name=library.name,
                collection_type=library.collection_type,
                paths=library.paths,
                options=library.options,
                access_user_ids=library.access_user_ids,
            )
            ref = await self._start_new_library(record, lease)
            if not record.options.scans_suspended:
                await ref.ask(StartScan(mode="full", trigger="create"))  # inherits the asker's deadline
        except BaseException:
            # Failed, or its asker gave up: a 503 must not leave a library behind.
            log.warning("library %s was not created; removing what was written", library_id)
            await self._remove(library_id)
            raise
        return record

    async def _start_new_library(self, record: LibraryRecord, lease: Lease | None) -> ActorRef:
        if lease is None:
            return await self._start_library(record)
        await self._lead(record, lease)
        return await self._library_ref(record.id)

    async def _remove(self, library_id: str) -> None:
        with bounded_shield(REMOVE_TIMEOUT_SECONDS):
            await self.stop_child(_child_name(library_id))
            await self._let_go(library_id)
            try:
                await delete_library(self._services.store, library_id)
            except StoreError:
                log.exception("could not remove library %s", library_id)

    async def _delete(self, library_id: str) -> LibraryRecord:
        store = self._services.store
        record = await get_library(store, library_id)
        led_elsewhere = self._leadership is not None and record is not None
        if record is None or (self.child(_child_name(library_id)) is None and not led_elsewhere):
            raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
        # A commit point: once its actor stops, the rows go too, even if the asker gives up.
        with bounded_shield(REMOVE_TIMEOUT_SECONDS):
            await self.stop_child(_child_name(library_id))
            try:
                await delete_library(store, library_id)
            except StoreError as error:
                log.warning("deleting library %s failed: %s", library_id, error)
                await self._start_library(record)  # as it was: the library still exists
                raise _database_unavailable(error) from error
        await self._let_go(library_id)  # another node leading it notices the rows gone and stops
        self._services.bus.publish(LIBRARY_DELETED, {"libraryId": library_id})
        return record

    async def _check_change(self, change: ChangeLibrary, reply: PendingReply) -> None:
        """Validate a change off the mailbox turn (the disk is read), then hand it back to the turn."""
        with trio.CancelScope(deadline=reply.deadline):
            try:
                before, name, paths = await check_change(self._services.store, change, self._services.data_dir)
                await self.ref.tell(CheckedChange(before, name, paths, reply))
            except (DomainError, ActorStopped) as error:  # refused, or the registry is stopping
                reply.fail(error)
            except Exception as error:  # this request's failure, not the registry's
                log.exception("checking a library change failed")
                crash = ActorCrashed(self.ref.name, f"checking the library change failed: {error!r}")
                crash.__cause__ = error
                reply.fail(crash)
            return
        reply.fail(AskTimeout(self.ref.name, "the change's checks outlasted the ask's deadline"))

    async def _change_checked(self, change: CheckedChange) -> None:
        reply = change.reply
        if not reply.wanted:
            reply.fail(AskTimeout(self.ref.name, "the asker gave up"))
            return  # nothing is written
        with trio.CancelScope(deadline=reply.deadline) as scope:
            try:
                reply.set(await self._change(change))
            except DomainError as error:
                reply.fail(error)
            except ActorError as error:  # the new scan's ask failed; the change stands
                reply.fail(nested_ask_failed(self.ref.name, error))
            except StoreError as error:
                log.warning("changing library %s failed: %s", change.before.id, error)
                reply.fail(_database_unavailable(error))
        if scope.cancelled_caught:
            reply.fail(AskTimeout(self.ref.name, "the change outlasted the ask's deadline"))

    async def _change(self, change: CheckedChange) -> LibraryRecord:
        """Write a checked change (:mod:`.library_change`); new roots restart the library's actor on them."""
        store, library_id = self._services.store, change.before.id
        if await get_library(store, library_id) is None:  # deleted since it was checked
            raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
        if change.roots_changed:
            if self.child(_child_name(library_id)) is None:
                raise errors.Conflict("Another server of the cluster runs this library: change its folders there.",
                                      params={"libraryId": library_id})  # fmt: skip
            # Again in the turn: the checks ran concurrently with creations and other changes.
            existing = await others_paths(store, library_id)
            real = await trio.to_thread.run_sync(
                real_paths, [*change.paths, *(root for _id, root in existing)], abandon_on_cancel=True
            )
            check_no_overlap(list(change.paths), existing, real)
        await update_library_roots(store, library_id, change.name, change.paths)
        record = await get_library(store, library_id)
        if record is None:  # another node of a cluster deleted it meanwhile
            raise errors.NotFound(f"No library {library_id}.", params={"libraryId": library_id})
        if change.roots_changed:
            with bounded_shield(REMOVE_TIMEOUT_SECONDS):  # never left without its actor
                await self.stop_child(_child_name(library_id))
                ref = await self._restart_library(record)
            if not record.options.scans_suspended:
                await ref.ask(StartScan(mode="full", trigger="manual"))  # inherits the asker's deadline
        return record

    async def _restart_library(self, record: LibraryRecord) -> ActorRef:
        if self._leadership is None:
            return await self._start_library(record)
        with fenced(self._leadership.fence(record.id)):  # as when it began leading it
            return await self._start_library(record)

    async def _let_go(self, library_id: str) -> None:
        if self._leadership is not None:
            epoch = self._leadership.epoch_of(library_id)  # led, or won and not led yet
            if epoch is not None and self._leadership.dropped(library_id, epoch):
                await self._leadership.release(library_id, epoch)

    async def _start_library(self, record: LibraryRecord) -> ActorRef:
        services = self._services
        spec = ChildSpec(_child_name(record.id), lambda: LibraryActor(record, services))
        return await self.start_child(spec)


def _database_unavailable(error: StoreError) -> errors.Unavailable:
    unavailable = errors.Unavailable(
        "The database did not complete the change; try again shortly.",
        params={"retryAfterSeconds": DATABASE_RETRY_AFTER_SECONDS},
    )
    unavailable.__cause__ = error
    return unavailable


def _taken_over_message(lease: Lease) -> str:
    if lease.previous_node is None or lease.previous_node == lease.node_id:
        return "The server stopped while this scan was running."
    return (
        f"The node running this scan ({lease.previous_node}) stopped answering; "
        f"node {lease.node_id} leads this library now."
    )


def _child_name(library_id: str) -> str:
    return f"library-{library_id}"


async def _checked_request(store: Store, request: CreateLibrary, services: LibraryServices) -> _NewLibrary:
    """Every check of a creation but the final overlap one; the disk is read in worker threads."""
    data_dir = services.data_dir
    name = valid_name(request.name)
    collection_type = parse_collection_type(request.collection_type)
    paths = await valid_paths(store, request.paths, data_dir)
    has_strm = await trio.to_thread.run_sync(roots_have_strm, paths, abandon_on_cancel=True)
    outcome = apply_update(
        None,
        None if request.options is None else dict(request.options),
        creating=True,
        collection_type=collection_type,
        installed_plugins=await installed_plugin_infos(services.plugins),
        entitled=entitled,
        roots_have_strm=has_strm,
        realtime_monitor_flag=request.realtime_monitor,
    )
    if outcome.check_roots_writable:
        await trio.to_thread.run_sync(check_roots_writable, paths, abandon_on_cancel=True)
    await _check_access_users(store, request.access_user_ids)
    return _NewLibrary(name, collection_type, paths, outcome.options, tuple(request.access_user_ids))


async def _check_access_users(store: Store, user_ids: Sequence[str]) -> None:
    if not isinstance(user_ids, (list, tuple)) or not all(isinstance(u, str) for u in user_ids):
        raise errors.Invalid("accessUserIds must be a list of member ids.", field="accessUserIds")
    found = await existing_user_ids(store, user_ids)
    for user_id in user_ids:
        if user_id not in found:
            raise errors.Invalid(f"No member {user_id}.", field="accessUserIds", params={"userId": user_id})
        if not found[user_id]:
            raise errors.Invalid(f"Member {user_id} is disabled.", field="accessUserIds", params={"userId": user_id})

