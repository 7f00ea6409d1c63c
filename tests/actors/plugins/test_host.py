"""PluginHost over real plugin processes: every status transition, containment, cleanup."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from reelhouse.actors.plugins import (
    HostConfig,
    ListTasks,
    PluginCallError,
    PluginHost,
    PluginInfos,
    PluginNotRunning,
    PluginView,
    run_task,
)
from reelhouse.actors.plugins.session import HANDSHAKE_TIMEOUT_S, STDERR_LINE_CHARS, STDERR_LINES_PER_MINUTE
from reelhouse.media.durations import MAX_WAIT_SECONDS, MIN_WAIT_SECONDS
from reelhouse.media.plugin_policy import CrashPolicy
from reelhouse.runtime import ChildSpec, RootActor
from reelhouse.storage import plugin_catalog
from reelhouse.timefmt import rfc3339_ms

from .conftest import Host
from .factory import make_plugin, processes_under, zombie_children


async def test_a_plugin_is_idle_until_used_then_running_then_idle_after_its_idle_time(host: Host) -> None:
    make_plugin(host.plugins, "good", extra="idle_seconds = 0.3")
    await host.rescan()
    assert await host.status("good") == "idle"
    assert await host.call("good", "echo", {"x": 1}) == {"x": 1}
    assert await host.status("good") == "running"
    await host.wait_status("good", "idle")
    assert await host.call("good", "echo", [2]) == [2]  # started again on next use


async def test_a_plugin_reads_starting_until_its_handshake_and_the_host_answers_meanwhile(host: Host) -> None:
    make_plugin(host.plugins, "slow", "slowstart")
    await host.rescan()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host.call, "slow", "echo", 1)
        await host.wait_status("slow", "starting")  # the actor's mailbox is not blocked by the start
    assert await host.status("slow") == "running"


async def test_a_required_setting_keeps_the_plugin_needing_configuration_until_set(host: Host) -> None:
    make_plugin(host.plugins, "needy", extra='[[settings]]\nkey = "apiKey"\nrequired = true\nsecret = true\n')
    await host.rescan()
    view = await host.view("needy")
    assert (view.status, view.missing_required) == ("needs_configuration", ("apiKey",))
    with pytest.raises(PluginNotRunning):
        await host.call("needy", "echo", 1)
    plugin_catalog.update_state(host.data_dir, "needy", settings={"apiKey": "s3cret"})
    await host.rescan()
    assert await host.status("needy") == "idle"
    assert await host.call("needy", "echo", 1) == 1


async def test_a_plugin_crashing_on_calls_restarts_then_is_crash_disabled(host: Host) -> None:
    make_plugin(host.plugins, "crashy", "crash")
    await host.rescan()
    for _ in range(2):
        with pytest.raises(PluginCallError) as failure:
            await host.call("crashy", "echo", 1)
        assert failure.value.reason == "crashed"
        assert await host.status("crashy") in ("restarting", "running")
        await host.wait_status("crashy", "running")  # restarted by itself after the backoff
    with pytest.raises(PluginCallError):
        await host.call("crashy", "echo", 1)
    view = await host.wait_view("crashy", lambda v: v.status == "crash_disabled")
    assert (view.status, view.enabled, view.disable_reason, view.last_error_code) == (
        "crash_disabled", False, "crash", "crashed")
    assert view.last_error
    with pytest.raises(PluginNotRunning):
        await host.call("crashy", "echo", 1)
    # `plugin enable` lifts it.
    plugin_catalog.update_state(host.data_dir, "crashy", enabled=True, enabled_at_ms=1)
    await host.rescan()
    assert await host.status("crashy") == "idle"


async def test_a_plugin_that_cannot_start_counts_as_a_crash(host: Host) -> None:
    make_plugin(host.plugins, "dead", "dead")
    missing = make_plugin(host.plugins, "missing")
    toml = (missing / "plugin.toml").read_text().replace('["python3", "main.py", "good"]', '["./nothing-here"]')
    (missing / "plugin.toml").write_text(toml)
    await host.rescan()
    for plugin_id in ("dead", "missing"):
        # Known at once, not after the handshake's time limit.
        with pytest.raises(PluginCallError) as failure, trio.fail_after(HANDSHAKE_TIMEOUT_S / 2):
            await host.call(plugin_id, "echo", 1)
        assert failure.value.reason == "crashed"
        view = await host.view(plugin_id)
        assert view.status == "restarting" and view.last_error_code == "crashed"
        assert "could not start" in (view.last_error or "")


async def test_a_hung_plugin_is_killed_after_its_timeout_and_counted(host: Host) -> None:
    make_plugin(host.plugins, "hung", "hang", timeout=0.3)
    await host.rescan()
    pid = await host.call("hung", "pid")
    with pytest.raises(PluginCallError) as failure:
        await host.call("hung", "echo", 1)
    assert failure.value.reason == "timeout"
    view = await host.wait_view("hung", lambda v: v.last_error_code is not None)
    assert view.last_error_code == "timeout"
    assert view.status in ("restarting", "starting", "running")
    with trio.fail_after(5):
        while _alive(pid):
            await trio.sleep(0.05)


@pytest.mark.parametrize("mode", ["flood", "garbage"])
async def test_a_plugin_flooding_or_writing_garbage_is_killed_and_counted(host: Host, mode: str) -> None:
    make_plugin(host.plugins, mode, mode)
    await host.rescan()
    with pytest.raises(PluginCallError):
        await host.call(mode, "echo", 1)
    view = await host.wait_view(mode, lambda v: v.last_error_code is not None)
    assert view.last_error_code == "crashed"
    assert mode in (view.last_error or "")
    assert dict((s.code, s.value) for s in view.stats)["errors"] == 1


async def test_stderr_reaches_the_log_bounded_in_lines_and_length(
    host: Host, caplog: pytest.LogCaptureFixture
) -> None:
    make_plugin(host.plugins, "noisy", "noisy")
    await host.rescan()
    with caplog.at_level(logging.WARNING, logger="reelhouse.plugins"):
        assert await host.call("noisy", "echo", 1) == 1
        await trio.sleep(0.5)
    noise = [r.getMessage() for r in caplog.records if "noise" in r.getMessage()]
    assert 0 < len(noise) <= STDERR_LINES_PER_MINUTE
    assert all(len(line) <= STDERR_LINE_CHARS + 50 for line in noise)


async def test_a_plugins_log_and_stderr_reach_the_log_with_control_characters_escaped(
    host: Host, caplog: pytest.LogCaptureFixture
) -> None:
    make_plugin(host.plugins, "good")
    await host.rescan()
    hostile = "done\x1b[2J\x1b]0;pwned\x07\rERROR forged\u202eexe.txt"
    with caplog.at_level(logging.INFO, logger="reelhouse.plugins"):
        assert await host.call("good", "say", {"message": hostile}) is None
        while len(said := [r.getMessage() for r in caplog.records if "done" in r.getMessage()]) < 2:
            await trio.sleep(0.05)  # stderr is read on its own: the line comes when it comes
    assert said == ["plugin good: done\\x1b[2J\\x1b]0;pwned\\x07\\rERROR forged\\u202eexe.txt"] * 2


async def test_an_old_protocol_plugin_is_incompatible_and_not_retried(host: Host) -> None:
    make_plugin(host.plugins, "old", "old")
    make_plugin(host.plugins, "older", protocol=1)
    await host.rescan()
    assert await host.status("older") == "incompatible"
    with pytest.raises(PluginNotRunning):
        await host.call("old", "echo", 1)
    view = await host.view("old")
    assert view.status == "incompatible"
    assert view.last_error_code is None  # not counted as a crash
    with pytest.raises(PluginNotRunning):
        await host.call("old", "echo", 1)


async def test_disabling_stops_the_process_and_removing_reads_not_installed(host: Host) -> None:
    make_plugin(host.plugins, "good")
    await host.rescan()
    pid = await host.call("good", "pid")
    plugin_catalog.update_state(host.data_dir, "good", enabled=False)
    await host.rescan()
    view = await host.view("good")
    assert (view.status, view.enabled, view.disable_reason) == ("disabled", False, "manual")
    with trio.fail_after(5):
        while _alive(pid):
            await trio.sleep(0.05)
    plugin_catalog.update_state(host.data_dir, "good", enabled=True, settings={"k": "v"})
    plugin_catalog.remove(host.data_dir, "good")
    await host.rescan()
    view = await host.view("good")
    assert view.status == "not_installed"
    assert view.entry.state.settings == {"k": "v"}


async def test_a_paid_plugin_without_a_license_is_license_required(host: Host) -> None:
    make_plugin(host.plugins, "paid", extra='paid = true\nfeatures = ["zeta", "alpha"]')
    await host.rescan()
    view = await host.view("paid")
    assert view.status == "license_required"
    assert view.entry.manifest is not None and view.entry.manifest.features == ("alpha", "zeta")


async def test_a_caller_deadline_shorter_than_the_plugins_cancels_the_call_and_kills_nothing(
    host: Host, tmp_path: Path
) -> None:
    make_plugin(host.plugins, "good")
    await host.rescan()
    pid = await host.call("good", "pid")
    marker = tmp_path / "marker"
    with pytest.raises(PluginCallError) as failure:
        await host.call("good", "wait", {"marker": str(marker)}, timeout=0.3)
    assert failure.value.reason == "timeout"
    with trio.fail_after(5):
        while not marker.exists():
            await trio.sleep(0.05)
    assert await host.call("good", "pid") == pid
    assert (await host.view("good")).last_error_code is None


async def test_a_cancelled_caller_cancels_its_call_in_the_plugin(host: Host, tmp_path: Path) -> None:
    make_plugin(host.plugins, "good")
    await host.rescan()
    marker, started = tmp_path / "marker", tmp_path / "started"
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host.call, "good", "wait", {"marker": str(marker), "started": str(started)})
        while not started.exists():  # the plugin has the request (a cold start takes what it takes)
            await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    with trio.fail_after(5):
        while not marker.exists():
            await trio.sleep(0.05)
    assert marker.read_text().startswith("cancelled")
    assert await host.call("good", "echo", 3) == 3  # the plugin lives on


async def test_concurrency_lets_calls_overlap_up_to_the_limit_and_no_further(host: Host, tmp_path: Path) -> None:
    make_plugin(host.plugins, "wide", extra="concurrency = 2")
    await host.rescan()
    assert (await host.view("wide")).concurrency == 2
    pid = await host.call("wide", "pid")
    async with trio.open_nursery() as nursery:
        for i in range(2):
            nursery.start_soon(host.call, "wide", "wait", {"marker": str(tmp_path / f"m{i}")})
        await trio.sleep(0.2)
        with pytest.raises(PluginCallError) as failure:
            await host.call("wide", "echo", 1, timeout=0.3)
        assert failure.value.reason == "timeout"  # no free slot: the plugin itself is fine
        nursery.cancel_scope.cancel()
    assert await host.call("wide", "pid") == pid


async def test_rate_limits_and_reported_stats_show_in_the_view(host: Host) -> None:
    make_plugin(host.plugins, "good")
    await host.rescan()
    with pytest.raises(PluginCallError) as failure:
        await host.call("good", "limited")
    assert failure.value.reason == "rate_limited"
    await host.call("good", "stat")
    view = await host.view("good")
    assert view.paused_until_ms is not None
    codes = {s.code: s.value for s in view.stats}
    assert codes["quota"] == 42 and codes["calls"] == 2 and codes["errors"] == 1
    assert "last-success" in codes


@pytest.mark.parametrize(("seconds", "wait"), [
    (1e30, MAX_WAIT_SECONDS), (1.7e308, MAX_WAIT_SECONDS), ("99999999999999999999", MAX_WAIT_SECONDS),
    (-5, MIN_WAIT_SECONDS), ("soon", None),
])
async def test_an_absurd_retry_after_from_a_plugin_pauses_it_a_day_at_most(
    host: Host, seconds: object, wait: float | None
) -> None:
    make_plugin(host.plugins, "good")
    await host.rescan()
    with pytest.raises(PluginCallError) as failure:
        await host.call("good", "limited", {"retryAfterSeconds": seconds, "notify": True})
    assert failure.value.reason == "rate_limited"
    assert failure.value.params.get("retryAfterSeconds") == wait
    paused_until = (await host.view("good")).paused_until_ms
    if wait is None:  # not a duration: no pause
        assert paused_until is None
    elif wait == MAX_WAIT_SECONDS:  # (a pause of the minimum may be over already)
        assert paused_until is not None and paused_until <= (time.time() + wait) * 1000
        assert rfc3339_ms(paused_until)  # what GET /plugins/installed formats


async def test_tasks_and_infos_list_enabled_plugins(host: Host) -> None:
    make_plugin(host.plugins, "tasky", extra='capabilities = ["metadata.movie"]\n[[tasks]]\nname = "sync"\nnames = { en = "Sync" }\n')
    await host.rescan()
    tasks = await host.ref.ask(ListTasks(), timeout=10)
    assert [t.key for t in tasks] == ["tasky.sync"]
    assert await run_task(host.ref, "tasky.sync") == {"message": "ok"}
    infos = await host.ref.ask(PluginInfos(), timeout=10)
    assert [(i.id, i.enabled, i.capabilities) for i in infos] == [("tasky", True, frozenset({"metadata.movie"}))]
    plugin_catalog.update_state(host.data_dir, "tasky", enabled=False)
    await host.rescan()
    assert await host.ref.ask(ListTasks(), timeout=10) == []


async def test_a_plugin_ignoring_the_end_of_its_stdin_is_killed_at_shutdown(host: Host) -> None:
    make_plugin(host.plugins, "deaf", "deaf")
    await host.rescan()
    await host.call("deaf", "echo", 1)  # the fixture checks that nothing is left


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not zombie_children(os.getpid()) or pid not in zombie_children(os.getpid())


async def _real_wait(host: Host, plugin_id: str, predicate: Callable[[PluginView], bool]) -> PluginView:
    """Wait in real time (the trio clock is frozen), at most 20 s."""
    started = time.monotonic()
    while not predicate(view := await host.view(plugin_id)):
        assert time.monotonic() - started < 20, view
        await trio.to_thread.run_sync(time.sleep, 0.02)
    return view


async def test_a_crashed_plugin_restarts_after_a_backoff_that_doubles(mock_clock: MockClock, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    make_plugin(plugin_catalog.plugins_dir(data_dir), "crashy", "crash")
    config = HostConfig(data_dir=data_dir, server_version="test",
                        policy=CrashPolicy(max_crashes=5, window=1000, base=10, cap=15))
    async with trio.open_nursery() as nursery:
        root = RootActor([ChildSpec("plugins", lambda: PluginHost(config, bundled_dir=None, poll_seconds=3600))])
        await nursery.start(root.run)
        ref = root.child("plugins")
        assert ref is not None
        host = Host(ref, data_dir, plugin_catalog.plugins_dir(data_dir), root)
        for backoff in (10, 15):  # 10 s, then 20 s capped at 15 s
            with pytest.raises(PluginCallError):
                await host.call("crashy", "echo", 1)
            await _real_wait(host, "crashy", lambda v: v.status == "restarting")
            mock_clock.jump(backoff - 0.5)
            await trio.to_thread.run_sync(time.sleep, 0.2)
            assert await host.status("crashy") == "restarting"
            mock_clock.jump(1)
            await _real_wait(host, "crashy", lambda v: v.status == "running")
        await root.stop(timeout=10)
    assert processes_under(tmp_path) == []
    assert zombie_children(os.getpid()) == []


async def test_a_plugin_with_an_unreadable_manifest_reads_unknown_with_the_reason(host: Host) -> None:
    broken = host.plugins / "broken"
    broken.mkdir()
    (broken / "plugin.toml").write_text('id = "broken"\nname = "Broken"\n')
    await host.rescan()
    view = await host.view("broken")
    assert view.status == "unknown" and "version" in (view.last_error or "")
    with pytest.raises(PluginNotRunning):
        await host.call("broken", "echo", 1)
