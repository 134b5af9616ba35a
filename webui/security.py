"""Which requests the app answers at all: the Host it is reached under and, for requests
that change something, the page they come from.

A page bound to localhost is still reachable from any web site through DNS rebinding (the
site's name is made to resolve to 127.0.0.1), and a form on any site can POST to it; the
Host and Origin headers are what give both away.
"""
from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = ("", "0.0.0.0", "::")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def host_name(host: str) -> str:
    """The name part of a Host header ("[::1]:8000" -> "::1", "Localhost." -> "localhost")."""
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 literal, with or without a port
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostPolicy:
    """The host names the app may be reached under.

    Always the loopback names; the address it is bound to; the names given with
    ``--allowed-host`` (a leading dot allows every subdomain).  Bound to every interface
    (0.0.0.0), the machine's own name and any address literal are allowed too: a DNS
    rebinding attack needs a name, so an address typed in the address bar is safe.
    """

    def __init__(self, bound_host: str | None = None, extra: Iterable[str] = ()):
        self.names = {name for name in LOOPBACK_NAMES}
        self.suffixes: set[str] = set()
        bound = host_name(bound_host or "")
        self.any_address = bound in WILDCARD_ADDRESSES and bound_host is not None
        if bound and not self.any_address:
            self.names.add(bound)
        if self.any_address:
            machine = socket.gethostname().lower()
            self.names.update({machine, f"{machine}.local", socket.getfqdn().lower()})
        for item in extra:
            for name in str(item).split(","):
                name = name.strip().lower()
                if name.startswith("."):
                    self.suffixes.add(name)
                elif name:
                    self.names.add(host_name(name))

    def allows(self, host: str | None) -> bool:
        name = host_name(host or "")
        if not name:
            return False
        if name in self.names or any(name.endswith(s) or name == s[1:] for s in self.suffixes):
            return True
        return self.any_address and _is_ip_literal(name)

    def describe(self) -> str:
        return ", ".join(sorted(self.names) + sorted(f"*{s}" for s in self.suffixes)) + \
            (" and any IP address" if self.any_address else "")


def cross_site(method: str, origin: str | None, fetch_site: str | None, scheme: str, host: str) -> bool:
    """Whether a request that changes something comes from another site's page.

    Browsers send Origin with every POST (and Sec-Fetch-Site); a request without them is
    not from a browser page (curl, a script) and is let through: the Host check applies.
    """
    if method.upper() in SAFE_METHODS:
        return False
    if fetch_site and fetch_site.lower() in ("cross-site", "same-site"):
        return True  # same-site: another port of this machine is another program
    if fetch_site and fetch_site.lower() == "same-origin":
        return False  # set by the browser itself, no page can forge it
    if origin is None:
        return False
    if origin == "null":  # a sandboxed frame or a file: page
        return True
    parts = urlsplit(origin)
    return (parts.scheme.lower(), (parts.netloc or "").lower()) != (scheme.lower(), host.lower())


# ---------------------------------------------------------------- who may write

# what changes the desk's records: tournaments, slips and corrections, the referee's log,
# taught tile sets. Scoring a photo, the standings and the projector view stay open to all.
WRITE_ENDPOINTS = frozenset({"api.teach", "api.referee", "api.new_tournament", "api.add_slip",
                             "api.correct_slip", "pages.new_tournament", "pages.slip"})
LOOPBACK_ADDRESSES = ("127.0.0.1", "::1")


def needs_login(method: str, endpoint: str | None, remote_address: str | None, logged_in: bool) -> bool:
    """Whether this request must first log in at the desk: a write from another machine than
    this one (the computer the desk runs on writes without it)."""
    if method.upper() in SAFE_METHODS or endpoint not in WRITE_ENDPOINTS or logged_in:
        return False
    try:
        return not ipaddress.ip_address(remote_address or "").is_loopback
    except ValueError:
        return True


def new_password() -> str:
    """A desk password to print once, when none was given and the page is served beyond this computer."""
    import secrets
    return secrets.token_urlsafe(9)


def password_hash(password: str) -> str:
    """How the desk's password is kept: Werkzeug's salted hash, never the password itself."""
    from werkzeug.security import generate_password_hash
    return generate_password_hash(password)


def password_matches(stored_hash: str | None, password: str) -> bool:
    from werkzeug.security import check_password_hash
    return bool(stored_hash) and check_password_hash(stored_hash, password)
