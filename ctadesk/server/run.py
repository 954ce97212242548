"""Running the table server: uvicorn, on a loopback address unless the office says otherwise,
its connections within ctadesk.server.limits.Connections (ctadesk.server.protocol)."""

from __future__ import annotations

import contextlib
import ipaddress
import math

import uvicorn
from starlette.types import ASGIApp

from ctadesk.engine.errors import CTAError
from ctadesk.server.limits import HEADER_BYTES, Connections
from ctadesk.server.protocol import protocol_class


def is_loopback(host: str) -> bool:
    """Whether ``host`` ("127.0.0.1", "::1", "localhost", ...) is reachable from this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def remote_warning(host: str, allow_remote: bool) -> str | None:
    """None for a loopback ``host``; for any other, the warning to give when ``allow_remote``,
    else CTAError naming it."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise CTAError(f"--host {host} is not a loopback address: the server would answer anyone who can reach "
                       "this machine; give --allow-remote to serve there (behind the office's proxy)")
    return (f"serving on {host}: anyone who can reach this machine can request tables; put the server behind "
            "the office's proxy (TLS, authentication, rate limits)")


def server_config(app: ASGIApp, host: str, port: int, connections: Connections = Connections()) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` on ``host``:``port`` (0: a free port): the guarded
    h11 protocol, no WebSocket, no concurrency limit of uvicorn's (it counts idle connections
    and answers in plain text; the application counts requests, ctadesk.server.app)."""
    return uvicorn.Config(app, host=host, port=port, http=protocol_class(connections), ws="none",
                          limit_concurrency=None, h11_max_incomplete_event_size=HEADER_BYTES,
                          timeout_keep_alive=math.ceil(connections.idle_seconds),
                          timeout_graceful_shutdown=math.ceil(connections.shutdown_seconds),
                          server_header=False, log_level="info")


def serve(app: ASGIApp, host: str, port: int, connections: Connections = Connections()) -> None:
    """Serve ``app`` with uvicorn on ``host``:``port`` until interrupted (no check of the host:
    remote_warning is the caller's).  SIGINT (Ctrl-C) and SIGTERM are the way a server is stopped:
    uvicorn shuts down gracefully and (0.29 on) raises KeyboardInterrupt again after a SIGINT,
    which here ends the call normally."""
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(server_config(app, host, port, connections)).run()
