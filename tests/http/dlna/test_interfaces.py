"""http/dlna/interfaces.py without a network namespace: the local address a request was sent to, and an
interface's addresses (its end-to-end test, from another network, is test_interfaces_netns.py)."""

from __future__ import annotations

from ipaddress import ip_address

from reelhouse.http.dlna.interfaces import interface_addresses, local_address, relayed_by_proxy


def test_the_local_address_is_the_scopes_server_an_ipv4_mapped_one_as_ipv4() -> None:
    assert local_address({"server": ("192.168.1.5", 8096)}) == ip_address("192.168.1.5")
    assert local_address({"server": ("::ffff:192.168.1.5", 8096)}) == ip_address("192.168.1.5")
    assert local_address({"server": ("fe80::1%eth0", 8096)}) == ip_address("fe80::1")
    assert local_address({"server": ("/run/reelhouse.sock", None)}) is None  # a Unix socket: no address
    assert local_address({"server": None}) is None and local_address({}) is None


def test_an_interfaces_addresses_are_read_and_an_unknown_one_has_none() -> None:
    assert ip_address("127.0.0.1") in interface_addresses(["lo"])
    assert interface_addresses(["no-such-if0"]) == frozenset()


def test_a_request_relayed_by_a_reverse_proxy_is_told_by_its_headers() -> None:
    for header in (b"forwarded", b"x-forwarded-for", b"x-real-ip"):
        assert relayed_by_proxy({"headers": [(b"host", b"tv"), (header, b"203.0.113.9")]})
    assert not relayed_by_proxy({"headers": [(b"host", b"tv"), (b"user-agent", b"Samsung DLNA")]})
    assert not relayed_by_proxy({})
