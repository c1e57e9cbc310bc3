"""Where crawlplan's HTTP connections may go: only to public addresses, checked when each
connection is opened, so every redirect hop and every retry is checked and a second DNS answer
cannot slip in between the check and the connect (the socket goes to the address checked).

Listings and redirects are data from the web; without this a listing entry or a redirect from a
trusted base could send requests to the cloud metadata service (169.254.169.254) or to services
on the executors' private network. ``remote.allow_private_addresses`` switches it off (tests on
127.0.0.1, an intranet mirror).
"""

from __future__ import annotations

import ipaddress
import socket

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool


class AddressRefused(OSError):
    """A host that resolves to an address crawlplan does not connect to (loopback, private, metadata)."""


def forbidden_address(address: str) -> str | None:
    """Why crawlplan does not connect to ``address`` (an IP literal), or None when it is public.

    Anything that is not a global unicast address is refused: loopback (127/8, ::1), private
    (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16 with the cloud metadata
    service 169.254.169.254, fe80::/10), shared (100.64/10), unspecified (0.0.0.0, ::),
    reserved, documentation and multicast ranges (all that ``ipaddress`` does not call global);
    an IPv4-mapped IPv6 address counts as its IPv4 address.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for label, hit in (("loopback", ip.is_loopback), ("link-local", ip.is_link_local),
                       ("unspecified", ip.is_unspecified), ("multicast", ip.is_multicast),
                       ("private", ip.is_private), ("not global", not ip.is_global)):
        if hit:
            return label
    return None


class _CheckedConnection:
    """Opens its socket only to addresses :func:`forbidden_address` allows, and to exactly those
    it checked (the IP is connected to; TLS still verifies the host name)."""

    def _new_conn(self):
        host = self._dns_host
        try:
            infos = socket.getaddrinfo(host, self.port, 0, socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise urllib3.exceptions.NameResolutionError(self.host, self, exc) from exc
        addresses = list(dict.fromkeys(info[4][0] for info in infos))
        for address in addresses:
            why = forbidden_address(address)
            if why:
                raise AddressRefused(f"{host[:100]!r} resolves to {address} ({why}); crawlplan does not connect "
                                     f"there unless remote.allow_private_addresses is set")
        last: Exception | None = None
        for address in addresses:
            self._dns_host = address
            try:
                return super()._new_conn()
            except (urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError) as exc:
                last = exc
            finally:
                self._dns_host = host
        raise last or AddressRefused(f"{host[:100]!r} resolves to no address")


class _CheckedHTTPConnection(_CheckedConnection, HTTPConnection):
    pass


class _CheckedHTTPSConnection(_CheckedConnection, HTTPSConnection):
    pass


class CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _CheckedHTTPConnection


class CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


def address_refusal(exc: BaseException | None) -> AddressRefused | None:
    """The :class:`AddressRefused` urllib3 wrapped (in ProtocolError, MaxRetryError), if any."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, AddressRefused):
            return exc
        inner = [a for a in getattr(exc, "args", ()) if isinstance(a, BaseException)]
        exc = getattr(exc, "reason", None) or (inner[0] if inner else None) or exc.__cause__ or exc.__context__
        seen += 1
    return None
