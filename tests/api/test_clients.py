"""Who a client is (api.clients): the socket peer, X-Forwarded-For only from trusted proxies, the
right-most untrusted hop, IPv6 by /64."""

from __future__ import annotations

import pytest

from api.clients import client_address, client_key, parse_networks

PROXIES = parse_networks("10.0.0.1, 192.168.0.0/16, ::1")


def key(peer: str | None, *forwarded: str, proxies: str | None = None) -> str:
    nets = PROXIES if proxies is None else parse_networks(proxies)
    return client_key(client_address(peer, list(forwarded), nets))


def test_without_trusted_proxies_the_header_is_ignored() -> None:
    assert key("203.0.113.9", "1.2.3.4", proxies="") == "203.0.113.9"
    assert key("203.0.113.9", "1.2.3.4") == "203.0.113.9"  # the peer is no trusted proxy


def test_a_trusted_proxy_names_the_right_most_untrusted_hop() -> None:
    # The client wrote "6.6.6.6" itself; the proxy appended the address it saw.
    assert key("10.0.0.1", "6.6.6.6, 198.51.100.7") == "198.51.100.7"
    # Two trusted proxies in a chain, and the header split over two lines.
    assert key("10.0.0.1", "6.6.6.6, 198.51.100.7", "192.168.3.4") == "198.51.100.7"
    # Every hop trusted: the left-most one seen.
    assert key("10.0.0.1", "192.168.1.1") == "192.168.1.1"
    # Garbage where a proxy wrote: the last address that could be trusted.
    assert key("10.0.0.1", "198.51.100.7, not-an-address") == "10.0.0.1"
    assert key("10.0.0.1") == "10.0.0.1"


def test_ports_and_brackets_and_ipv6_prefixes() -> None:
    assert key("10.0.0.1", "198.51.100.7:4431") == "198.51.100.7"
    assert key("::1", "[2001:db8:1:2:3:4:5:6]:443") == "2001:db8:1:2::/64"
    assert key("2001:db8:1:2::9") == key("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert key("::ffff:203.0.113.9") == "203.0.113.9"
    assert key(None) == "unknown"


def test_a_bad_proxy_setting_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="not-a-net"):
        parse_networks("10.0.0.1, not-a-net")
    from api.config import Settings

    with pytest.raises(ValueError, match="not-a-net"):
        Settings(trusted_proxies="not-a-net")
