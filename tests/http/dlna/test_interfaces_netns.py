"""Only the configured interfaces, in private network namespaces made by the test (root only).

The server's namespace has ``lo`` (configured: ``[dlna] interfaces = ["lo"]``) and one end of a veth
pair with an address of its own (not configured); a second namespace, the "other network", holds the
pair's other end.  The server binds every address (``0.0.0.0``), as a LOCATION on a LAN needs.  From
the other network: no announcement is heard, a unicast M-SEARCH sent to the server's address there
(async-upnp-client's ``upnp-client search --target``) gets no answer, and ``/dlna/description.xml``
through that address is 404 while the server's other routes answer there; from ``lo`` all of it works.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reelhouse.media.dlna import ssdp

from ...actors.test_dlna_ssdp import (  # noqa: F401 (netns: the fixture)
    MEDIA_SERVER,
    PORT,
    STEP_TIMEOUT_S,
    UPNP_CLIENT,
    _ip,
    heard,
    in_netns,
    messages,
    netns,
    start_server,
    wait_for,
    wait_listening,
)

SERVER_SIDE, OTHER_SIDE = "10.99.0.1", "10.99.0.2"  # the veth pair's ends: the server's, the other network's
NO_ANSWER_WAIT_S = 4  # upnp-client's --timeout: an answer comes within the search's MX (2 s)
PROBE_USN = "uuid:probe-of-the-other-network"


@pytest.fixture
def other_network(netns: str) -> Iterator[str]:
    """A second namespace joined to the server's by a veth pair: the server's end is not configured."""
    name = f"rhlan{os.getpid()}{secrets.token_hex(3)}"
    assert _ip("netns", "add", name).returncode == 0
    try:
        steps = [
            (netns, "link", "add", "rhlan0", "type", "veth", "peer", "name", "rhlan1", "netns", name),
            (netns, "addr", "add", f"{SERVER_SIDE}/24", "dev", "rhlan0"), (netns, "link", "set", "rhlan0", "up"),
            (name, "link", "set", "lo", "up"), (name, "addr", "add", f"{OTHER_SIDE}/24", "dev", "rhlan1"),
            (name, "link", "set", "rhlan1", "up"), (name, "route", "add", "224.0.0.0/4", "dev", "rhlan1"),
        ]  # fmt: skip
        for space, *command in steps:
            done = _ip("netns", "exec", space, "ip", *command)
            assert done.returncode == 0, done.stderr
        yield name
    finally:
        _ip("netns", "del", name)  # the veth pair goes with it


def curl_status(space: str, url: str) -> str:
    done = subprocess.run(in_netns(space, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", url),
                          capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)  # fmt: skip
    return done.stdout


def unicast_search(space: str, bind: str, target: str, timeout: int) -> list[dict[str, str]]:
    """The answers ``upnp-client search`` got to an M-SEARCH sent to ``target``:1900 (not the group)."""
    done = subprocess.run(
        in_netns(space, UPNP_CLIENT, "--timeout", str(timeout), "search", "--bind", bind, "--target", target,
                 "--search_target", MEDIA_SERVER),
        capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [{k.lower(): v for k, v in answer.items()} for answer in messages(done.stdout)]


def send_probe_notify(space: str) -> None:
    """An ssdp:alive of a made-up device, multicast on the other network: its listener hears multicast."""
    datagram = ssdp.notify("ssdp:alive", PROBE_USN, PROBE_USN, "http://10.99.0.2/x.xml", "probe")
    script = ("import socket, sys; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
              "s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[1])); "
              "s.sendto(sys.argv[2].encode(), ('239.255.255.250', 1900))")  # fmt: skip
    subprocess.run(in_netns(space, sys.executable, "-c", script, OTHER_SIDE, datagram.decode()),
                   timeout=STEP_TIMEOUT_S, check=True)  # fmt: skip


def test_an_unconfigured_interface_gets_no_announcement_no_search_answer_and_no_dlna_route(
    netns: str, other_network: str, tmp_path: Path
) -> None:
    heard_path = tmp_path / "other-network.jsonl"
    with open(heard_path, "wb") as listened:
        listener = subprocess.Popen(in_netns(other_network, UPNP_CLIENT, "advertisements", "--bind", OTHER_SIDE),
                                    stdout=listened, stderr=subprocess.STDOUT)  # fmt: skip
    server = None
    try:
        wait_listening(other_network)  # the listener is in the group before the server's first alive
        server = start_server(netns, tmp_path, bind=f"0.0.0.0:{PORT}")
        # The configured interface: a unicast search is answered, the description is served.
        answers = unicast_search(netns, "127.0.0.1", "127.0.0.1", NO_ANSWER_WAIT_S)
        assert any(a.get("location") == f"http://127.0.0.1:{PORT}/dlna/description.xml" for a in answers), answers
        assert curl_status(netns, f"http://127.0.0.1:{PORT}/dlna/description.xml") == "200"
        # The other network: the same search to the server's address there goes unanswered, DLNA is absent.
        assert unicast_search(other_network, OTHER_SIDE, SERVER_SIDE, NO_ANSWER_WAIT_S) == []
        assert curl_status(other_network, f"http://{SERVER_SIDE}:{PORT}/dlna/description.xml") == "404"
        assert curl_status(other_network, f"http://{SERVER_SIDE}:{PORT}/health") == "200"  # the server is there
        assert curl_status(netns, f"http://{SERVER_SIDE}:{PORT}/dlna/description.xml") == "404"  # by address
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=STEP_TIMEOUT_S) == 0  # its byebye has gone out too
        send_probe_notify(other_network)
        wait_for(lambda: any(n.get("usn") == PROBE_USN for n in heard(heard_path)))
    finally:
        if server is not None and server.poll() is None:
            server.kill()
        listener.send_signal(signal.SIGTERM)
        listener.wait(timeout=STEP_TIMEOUT_S)
    assert [n for n in heard(heard_path) if n.get("usn") != PROBE_USN] == []  # nothing of the server's
