"""Who is asking, by network address: the key every per-client limit counts under.

The socket peer, unless it is one of ``ADDNORM_TRUSTED_PROXIES``: then the right-most address of
``X-Forwarded-For`` that is not itself a trusted proxy (each proxy appends the address it saw, so
the left-hand entries are whatever the client chose to write). By default no proxy is trusted
and the header is ignored: otherwise any client could name a fresh address per request.

An IPv6 client is keyed by its /64: one subscriber is routinely given a whole /64, so counting
single addresses would hand an attacker 2**64 of them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# A forwarded-for header longer than this is not walked (a proxy chain is a few entries).
_MAX_HOPS = 16


def parse_networks(spec: str) -> tuple[Network, ...]:
    """``"10.0.0.1, 192.168.0.0/16, ::1"``: addresses and CIDRs; raises ValueError naming the bad
    entry."""
    networks: list[Network] = []
    for entry in (part.strip() for part in spec.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"not an address or CIDR: {entry!r}") from None
    return tuple(networks)


def parse_address(text: str) -> Address | None:
    """An address as a peer or a forwarded-for entry writes it (a port and brackets allowed)."""
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "1.2.3.4:80"
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address: Address, proxies: Sequence[Network]) -> bool:
    return any(address.version == net.version and address in net for net in proxies)


def client_address(
    peer: str | None, forwarded_for: Iterable[str], proxies: Sequence[Network]
) -> Address | None:
    """The client's address, or None when the peer is unknown (a Unix socket)."""
    address = parse_address(peer) if peer else None
    if address is None or not proxies or not _trusted(address, proxies):
        return address
    hops = [hop for header in forwarded_for for hop in header.split(",")]
    for hop in reversed(hops[-_MAX_HOPS:]):
        forwarded = parse_address(hop)
        if forwarded is None:
            # Garbage where a trusted proxy wrote: take the last address we could trust.
            return address
        if not _trusted(forwarded, proxies):
            return forwarded
        address = forwarded
    return address


def client_key(address: Address | None) -> str:
    """The string a limit counts under: the address, an IPv6 one's /64."""
    if address is None:
        return "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def is_trusted_peer(peer: str | None, proxies: Sequence[Network]) -> bool:
    address = parse_address(peer) if peer else None
    return address is not None and _trusted(address, proxies)
