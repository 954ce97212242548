"""What one request, one client and the server as a whole may ask of the machine (no web
framework here, so the command line reads the defaults without the ``server`` extra)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: bytes of a request's line and headers received still incomplete (h11's buffer; more: 400)
HEADER_BYTES = 16_384


def _all_positive(limits: DataclassInstance) -> None:
    """ValueError naming the first field of the dataclass ``limits`` that is not positive."""
    for field in dataclasses.fields(limits):
        if not getattr(limits, field.name) > 0:
            raise ValueError(f"{field.name} {getattr(limits, field.name)}: it must be positive")


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one request, and one client, may ask of the application.

    max_body             bytes of a request body
    body_seconds         wall-clock seconds a request body may take to arrive (408 past it)
    max_cells            cells of a table
    request_seconds      wall-clock seconds a request may take, waiting for a worker included
                         (the solve's own limit is the services' ``time_limit``)
    max_requests         requests answered at once over all clients (idle connections do not
                         count); more are answered 503
    max_client_requests  requests answered at once for one client (remote address); more 503
    """

    max_body: int = 16_384
    body_seconds: float = 10.0
    max_cells: int = 50_000
    request_seconds: float = 60.0
    max_requests: int = 64
    max_client_requests: int = 8

    def __post_init__(self) -> None:
        _all_positive(self)


@dataclasses.dataclass(frozen=True)
class Connections:
    """What one connection may hold of the server (ctadesk.server.protocol).

    idle_seconds            seconds a connection may wait for a request's line and headers to
                            arrive in full, from its opening or from the previous response:
                            a connection that sends nothing, or its headers slowly, is closed
    max_client_connections  connections open at once from one client (remote address); past it
                            the client's oldest connection that is not being answered is closed
    shutdown_seconds        seconds a stopping server waits for the requests being answered
    """

    idle_seconds: float = 5.0
    max_client_connections: int = 32
    shutdown_seconds: float = 60.0

    def __post_init__(self) -> None:
        _all_positive(self)
