"""Whether the sense store can be used, as /health reports it: a server whose store cannot
be written must not say "ok" while every table fails.

The store's own check (SenseStore.state(): reachable, intact, room on its disk, a write in a
transaction rolled back) runs on an idle service's connection (those belong to the worker
threads, one at a time), at most every PROBE_INTERVAL seconds while the store is found usable,
at every question once it is not, and at once after a request met a store error.  When every
service is at work for HEALTH_WAIT seconds the last state found stands: busy workers are
using the store.  A client is told the state's status and the cause in fixed words
(store_cause), never the store's location or the data; the reason goes to the server's log.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

from ctadesk.app.online import StoreError, StoreState
from ctadesk.app.online.store import OK, UNAVAILABLE
from ctadesk.server.pool import ServicePool

logger = logging.getLogger("ctadesk.server")

#: seconds between two checks of a store found usable
PROBE_INTERVAL = 10.0
#: seconds /health waits for an idle service to check the store with
HEALTH_WAIT = 1.0
#: SQLite's primary result codes (sqlite3.Error.sqlite_errorname, extended codes cut to these)
#: -> the cause a client is told
CAUSES = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_READONLY": "the store file cannot be written",
    "SQLITE_CORRUPT": "the store file is damaged",
    "SQLITE_NOTADB": "the store file is damaged",
    "SQLITE_CANTOPEN": "the store file cannot be opened",
    "SQLITE_IOERR": "the disk failed to read or write the store",
    "SQLITE_BUSY": "another connection holds the store's lock",
    "SQLITE_LOCKED": "another connection holds the store's lock",
    "SQLITE_PERM": "the store file may not be written",
}


def store_cause(error: BaseException) -> str | None:
    """What is wrong with the store, in words a client may read, when ``error`` (or an error it
    was raised while handling: the store's "cannot rollback" after a full disk hides the full
    disk) is the store's; None for any other error."""
    found: str | None = None
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, sqlite3.Error):
            name = getattr(seen, "sqlite_errorname", "") or ""
            found = CAUSES.get("_".join(name.split("_")[:2]), f"the store failed ({name or type(seen).__name__})")
        elif isinstance(seen, StoreError) and found is None:
            found = "the store cannot be used"
        seen = seen.__context__
    return found


class StoreHealth:
    """The store's state as last checked (module docstring); any thread may ask."""

    def __init__(self, pool: ServicePool, interval: float = PROBE_INTERVAL) -> None:
        self.pool, self.interval = pool, interval
        self._lock = threading.Lock()
        self._state = StoreState(OK)
        self._checked = -float("inf")

    def state(self) -> StoreState:
        """The store's state, checked again when the last check is older than ``interval`` or
        found it unusable (a store put right is seen at once)."""
        with self._lock:
            if self._state.ok and time.monotonic() - self._checked < self.interval:
                return self._state
            try:
                with self.pool.service(HEALTH_WAIT) as service:
                    self._state = service.store.state()
            except TimeoutError:
                return self._state
            self._checked = time.monotonic()
            if not self._state.ok:
                logger.error("the sense store is %s: %s", self._state.status, self._state.reason)
            return self._state

    def failed(self, cause: str) -> None:
        """A request met the store failing for ``cause``: the next question checks again."""
        with self._lock:
            self._state = StoreState(UNAVAILABLE, cause)
