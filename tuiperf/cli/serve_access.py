"""Who may drive a served explorer: the holder of this launch's token, through a loopback name.

The explorer runs scenario files, which are Python code: whoever drives it runs code as its owner. So,
as Jupyter does for its notebooks, ``tuiperf serve`` makes a random token per launch and prints it in
the URL it says to open, and refuses:

- a page or WebSocket request without the token (every local account reaches 127.0.0.1, and so does
  the far end of an ``ssh -L`` tunnel);
- a ``Host`` that is not a loopback name (DNS rebinding: a page of ``evil.example`` whose name was made
  to resolve to 127.0.0.1 sends ``Host: evil.example:PORT``), unless the owner named it;
- a WebSocket whose ``Origin`` is another site's (a WebSocket is not bound by the same-origin policy:
  any page open in the owner's browser may try ``ws://127.0.0.1:PORT/ws``).

Pure functions of the request's headers and query, so the rules are tested without a server; the
server that applies them is :mod:`tuiperf.cli.serve_server`.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_PARAMETER = "token"


def new_token() -> str:
    """256 random bits, URL-safe: a token nobody guesses in the life of a server."""
    return secrets.token_urlsafe(32)


def host_name(host: str) -> str:
    """``Host`` or an origin's host part without its port, lowercased: ``[::1]:8000`` → ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 literal: [::1]:8000
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@dataclass(frozen=True)
class Access:
    """The rules of one launch: its token, its port, and the host names that may reach it."""

    token: str
    port: int
    extra_hosts: frozenset[str] = frozenset()

    @classmethod
    def for_launch(cls, port: int, allowed_hosts: Iterable[str] = ()) -> Access:
        return cls(new_token(), port, frozenset(host_name(h) for h in allowed_hosts))

    @property
    def hosts(self) -> frozenset[str]:
        return LOOPBACK_NAMES | self.extra_hosts

    def holds_token(self, given: str | None) -> bool:
        """Compared in constant time, so the answer's timing does not spell the token out."""
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def allows_host(self, host: str | None) -> bool:
        """The ``Host`` header: a loopback name or one the owner named (its port is the tunnel's affair)."""
        return bool(host) and host_name(host or "") in self.hosts

    def allows_origin(self, origin: str | None) -> bool:
        """A WebSocket's ``Origin``: none (not a browser: the token decides) or this server's own page."""
        if origin is None:
            return True
        parts = urlsplit(origin.strip())
        return parts.scheme in ("http", "https") and host_name(parts.netloc) in self.hosts

    def refusal(self, host: str | None, origin: str | None, token: str | None, websocket: bool) -> str | None:
        """Why a request is refused, in one line for the HTTP answer; None if it may go on."""
        if not self.allows_host(host):
            return "tuiperf serve answers only to a loopback name (127.0.0.1, localhost, [::1]) or --allow-host"
        if websocket and not self.allows_origin(origin):
            return "tuiperf serve refuses a connection from another site's page"
        if not self.holds_token(token):
            return "tuiperf serve needs the token: open the URL that `tuiperf serve` printed"
        return None

    def url(self, host: str) -> str:
        """The address to open, token included."""
        return f"http://{host}:{self.port}/?{TOKEN_PARAMETER}={self.token}"
