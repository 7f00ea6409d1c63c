"""GENA eventing of the DLNA MediaServer: who subscribed, and NOTIFY when the catalogue moved.

An actor of the tree (``dlna_events``), asked by ``http/dlna/events.py``:
:class:`Subscribe`, :class:`Renew`, :class:`Unsubscribe`.  At most
:data:`MAX_SUBSCRIPTIONS` live at once (more is refused, 503); each ends
at its timeout unless renewed.  A new subscription gets its initial event
(every evented variable, SEQ 0) :data:`INITIAL_EVENT_DELAY_SECONDS` after
it was accepted, so the control point holds the SID before it arrives.

While any ContentDirectory subscription lives, a task checks the
catalogue's stamps (``storage/catalogue_stamp.py``) after every event on
the bus (a scan's progress, completion...) and at least every
:data:`CHECK_SECONDS`, never more often than every
:data:`MODERATION_SECONDS` (UPnP's moderated rate for SystemUpdateID).
When SystemUpdateID moved, every subscriber gets ``SystemUpdateID`` and
``ContainerUpdateIDs`` (the ``lib.<id>`` containers of the libraries the
DLNA member may see whose stamp moved).  A NOTIFY is sent with the tree's
HTTP client (no redirects), each within :data:`NOTIFY_TIMEOUT_SECONDS`,
at most :data:`MAX_PARALLEL_NOTIFY` at once; a callback that fails is
logged, and the subscription stays until it expires.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx
import trio

from reelhouse import errors
from reelhouse.media.dlna.descriptions import CONTENT_DIRECTORY
from reelhouse.media.dlna.gena import property_set
from reelhouse.media.member_policy import library_scope
from reelhouse.runtime import Actor, Ask, EventBus, SubscriberDropped
from reelhouse.storage import Store
from reelhouse.storage.catalogue_stamp import EMPTY_LIBRARY_STAMP, catalogue_stamp, library_stamps
from reelhouse.storage.members import find_user_by_name, get_member

log = logging.getLogger(__name__)

MAX_SUBSCRIPTIONS = 64
INITIAL_EVENT_DELAY_SECONDS = 0.5
CHECK_SECONDS = 30.0
MODERATION_SECONDS = 2.0
NOTIFY_TIMEOUT_SECONDS = 5.0
MAX_PARALLEL_NOTIFY = 8


@dataclass(frozen=True, slots=True)
class Subscribe(Ask[str]):
    """Ask: subscribe ``callbacks`` to ``service`` for ``seconds``; replies the SID (503 when full)."""

    service: str
    callbacks: tuple[str, ...]
    seconds: int
    initial: tuple[tuple[str, str], ...]  # the initial event's variables for a service other than CD


@dataclass(frozen=True, slots=True)
class Renew(Ask[None]):
    """Ask: extend subscription ``sid`` by ``seconds``; NotFound when it is unknown or expired."""

    sid: str
    seconds: int


@dataclass(frozen=True, slots=True)
class Unsubscribe(Ask[None]):
    """Ask: end subscription ``sid``; NotFound when it is unknown or expired."""

    sid: str


@dataclass(slots=True)
class _Subscription:
    sid: str
    service: str
    callbacks: tuple[str, ...]
    expires_at: float
    seq: int = 0


@dataclass(slots=True)
class _Stamps:
    system: int | None = None
    libraries: dict[str, int] = field(default_factory=dict)


class DlnaEvents(Actor):
    def __init__(self, store: Store, bus: EventBus, http: httpx.AsyncClient, member: str) -> None:
        self._store = store
        self._bus = bus
        self._http = http
        self._member = member
        self._subscriptions: dict[str, _Subscription] = {}
        self._stamps = _Stamps()
        self._wanted = trio.Event()  # a ContentDirectory subscription exists
        self._sending = trio.Semaphore(MAX_PARALLEL_NOTIFY)

    async def on_start(self) -> None:
        self.nursery.start_soon(self._watch)

    async def handle(self, msg: object) -> object:
        self._expire()
        match msg:
            case Subscribe():
                return await self._subscribe(msg)
            case Renew(sid=sid, seconds=seconds):
                self._find(sid).expires_at = trio.current_time() + seconds
            case Unsubscribe(sid=sid):
                del self._subscriptions[self._find(sid).sid]
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    async def _subscribe(self, msg: Subscribe) -> str:
        if len(self._subscriptions) >= MAX_SUBSCRIPTIONS:
            raise errors.Unavailable("Too many event subscriptions.", params={"retryAfterSeconds": 60})
        sid = f"uuid:{uuid.uuid4()}"
        subscription = _Subscription(sid, msg.service, msg.callbacks, trio.current_time() + msg.seconds)
        self._subscriptions[sid] = subscription
        initial = msg.initial
        if msg.service == CONTENT_DIRECTORY:
            if self._stamps.system is None:
                await self._read_stamps()
            initial = (("SystemUpdateID", str(self._stamps.system)), ("ContainerUpdateIDs", ""),
                       ("TransferIDs", ""))  # fmt: skip
            self._wanted.set()
        self.nursery.start_soon(self._send_initial, subscription, initial)
        return sid

    def _find(self, sid: str) -> _Subscription:
        found = self._subscriptions.get(sid)
        if found is None:
            raise errors.NotFound("No such subscription.")
        return found

    def _expire(self) -> None:
        now = trio.current_time()
        for sid in [s.sid for s in self._subscriptions.values() if s.expires_at <= now]:
            del self._subscriptions[sid]
        if self._wanted.is_set() and not any(s.service == CONTENT_DIRECTORY for s in self._subscriptions.values()):
            self._wanted = trio.Event()  # the watch waits for the next subscription

    async def _send_initial(self, subscription: _Subscription, values: Sequence[tuple[str, str]]) -> None:
        await trio.sleep(INITIAL_EVENT_DELAY_SECONDS)
        await self._notify(subscription, property_set(values))

    # -- watching the catalogue -------------------------------------------------------

    async def _watch(self) -> None:
        while True:
            try:
                async with self._bus.subscribe() as events:
                    while True:
                        await self._wanted.wait()
                        with trio.move_on_after(CHECK_SECONDS):
                            await events.__anext__()
                        await self._check()
                        await trio.sleep(MODERATION_SECONDS)
            except (SubscriberDropped, StopAsyncIteration):  # fell behind, or the bus ended: subscribe again
                await trio.sleep(MODERATION_SECONDS)

    async def _check(self) -> None:
        self._expire()
        before = self._stamps
        await self._read_stamps()
        if before.system is None or before.system == self._stamps.system:
            return
        visible = await self._visible_libraries()
        after = self._stamps.libraries
        stamps = {lib: after.get(lib, EMPTY_LIBRARY_STAMP) for lib in {*before.libraries, *after}}  # emptied too
        moved = [(f"lib.{lib}", str(stamp)) for lib, stamp in sorted(stamps.items())
                 if (visible is None or lib in visible)
                 and before.libraries.get(lib, EMPTY_LIBRARY_STAMP) != stamp]  # fmt: skip
        body = property_set((("SystemUpdateID", str(self._stamps.system)),
                             ("ContainerUpdateIDs", ",".join(f"{c},{u}" for c, u in moved))))  # fmt: skip
        for subscription in list(self._subscriptions.values()):
            if subscription.service == CONTENT_DIRECTORY:
                self.nursery.start_soon(self._notify, subscription, body)

    async def _read_stamps(self) -> None:
        self._stamps = _Stamps(await catalogue_stamp(self._store), await library_stamps(self._store))

    async def _visible_libraries(self) -> frozenset[str] | None:
        """The libraries the DLNA member may see; None: every one."""
        user = await find_user_by_name(self._store, self._member) if self._member.strip() else None
        member = None if user is None else await get_member(self._store, user.id)
        if member is None or member.user.disabled:
            return frozenset()
        scope = library_scope(member.facts)
        return scope.library_ids

    async def _notify(self, subscription: _Subscription, body: bytes) -> None:
        seq = subscription.seq
        subscription.seq = seq + 1 if seq < 0xFFFFFFFF else 1
        headers = {"Content-Type": 'text/xml; charset="utf-8"', "NT": "upnp:event", "NTS": "upnp:propchange",
                   "SID": subscription.sid, "SEQ": str(seq)}  # fmt: skip
        async with self._sending:
            for url in subscription.callbacks:  # the first that takes it (UDA 1.0, 4.2)
                try:
                    with trio.fail_after(NOTIFY_TIMEOUT_SECONDS):
                        answer = await self._http.request("NOTIFY", url, headers=headers, content=body)
                    if answer.status_code < 300:
                        return
                except (httpx.HTTPError, trio.TooSlowError) as exc:
                    log.info("DLNA: an event to %s failed (%s)", url, type(exc).__name__)
