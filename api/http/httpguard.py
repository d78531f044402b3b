"""What HTTP lets in before a route runs: bounded, counted as it arrives, authenticated first.

- ``BodyGuard`` (ASGI middleware) counts request body bytes as they arrive, whatever the framing
  (a chunked body has no Content-Length to trust), and refuses at the first byte over the limit,
  so nothing past it is ever buffered. A stranger (no valid token) may send only a small body
  (creating a learner needs a few bytes); a larger one is authenticated before a byte of it is
  read. The whole body must arrive within a deadline, so a client that dribbles it cannot hold
  a request open forever.
- ``BoundedH11Protocol`` closes a connection whose request line and headers have not fully
  arrived within a few seconds (uvicorn's own keep-alive timer starts only after a first
  response and is reset by any byte), and caps each client address's open connections and
  those waiting for a request head.
- ``SERVER_LIMITS``: the uvicorn settings that bound header size and idle connections.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import h11
from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from api.web.security import SESSION_COOKIE

# Far above the 64 KiB code limit (JSON escaping can double it) but stops a body that would
# only waste memory before validation could refuse it.
MAX_BODY_BYTES = 1 << 20
# What a request without a valid token may send: POST /users is {"name": ...}.
ANONYMOUS_BODY_BYTES = 4 << 10
BODY_SECONDS = 30.0
HEAD_SECONDS = 10.0
# Request line plus headers (h11 answers 400 beyond it); a bearer token is 43 characters.
MAX_HEAD_BYTES = 16 << 10
# An idle keep-alive connection is closed after this. Above the 5 s after which httpx (our
# client's library, and the benchmarks') drops an idle connection itself: with both at 5 s, a
# client could send its next request on a connection at the moment the server closes it, and
# that request is lost, not answered. Below HEAD_SECONDS, which bounds the idle time anyway.
KEEP_ALIVE_SECONDS = 8
# Connections at once; beyond it uvicorn answers 503 at once instead of queueing memory: with
# MAX_BODY_BYTES each, bodies in flight stay under 256 MiB.
MAX_CONNECTIONS = 256

SERVER_LIMITS: dict[str, Any] = {
    "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
    "timeout_keep_alive": KEEP_ALIVE_SECONDS,
    "limit_concurrency": MAX_CONNECTIONS,
}


class BodyRefused(HTTPException):
    """Raised from ``receive`` inside the app; FastAPI re-raises HTTPExceptions met while reading
    a body, so the answer keeps its status instead of becoming 'error parsing the body'."""


def _token(headers: Headers) -> tuple[str, str] | None:
    """The credential a request carries: ("bearer", token) or ("session", cookie)."""
    scheme, _, credentials = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer":
        token = credentials.strip()
        return ("bearer", token) if token else None
    # A signed-in browser's session cookie (api.learning.sessions): its forms (code, drafts) may
    # send what a bearer client may, not only what an anonymous one may.
    cookie = cookie_parser(headers.get("cookie", "")).get(SESSION_COOKIE)
    return ("session", cookie) if cookie and len(cookie) <= 128 else None


def _token_is_valid(scope: Scope, credential: tuple[str, str]) -> bool:
    from datetime import UTC, datetime

    from sqlmodel import Session, select

    from api.http.deps import hash_token
    from api.learning import sessions
    from api.models import User

    kind, secret = credential
    ctx = scope["app"].state.ctx
    with Session(ctx.engine) as session:
        if kind == "session":
            return sessions.find(session, secret, now=datetime.now(UTC)) is not None
        found = session.exec(select(User.id).where(User.token_hash == hash_token(secret))).first()
    return found is not None


def head_bytes(scope: Scope) -> int:
    """The request line and headers as they came on the wire, near enough: each header's name
    and value with ': ' and CRLF, the method, target and version with their separators."""
    line = len(scope["method"]) + len(scope.get("raw_path") or b"") + 12
    line += len(scope.get("query_string") or b"") + 1
    return line + sum(len(name) + len(value) + 4 for name, value in scope["headers"])


class BodyGuard:
    """Plain ASGI: the decorator-style HTTP middleware costs about a millisecond per request in
    task plumbing."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int = MAX_BODY_BYTES,
        anonymous_bytes: int = ANONYMOUS_BODY_BYTES,
        body_seconds: float = BODY_SECONDS,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.anonymous_bytes = anonymous_bytes
        self.body_seconds = body_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if head_bytes(scope) > MAX_HEAD_BYTES:
            # h11 bounds only a head still arriving: one that came whole in a single read
            # (up to uvicorn's 64 KiB) was parsed however large. The bound holds either way.
            await JSONResponse(
                {"detail": f"Request head too large (limit {MAX_HEAD_BYTES} bytes)"},
                status_code=431,
            )(scope, receive, send)
            return
        headers = Headers(scope=scope)
        token = _token(headers)
        authenticated: bool | None = None  # looked up once, only when a body needs it

        async def allowed_bytes() -> int:
            nonlocal authenticated
            if authenticated is None:
                authenticated = token is not None and await run_in_threadpool(
                    _token_is_valid, scope, token
                )
            return self.max_bytes if authenticated else self.anonymous_bytes

        async def refuse(status: int, detail: str) -> None:
            await JSONResponse({"detail": detail}, status_code=status)(scope, receive, send)

        length = headers.get("content-length")
        declared = int(length) if length is not None and length.isdigit() else 0
        if declared > self.max_bytes:
            await refuse(413, f"Request body too large (limit {self.max_bytes} bytes)")
            return
        if declared > self.anonymous_bytes and declared > await allowed_bytes():
            await refuse(401, "A body this large needs 'Authorization: Bearer <token>'")
            return

        received = 0
        body_done = False
        deadline = time.monotonic() + self.body_seconds
        started = False

        async def counted_receive() -> Message:
            nonlocal received, body_done
            if body_done:
                # After the body: a streaming response waiting for the client to go away.
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), deadline - time.monotonic())
            except TimeoutError:
                raise BodyRefused(408, "The request body did not arrive in time") from None
            if message["type"] == "http.request":
                body_done = not message.get("more_body", False)
                received += len(message.get("body", b""))
                if received > self.anonymous_bytes and received > await allowed_bytes():
                    if authenticated:
                        raise BodyRefused(413, f"Request body too large (limit {self.max_bytes})")
                    raise BodyRefused(
                        401, "A body this large needs 'Authorization: Bearer <token>'"
                    )
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyRefused as exc:
            # Raised where no HTTP exception handler runs (outside a FastAPI route's body read).
            if not started:
                await refuse(exc.status_code, str(exc.detail))


