"""The server's HTTP/1.1 connections: uvicorn's h11 protocol with what it lacks for a server
on the internet (uvicorn 0.54 arms its keep-alive timer only after a response and cancels it
on any byte, counts idle connections against ``limit_concurrency`` and answers in plain text).

* A connection waiting for a request — just opened, or answered and kept alive — has
  ``idle_seconds`` for the request's line and headers to arrive in full, however slowly they
  trickle; then it is closed (with a 408 JSON when part of a request had come).
* One client (remote address) keeps at most ``max_client_connections`` open: a new one closes
  the client's oldest connection that is not being answered (a 503 JSON refuses the new one
  when all are), so nobody's idle connections lock out anyone else.
* Malformed HTTP (or a request line and headers still incomplete after HEADER_BYTES) is a
  400 JSON.

How many requests are answered at once, over all and per client, is the application's
(ctadesk.server.app), which counts requests, not connections.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol
from uvicorn.server import ServerState

from ctadesk.server.limits import HEADER_BYTES, Connections


def json_response(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 response ``{"error": message}`` that closes the connection, written
    without h11 (which answers nothing before a request has come)."""
    body = json.dumps({"error": message}).encode()
    return (f"HTTP/1.1 {status} {STATUS_PHRASES[status].decode()}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class GuardedProtocol(H11Protocol):
    """H11Protocol within ``limits`` (module docstring); protocol_class() sets them."""

    limits: Connections = Connections()

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.idle_timer: asyncio.TimerHandle | None = None
        self.opened = self.loop.time()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.watch()
        same = [other for other in self.connections if other is not self and isinstance(other, GuardedProtocol)
                and other.address == self.address]
        if len(same) >= self.limits.max_client_connections:
            waiting = [other for other in same if not other.answering]
            if waiting:
                min(waiting, key=lambda other: other.opened).drop()
            else:
                self.drop(json_response(503, f"this client has {len(same)} connections being answered; the "
                                              f"server keeps {self.limits.max_client_connections} per client"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_watch()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self.watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.watch()

    def send_400_response(self, msg: str) -> None:
        self.drop(json_response(400, f"the request is not valid HTTP/1.1 (or its line and headers are not "
                                      f"complete within {HEADER_BYTES} bytes)"))

    @property
    def address(self) -> str | None:
        """The client's address (its port left out: one machine, one client)."""
        return self.client[0] if self.client else None

    @property
    def answering(self) -> bool:
        """Whether a request of this connection is being answered."""
        return self.cycle is not None and not self.cycle.response_complete

    def watch(self) -> None:
        """Start the idle timer when the connection waits for a request and has none running;
        stop it as soon as a request is being answered."""
        if self.answering:
            self.stop_watch()
        elif self.idle_timer is None and not self.transport.is_closing():
            self.idle_timer = self.loop.call_later(self.limits.idle_seconds, self.idle_timeout)

    def stop_watch(self) -> None:
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None

    def idle_timeout(self) -> None:
        """No whole request within ``idle_seconds``: close, saying so if part of one came."""
        self.idle_timer = None
        partial = bool(self.conn.trailing_data[0])
        self.drop(json_response(408, f"the request's line and headers did not arrive within "
                                      f"{self.limits.idle_seconds:g} s") if partial else b"")

    def drop(self, farewell: bytes = b"") -> None:
        """Write ``farewell`` (a whole response, or nothing) and close the connection."""
        self.stop_watch()
        if not self.transport.is_closing():
            if farewell:
                self.transport.write(farewell)
            self.transport.close()


def protocol_class(limits: Connections) -> type[GuardedProtocol]:
    """The protocol uvicorn makes each connection with (``http=``), within ``limits``."""
    return type("Protocol", (GuardedProtocol,), {"limits": limits})

