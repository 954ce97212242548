"""The sense store in a PostgreSQL database (psycopg 3, the ``server-postgres`` extra): several
``ctadesk serve`` processes on several machines over one store (ctadesk.app.online.store has the
queries and the guarantees).

* ``--store postgresql://user@host:5432/db``: the password from the URL, ~/.pgpass or
  PGPASSWORD, never shown (shown_url); ``?options=-csearch_path%3Dname`` keeps the store in a
  schema of its own;
* transactions at READ COMMITTED: a sense inserted by ``INSERT … ON CONFLICT DO NOTHING`` waits
  for a concurrent transaction inserting the same cell and is skipped when that one commits, so
  the read-back that follows (a statement of its own, seeing every commit before it) gives the
  sense stored first; the full table's values are stored under ``SELECT … FOR UPDATE`` of the
  store's meta row; a lock waited for longer than the busy timeout is an error, never a hang;
* a connection that broke (the database restarted) is made again before the next transaction,
  never inside one; a process that dies leaves nothing of its open transaction, and a process
  that stalls inside one loses it after IDLE_IN_TRANSACTION seconds, its locks with it;
* state(): the database reachable and writable (not a standby), the store's tables there, a
  write in a transaction rolled back.
"""

from __future__ import annotations

import contextlib
import importlib.util
import urllib.parse
from collections.abc import Iterator, Sequence
from typing import Any

from ctadesk.app.online.binding import StoreBinding
from ctadesk.app.online.errors import StoreError
from ctadesk.app.online.store import BUSY_TIMEOUT, CORRUPT, OK, READ_ONLY, TABLES, UNAVAILABLE, SenseStore, StoreState

#: whether the server-postgres extra (psycopg) is installed: without it PostgresStore() says so
POSTGRES = importlib.util.find_spec("psycopg") is not None
if POSTGRES:
    import psycopg

#: seconds a connection attempt may take
CONNECT_TIMEOUT = 10
#: seconds a transaction may stay open doing nothing before the server ends it (a stalled
#: process must not hold the locks of cells other processes are deciding)
IDLE_IN_TRANSACTION = 60
#: the advisory lock key under which a store is made (two --init-store at once: one makes it)
CREATE_LOCK = int.from_bytes(b"ctadesk", "big")


def shown_url(url: str) -> str:
    """``url`` without its password (in the user part or a ``password=`` parameter), for messages."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        netloc = f"{user.split(':', 1)[0]}@{host}"
    query = urllib.parse.urlencode([(name, value) for name, value in urllib.parse.parse_qsl(parts.query)
                                    if name.lower() != "password"])
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class PostgresStore(SenseStore):
    """The store in the PostgreSQL database at ``url`` (open_store())."""

    _table_id = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"

    def __init__(self, url: str, binding: StoreBinding | None, *, create: bool = False,
                 busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.url = url
        self.location = shown_url(url)
        self.busy_timeout = busy_timeout
        if not POSTGRES:
            raise StoreError(f"{self.location}: a PostgreSQL sense store needs psycopg: "
                             "pip install 'ctadesk[server-postgres]'")
        self._inside = False
        self._db = self._connect()
        try:
            self._opened(binding, create)
        except BaseException:
            self._db.close()
            raise

    def _connect(self) -> psycopg.Connection:
        try:
            db = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
        except psycopg.Error as error:
            raise StoreError(f"{self.location}: cannot connect ({_first_line(error)})") from None
        try:
            db.execute(f"SET lock_timeout = {int(self.busy_timeout * 1000)}")
            db.execute(f"SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION * 1000}")
        except psycopg.Error as error:
            db.close()
            raise StoreError(f"{self.location}: cannot set up the connection ({_first_line(error)})") from None
        return db

    def _connected(self) -> None:
        """Connect again when the connection broke, outside a transaction only."""
        if self._db.closed and not self._inside:
            self._db = self._connect()

    # ------------------------------------------------------------ the database
    def _failed(self, error: Exception) -> StoreError:
        return StoreError(f"{self.location}: the sense store failed ({_first_line(error)})")

    def _execute(self, query: str, parameters: Sequence[Any] = ()) -> psycopg.Cursor:
        self._connected()
        try:
            return self._db.execute(query.replace("?", "%s"), parameters)
        except psycopg.Error as error:
            raise self._failed(error) from None

    def _executemany(self, query: str, rows: Sequence[Sequence[Any]]) -> None:
        self._connected()
        try:
            with self._db.cursor() as cursor:
                cursor.executemany(query.replace("?", "%s"), rows)
        except psycopg.Error as error:
            raise self._failed(error) from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN`` ... ``COMMIT`` (``ROLLBACK`` on an exception) at READ COMMITTED; rows written
        stay locked to the commit."""
        self._connected()
        try:
            with self._db.transaction():
                self._inside = True
                try:
                    yield
                finally:
                    self._inside = False
        except psycopg.Error as error:
            raise self._failed(error) from None

    def _lock_store(self) -> None:
        self._execute("SELECT value FROM meta WHERE name = 'secret' FOR UPDATE")

    def _lock_store_creation(self) -> None:
        self._execute("SELECT pg_advisory_xact_lock(?)", (CREATE_LOCK,))

    def _table_names(self) -> set[str]:
        return {row[0] for row in self._execute("SELECT table_name FROM information_schema.tables "
                                                "WHERE table_schema = current_schema()")}

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------ health
    def state(self) -> StoreState:
        """The database reachable (connecting again if needed), writable (not a standby or a
        read-only default), the store's tables and schema version there, and a write in a
        transaction rolled back (lock_timeout bounds it)."""
        try:
            return self._probe()
        except psycopg.OperationalError:      # the connection was found broken: once more, connecting again
            try:
                return self._probe()
            except psycopg.OperationalError as error:
                return StoreState(UNAVAILABLE, f"{self.location} cannot be reached ({_first_line(error)})")

    def _probe(self) -> StoreState:
        """state() over the connection as it is (OperationalError when it broke: it is closed)."""
        try:
            self._connected()
            with self._db.transaction(force_rollback=True):
                read_only, standby = self._db.execute(
                    "SELECT current_setting('transaction_read_only') = 'on', pg_is_in_recovery()").fetchall()[0]
                if read_only or standby:
                    return StoreState(READ_ONLY, f"{self.location} accepts no writes "
                                                 f"({'a standby' if standby else 'read-only transactions'})")
                missing = [name for name in TABLES if name not in self._table_names()]
                if missing:
                    return StoreState(CORRUPT, f"{self.location}: the store's table {missing[0]} is gone")
                if self._db.execute("SELECT 1 FROM meta WHERE name = 'schema_version'").fetchone() is None:
                    return StoreState(CORRUPT, f"{self.location}: the store's meta rows are gone")
                self._db.execute("UPDATE meta SET value = value WHERE name = 'created'")
        except StoreError as error:
            return StoreState(UNAVAILABLE, str(error))
        except psycopg.OperationalError as error:
            if self._db.closed:
                raise
            return StoreState(UNAVAILABLE, f"{self.location} cannot be reached ({_first_line(error)})")
        except psycopg.Error as error:
            return StoreState(READ_ONLY, f"{self.location} cannot be written ({_first_line(error)})")
        return StoreState(OK)
