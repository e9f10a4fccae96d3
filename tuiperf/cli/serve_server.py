"""textual-serve's server behind :mod:`tuiperf.cli.serve_access`'s rules: the one module that leans on
how textual-serve builds its web application and page (checked against textual-serve 1.1.3).

- ``_make_app`` (private) is extended with one aiohttp middleware that applies the rules to every
  request but the library's own static files (which hold nothing of the user's).
- The page textual-serve renders names its WebSocket as ``data-session-websocket-url="ws://…/ws"`` and
  its files as ``{public_url}/static/``; its script appends ``?width=W&height=H`` to that WebSocket URL.
  The page is rewritten to carry the token in the WebSocket's query and to name both relative to the
  address the browser used (so a tunnel on another local port works); a page whose markup changed is
  refused whole (fail closed) rather than served without its token.
- Nothing logs the token: aiohttp's access log (which would print every query) is switched off.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from aiohttp import web
from aiohttp.web_runner import GracefulExit
from textual_serve.server import Server

from tuiperf.cli.serve_access import TOKEN_PARAMETER, Access

log = logging.getLogger("tuiperf.serve")
WEBSOCKET_ATTRIBUTE = 'data-session-websocket-url="'
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def split_token(query_string: str) -> tuple[str | None, str]:
    """The token and the rest of a query. textual-serve's script appends ``?width=…`` to the
    WebSocket URL it is given, so ``token=T?width=80&height=24`` is read as ``token=T&width=80&…``."""
    pairs = parse_qsl(query_string.replace("?", "&"), keep_blank_values=True)
    tokens = [value for key, value in pairs if key == TOKEN_PARAMETER]
    rest = urlencode([(key, value) for key, value in pairs if key != TOKEN_PARAMETER])
    return (tokens[0] if len(tokens) == 1 else None), rest


class GuardedServer(Server):
    """A textual-serve ``Server`` that answers only the holder of ``access.token``."""

    def __init__(self, command: str, access: Access, host: str, title: str) -> None:
        self.access = access
        super().__init__(command, host=host, port=access.port, title=title, public_url=f"http://{host}:{access.port}")

    def initialize_logging(self) -> None:
        super().initialize_logging()
        logging.getLogger("aiohttp.access").disabled = True  # it prints each request's query: the token

    async def on_startup(self, app: web.Application) -> None:
        """Quiet: ``tuiperf serve`` prints its own line, once it knows the port is free."""

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard)
        return app

    def serve(self, debug: bool = False) -> None:
        # textual-serve stops on INT and TERM; a closed terminal (HUP) must stop it the same way, so that
        # its explorers are asked to quit rather than outliving it.
        signal.signal(signal.SIGHUP, _request_exit)
        super().serve(debug)

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith("/static/"):
            if not self.access.allows_host(request.headers.get("Host")):
                return _refused(request, "tuiperf serve answers only to a loopback name or --allow-host")
            return await handler(request)
        token, rest = split_token(request.query_string)
        websocket = request.path == "/ws"
        why = self.access.refusal(request.headers.get("Host"), request.headers.get("Origin"), token, websocket)
        if why is not None:
            return _refused(request, why)
        response = await handler(request.clone(rel_url=request.rel_url.with_query(rest)))
        if request.path == "/" and isinstance(response, web.Response):
            return self._page_with_token(request, response)
        return response

    def _page_with_token(self, request: web.Request, response: web.Response) -> web.Response:
        page = response.text or ""
        start = page.find(WEBSOCKET_ATTRIBUTE)
        end = page.find('"', start + len(WEBSOCKET_ATTRIBUTE)) if start >= 0 else -1
        if end < 0:
            log.error("tuiperf serve: textual-serve's page has no WebSocket address to add the token to")
            return web.Response(status=500, text="tuiperf serve cannot add its token to this textual-serve's page")
        websocket_url = f"ws://{request.host}/ws?{urlencode({TOKEN_PARAMETER: self.access.token})}"
        page = page[: start + len(WEBSOCKET_ATTRIBUTE)] + websocket_url + page[end:]
        page = page.replace(f"{self.public_url}/static/", "/static/")
        answer = web.Response(text=page, content_type="text/html")
        answer.headers.update(PAGE_HEADERS)
        return answer


PAGE_HEADERS = {
    "Cache-Control": "no-store",  # its address holds the token
    "Referrer-Policy": "no-referrer",  # the page loads a web font: it must not send its address along
    "Content-Security-Policy": "frame-ancestors 'none'",  # no other page frames it to catch clicks
    "X-Frame-Options": "DENY",
}


def _refused(request: web.Request, why: str) -> web.Response:
    log.warning("tuiperf serve: refused %s %s (%s)", request.method, request.path, why)  # the path, never the query
    return web.Response(status=403, text=why + "\n")


def _request_exit(*_: Any) -> None:
    raise GracefulExit()


def port_is_free(host: str, port: int) -> OSError | None:
    """Bind and release the port first, so that a busy port is said before anything claims to serve."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc
    return None
