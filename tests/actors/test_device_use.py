"""DeviceUse writes the last use of device tokens behind the requests' backs: on its interval, when asked, at stop."""

from __future__ import annotations

import trio

from reelhouse.actors.device_use import DeviceUse, FlushDeviceUse
from reelhouse.runtime import ChildSpec, RootActor, spawn
from reelhouse.storage import Store
from reelhouse.storage.devices import SignInRequest, sign_in
from reelhouse.storage.members import add_user
from reelhouse.storage.verified_devices import VerifiedDevices

SHORT_FLUSH_S = 0.1
SIGNED_IN_AT_MS = 1_000
CAP_S = 60


async def _signed_in_token(store: Store) -> str:
    member = await add_user(store, "ann", is_admin=False, password=None)
    token, _device = await sign_in(store, SignInRequest(member.id, "tv-1", "TV", "TestPlayer", "1.0"), SIGNED_IN_AT_MS)
    return token


async def _last_seen(store: Store) -> int:
    return int(await store.fetch_value("SELECT last_seen FROM device_tokens"))


async def test_a_noted_use_is_written_by_the_interval_without_any_ask(store: Store, nursery: trio.Nursery) -> None:
    # That a request writes nothing itself is tests/http/test_devices.py's (a minute's interval there).
    token = await _signed_in_token(store)
    devices = VerifiedDevices(store)
    await spawn(nursery, DeviceUse(devices, flush_seconds=SHORT_FLUSH_S), "device_use")
    with trio.fail_after(CAP_S):
        assert await devices.find(token) is not None
        while await _last_seen(store) == SIGNED_IN_AT_MS:
            await trio.sleep(SHORT_FLUSH_S)
    assert await _last_seen(store) > SIGNED_IN_AT_MS


async def test_an_ask_writes_at_once_and_a_stop_writes_what_is_left(store: Store, nursery: trio.Nursery) -> None:
    token = await _signed_in_token(store)
    devices = VerifiedDevices(store)
    root = RootActor([ChildSpec("device_use", lambda: DeviceUse(devices, flush_seconds=3600))])
    await nursery.start(root.run)
    ref = root.child("device_use")
    assert ref is not None
    with trio.fail_after(CAP_S):
        await devices.find(token)
        await ref.ask(FlushDeviceUse())
        asked = await _last_seen(store)
        await trio.sleep(0.01)  # a later use has a later time
        await devices.find(token)
        await root.stop(timeout=10)
        stopped = await _last_seen(store)
    assert SIGNED_IN_AT_MS < asked < stopped
