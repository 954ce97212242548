"""The services a server's worker threads publish tables with.

A service holds one connection to the sense store, which one thread at a time may use
(ctadesk.app.online.store).  The pool keeps one service per worker: a request takes an idle one
for the length of its solve, in its worker thread, and gives it back; requests in different
threads agree through the store's transactions exactly as separate processes do (Castro & González 2011, §4,
consistency on output).
"""

from __future__ import annotations

import contextlib
import queue
from collections.abc import Callable, Iterator

from ctadesk.app.online import OnlineService
from ctadesk.engine.table.microdata import Microdata

#: seconds close() waits for a service still at work (its solve is bounded by its time limit)
CLOSE_WAIT = 30.0


class ServicePool:
    """``size`` services made by ``make`` (each with its own store connection); a context
    manager that closes them."""

    def __init__(self, make: Callable[[], OnlineService], size: int) -> None:
        if size < 1:
            raise ValueError(f"a pool of {size} services: it needs at least one")
        services: list[OnlineService] = []
        try:
            for _ in range(size):
                services.append(make())
        except BaseException:
            for service in services:
                service.close()
            raise
        self.size = size
        self.microdata: Microdata = services[0].microdata
        self.measure: str = services[0].measure
        self._idle: queue.Queue[OnlineService] = queue.Queue()
        for service in services:
            self._idle.put(service)

    @contextlib.contextmanager
    def service(self, timeout: float) -> Iterator[OnlineService]:
        """An idle service for the calling thread alone, given back on leaving; TimeoutError when
        none is idle within ``timeout`` seconds."""
        try:
            service = self._idle.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no service was free within {timeout:g} s") from None
        try:
            yield service
        finally:
            self._idle.put(service)

    def close(self) -> None:
        """Close every service, waiting up to CLOSE_WAIT seconds for those at work (a store left
        open is closed with the process; SQLite loses nothing committed)."""
        for _ in range(self.size):
            try:
                self._idle.get(timeout=CLOSE_WAIT).close()
            except queue.Empty:
                return

    def __enter__(self) -> ServicePool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
