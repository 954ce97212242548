"""Whether the sense store can be used, as /health reports it: a server whose store cannot
be written must not say "ok" while every table fails.

The store's own check (SenseStore.state(): reachable, intact, room on its disk, a write in a
transaction rolled back, cheap enough for every /health) runs on an idle service's connection
(those belong to the worker threads, one at a time).  When every service stays at work for
HEALTH_WAIT seconds the last state found stands (busy workers are using the store), or the
failure a request met since (failed()).  A client is told the state's status and the cause in
fixed words (store_cause), never the store's location or the data; the reason goes to the
server's log.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

from ctadesk.app.online import StoreError, StoreState
from ctadesk.app.online.store import OK, UNAVAILABLE
from ctadesk.server.pool import ServicePool

logger = logging.getLogger("ctadesk.server")

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

    def __init__(self, pool: ServicePool) -> None:
        self.pool = pool
        self._lock = threading.Lock()
        self._state = StoreState(OK)

    def state(self) -> StoreState:
        """The store's state, checked now unless every service stays at work."""
        with self._lock:
            try:
                with self.pool.service(HEALTH_WAIT) as service:
                    self._state = service.store.state()
            except TimeoutError:
                return self._state
            if not self._state.ok:
                logger.error("the sense store is %s: %s", self._state.status, self._state.reason)
            return self._state

    def failed(self, cause: str) -> None:
        """A request met the store failing for ``cause``: said until the next check."""
        with self._lock:
            self._state = StoreState(UNAVAILABLE, cause)
