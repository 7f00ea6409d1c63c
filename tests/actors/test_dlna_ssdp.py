"""SSDP in a private network namespace made by the test (root only), seen by a published client:
async-upnp-client's ``upnp-client`` (PyPI) finds the server by M-SEARCH and hears its alive and byebye."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..server_process import SERVING_LINE, clean_environ, reelhouse_argv

UPNP_CLIENT = str(Path(sys.executable).with_name("upnp-client"))
PORT = 8096  # the namespace is private: any port is free
LOCATION = f"http://127.0.0.1:{PORT}/dlna/description.xml"
MEDIA_SERVER = "urn:schemas-upnp-org:device:MediaServer:1"
START_TIMEOUT_S = 60.0
STEP_TIMEOUT_S = 30.0


def _ip(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["ip", *args], capture_output=True, timeout=STEP_TIMEOUT_S, check=False)


@pytest.fixture
def netns() -> Iterator[str]:
    name = f"rhdlna{os.getpid()}{secrets.token_hex(3)}"
    if os.geteuid() != 0 or shutil.which("ip") is None or _ip("netns", "add", name).returncode != 0:
        pytest.skip("SSDP is tested in a private network namespace: needs root and `ip netns`")
    try:
        for command in (("link", "set", "lo", "up"), ("link", "set", "lo", "multicast", "on"),
                        ("route", "add", "224.0.0.0/4", "dev", "lo")):  # fmt: skip
            assert _ip("netns", "exec", name, "ip", *command).returncode == 0
        yield name
    finally:
        _ip("netns", "del", name)


def in_netns(netns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", netns, *argv]


def start_server(netns: str, tmp_path: Path, bind: str = f"127.0.0.1:{PORT}") -> subprocess.Popen[bytes]:
    data_dir = tmp_path / "data"
    argv = reelhouse_argv("serve", "--bind", bind, "--data-dir", str(data_dir),
                          "--database", f"sqlite:///{tmp_path / 'reelhouse.db'}")  # fmt: skip
    env = clean_environ(REELHOUSE_DLNA__ENABLED="true", REELHOUSE_DLNA__INTERFACES='["lo"]')
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(in_netns(netns, *argv), stdout=subprocess.DEVNULL, stderr=log, env=env)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not SERVING_LINE.search(log_path.read_text(errors="replace")):
        assert process.poll() is None and time.monotonic() < deadline, log_path.read_text(errors="replace")
        time.sleep(0.05)
    return process


def messages(text: str) -> list[dict[str, Any]]:
    """The JSON objects upnp-client printed, one per line."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def heard(path: Path) -> list[dict[str, Any]]:
    """The announcements the listener printed so far, header names lower-cased."""
    return [{k.lower(): v for k, v in n.items()} for n in messages(path.read_text(errors="replace"))]


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def wait_listening(netns: str) -> None:
    """Until a socket in the namespace is bound to UDP port 1900 (the listener joins the group as it binds)."""
    wait_for(lambda: b":1900 " in subprocess.run(in_netns(netns, "ss", "-uln"), capture_output=True,
                                                  timeout=STEP_TIMEOUT_S, check=False).stdout)  # fmt: skip


def test_upnp_client_finds_the_server_by_m_search_and_hears_alive_then_byebye(netns: str, tmp_path: Path) -> None:
    heard_path = tmp_path / "advertisements.jsonl"
    with open(heard_path, "wb") as listened:
        listener = subprocess.Popen(in_netns(netns, UPNP_CLIENT, "advertisements", "--bind", "127.0.0.1"),
                                    stdout=listened, stderr=subprocess.STDOUT)  # fmt: skip
    server = None
    try:
        wait_listening(netns)  # the listener is in the group before the server's first alive
        server = start_server(netns, tmp_path)
        found = subprocess.run(
            in_netns(netns, UPNP_CLIENT, "--timeout", "6", "search", "--bind", "127.0.0.1", "--search_target",
                     MEDIA_SERVER),
            capture_output=True, timeout=STEP_TIMEOUT_S, check=False,
        )  # fmt: skip
        answers = [{k.lower(): v for k, v in a.items()} for a in messages(found.stdout.decode())]
        assert any(a.get("location") == LOCATION and a.get("st") == MEDIA_SERVER for a in answers), found
        usn = next(a["usn"] for a in answers if a.get("st") == MEDIA_SERVER)
        browsed = subprocess.run(in_netns(netns, UPNP_CLIENT, "call-action", LOCATION, "CD/GetSystemUpdateID"),
                                 capture_output=True, timeout=STEP_TIMEOUT_S, check=False)  # fmt: skip
        assert browsed.returncode == 0, browsed
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=STEP_TIMEOUT_S) == 0
        wait_for(lambda: any(n.get("nts") == "ssdp:byebye" and n.get("usn") == usn for n in heard(heard_path)))
    finally:
        if server is not None and server.poll() is None:
            server.kill()
        listener.send_signal(signal.SIGTERM)
        listener.wait(timeout=STEP_TIMEOUT_S)
    notices = [n for n in heard(heard_path) if n.get("usn") == usn]
    kinds = [n.get("nts") for n in notices]
    assert "ssdp:alive" in kinds and kinds[-1] == "ssdp:byebye", kinds
    assert all(n.get("location") in (None, LOCATION) for n in notices)


GSSDP_DISCOVER = shutil.which("gssdp-discover")


def gssdp_resources(text: str, kind: str) -> list[tuple[str, str]]:
    """(USN, Location) of every "resource available" or "resource unavailable" block gssdp-discover printed."""
    found: list[tuple[str, str]] = []
    for block in text.split("resource ")[1:]:
        lines = block.splitlines()
        fields = dict(line.strip().split(":", 1) for line in lines[1:] if ":" in line)
        if lines[0].strip() == kind:
            found.append((fields.get("USN", "").strip(), fields.get("Location", "").strip()))
    return found


def test_gssdp_discover_sees_the_media_server_announced_then_gone(netns: str, tmp_path: Path) -> None:
    if GSSDP_DISCOVER is None:
        pytest.skip("gssdp-discover (Debian's gupnp-tools) is not installed: make dlna-tools")
    seen_path = tmp_path / "gssdp.txt"
    with open(seen_path, "wb") as seen:
        discover = subprocess.Popen(in_netns(netns, GSSDP_DISCOVER, "-i", "lo", "-m", "all", "-t", MEDIA_SERVER),
                                    stdout=seen, stderr=subprocess.STDOUT)  # fmt: skip
    server = None
    try:
        wait_listening(netns)
        server = start_server(netns, tmp_path)
        wait_for(lambda: any(loc == LOCATION for _, loc in gssdp_resources(seen_path.read_text(), "available")))
        usn = next(u for u, loc in gssdp_resources(seen_path.read_text(), "available") if loc == LOCATION)
        assert usn.startswith("uuid:") and usn.endswith("::" + MEDIA_SERVER)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=STEP_TIMEOUT_S) == 0
        wait_for(lambda: any(u == usn for u, _ in gssdp_resources(seen_path.read_text(), "unavailable")))
    finally:
        if server is not None and server.poll() is None:
            server.kill()
        discover.send_signal(signal.SIGTERM)
        discover.wait(timeout=STEP_TIMEOUT_S)