class _PerAddress:
    """The connections of each client address, in the order they last began waiting for a
    request head. Event-loop only (no lock): protocols are called on uvicorn's one loop."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}
        self.waiting: dict[str, dict[BoundedH11Protocol, None]] = {}

    def clear(self) -> None:
        self.open.clear()
        self.waiting.clear()


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is still incomplete
    ``HEAD_SECONDS`` after it opened or after its previous response, and holding each client
    address to ``per_address`` open connections, of which at most ``idle_per_address`` are
    waiting for a request head (idle keep-alive or half-sent).

    Over the open cap a new connection is closed at once. Over the waiting cap the address's
    connection that has waited longest is closed: so one address holding hundreds of half-sent
    heads holds at most ``idle_per_address`` of the server's ``MAX_CONNECTIONS``, and a client
    of the same address (a classroom behind one NAT) still gets in, at the cost of the oldest
    idle socket. Peers in ``trusted_proxies`` are exempt: a proxy in front carries every
    client's connection and must bound them itself (SECURITY.md)."""

    head_seconds = HEAD_SECONDS
    per_address = 64
    idle_per_address = 16
    trusted_proxies: tuple[Any, ...] = ()
    _clients = _PerAddress()
    _head_timer: asyncio.TimerHandle | None = None
    _address: str | None = None

    @classmethod
    def configure(cls, settings: Any) -> None:
        cls.per_address = settings.connections_per_address
        cls.idle_per_address = settings.idle_connections_per_address
        cls.trusted_proxies = settings.proxies

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm_head_timer()
        from api.clients import client_key, is_trusted_peer, parse_address

        peer = self.client[0] if self.client else None
        if peer is None or is_trusted_peer(peer, self.trusted_proxies):
            return
        address = client_key(parse_address(peer))
        clients = self._clients
        if clients.open.get(address, 0) >= self.per_address:
            self._drop()
            return
        self._address = address
        clients.open[address] = clients.open.get(address, 0) + 1
        self._wait_for_head()

    def _wait_for_head(self) -> None:
        if self._address is None:
            return
        waiting = self._clients.waiting.setdefault(self._address, {})
        waiting.pop(self, None)
        waiting[self] = None
        while len(waiting) > self.idle_per_address:
            oldest = next(iter(waiting))
            del waiting[oldest]
            oldest._drop()

    def _head_arrived(self) -> None:
        if self._address is None:
            return
        waiting = self._clients.waiting.get(self._address)
        if waiting is not None:
            waiting.pop(self, None)
            if not waiting:
                del self._clients.waiting[self._address]

    def send_400_response(self, msg: str) -> None:
        # A client that broke the framing after its answer had begun (it kept streaming a body
        # already refused with a 413, then sent bytes HTTP cannot parse): this connection can
        # carry no second response, only be closed. uvicorn tried to write one, and h11's
        # refusal was logged as a traceback for every such client.
        if self.conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            self.transport.close()
            return
        super().send_400_response(msg)

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._head_arrived()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_timer()
        if not self.transport.is_closing():
            self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        if self._address is not None:
            self._head_arrived()
            left = self._clients.open.get(self._address, 1) - 1
            if left > 0:
                self._clients.open[self._address] = left
            else:
                self._clients.open.pop(self._address, None)
            self._address = None
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = None

    def _head_timed_out(self) -> None:
        # A request whose head arrived has a cycle still running (its body has its own deadline
        # in BodyGuard); only a connection waiting for a head is closed.
        idle = self.cycle is None or self.cycle.response_complete
        if idle:
            self._drop()

    def _drop(self) -> None:
        """Close this connection and stop counting it among the server's at once.

        uvicorn answers 503 to every client while it counts ``MAX_CONNECTIONS`` connections,
        and a closed one stays counted until the loop reports it lost, a turn or two later. One
        address opening hundreds of sockets while the loop is busy has them all accepted in one
        turn, each closing an older one of its own: counted until lost, they made a client of
        another address get 503s (15 of 247 requests in bursts of 300 sockets, before this)."""
        if not self.transport.is_closing():
            self.transport.close()
        self.connections.discard(self)


async def invalid_text(request: Request, exc: Exception) -> JSONResponse:
    """A lone surrogate (``"\\ud800"``: valid JSON, not encodable as UTF-8) that reached the
    database or a response in a field nothing sanitises (submissions are sanitised in
    ``api.learning.submissions``): the client's error, not the server's."""
    return JSONResponse(
        {"detail": "The request holds text that is not valid Unicode (a lone surrogate)"},
        status_code=422,
    )
