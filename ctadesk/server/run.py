"""Running the table server: uvicorn, on a loopback address unless the office says otherwise."""

from __future__ import annotations

import ipaddress

from starlette.applications import Starlette

from ctadesk.engine.errors import CTAError
from ctadesk.server.limits import KEEP_ALIVE, MAX_CONNECTIONS


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


def serve(app: Starlette, host: str, port: int, max_connections: int = MAX_CONNECTIONS) -> None:
    """Serve ``app`` with uvicorn on ``host``:``port`` until interrupted (no check of the host:
    remote_warning is the caller's)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, limit_concurrency=max_connections, timeout_keep_alive=KEEP_ALIVE,
                server_header=False, log_level="info")
