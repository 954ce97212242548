"""What one request, and the server as a whole, may ask of the machine (no web framework here,
so the command line reads the defaults without the ``server`` extra)."""

from __future__ import annotations

import dataclasses

#: connections served at once; uvicorn answers any more with 503 at once
MAX_CONNECTIONS = 64
#: seconds an idle keep-alive connection stays open
KEEP_ALIVE = 5


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one request may ask of the server.

    max_body         bytes of a request body
    max_cells        cells of a table
    request_seconds  wall-clock seconds a request may take, waiting for a worker included
                     (the solve's own limit is the services' ``time_limit``)
    """

    max_body: int = 16_384
    max_cells: int = 50_000
    request_seconds: float = 60.0

    def __post_init__(self) -> None:
        for name in ("max_body", "max_cells", "request_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} {getattr(self, name)}: it must be positive")
