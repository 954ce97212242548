"""The sense store in one SQLite file (the standard library's sqlite3): one machine, any number
of processes (ctadesk.app.online.store has the queries and the guarantees).

* WAL journal, so readers never block the writer, and ``synchronous=FULL``, so a committed
  sense survives a power cut (a lost sense could later be chosen the other way);
* transactions start with ``BEGIN IMMEDIATE`` (the database's write lock), with a busy timeout;
* the file is opened, never created, unless the store is being made: a missing, empty (0 bytes:
  truncated) or replaced file is refused, never started afresh;
* state(): the file still the one opened, ``PRAGMA quick_check``, room on its disk and a write
  in a transaction rolled back.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ctadesk.app.online.binding import StoreBinding
from ctadesk.app.online.errors import StoreError
from ctadesk.app.online.store import BUSY_TIMEOUT, CORRUPT, OK, READ_ONLY, SenseStore, StoreState

#: free bytes on the store's disk below which state() says read-only: a table's decisions and
#: values take a few megabytes of journal at most
MIN_FREE_BYTES = 16 * 2 ** 20
#: seconds state()'s write test waits for another process's write lock (transactions are short)
HEALTH_WAIT = 2.0


class SQLiteStore(SenseStore):
    """The store in the SQLite file ``path`` (open_store())."""

    _table_id = "INTEGER PRIMARY KEY"

    def __init__(self, path: Path, binding: StoreBinding | None, *, create: bool = False,
                 busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.busy_timeout = busy_timeout
        self._refuse_missing(create)
        try:
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode={'rwc' if create else 'rw'}", uri=True,
                                       timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise StoreError(f"{self.location}: cannot open the sense store ({error})") from None
        try:
            stat = os.stat(self.path)
            self._identity = (stat.st_dev, stat.st_ino)
            self._set_busy_timeout(busy_timeout)
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise StoreError(f"{self.location}: the store needs SQLite's WAL journal, this file system gave "
                                 f"'{mode}'")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._opened(binding, create)
        except StoreError:
            self._db.close()
            raise
        except (sqlite3.DatabaseError, OSError) as error:
            self._db.close()
            raise StoreError(f"{self.location}: not a usable sense store ({error})") from None

    def _refuse_missing(self, create: bool) -> None:
        """StoreError for a missing file (unless the store is being made) or an empty one."""
        if not self.path.exists():
            if create:
                return
            raise StoreError(f"{self.location} does not exist: a sense store is made only by --init-store "
                             "(OnlineService(init_store=True)); if it was there, restore it from a backup: a store "
                             "started afresh would put cells published before on both sides of their value")
        if self.path.is_file() and self.path.stat().st_size == 0:
            raise StoreError(f"{self.location} is empty (0 bytes): was it truncated? Restore it from a backup; "
                             "--init-store makes a store only where no file is")

    def _set_busy_timeout(self, seconds: float) -> None:
        self._db.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")

    # ------------------------------------------------------------ the database
    def _failed(self, error: sqlite3.Error) -> StoreError:
        return StoreError(f"{self.location}: the sense store failed ({error})")

    def _execute(self, query: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self._db.execute(query, parameters)
        except sqlite3.Error as error:
            raise self._failed(error) from None

    def _executemany(self, query: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self._db.executemany(query, rows)
        except sqlite3.Error as error:
            raise self._failed(error) from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception, unless SQLite rolled
        back already, as it does on a full disk): the write lock is taken at the start, so what
        is read inside cannot change before the commit."""
        self._execute("BEGIN IMMEDIATE")
        try:
            yield
            self._execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise

    def _lock_store(self) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` holds the database's write lock."""

    def _lock_store_creation(self) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` holds the database's write lock."""

    def _table_names(self) -> set[str]:
        return {row[0] for row in self._execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------ health
    def state(self) -> StoreState:
        """The file still the one opened and not empty; ``PRAGMA quick_check`` over a connection
        of its own (the store's caches pages: it reads every page from the disk, a few
        milliseconds a megabyte); at least MIN_FREE_BYTES free on its disk; a write
        in a transaction rolled back, waiting at most HEALTH_WAIT seconds for the write lock."""
        try:
            stat = os.stat(self.path)
        except OSError as error:
            return StoreState(CORRUPT, f"{self.location} is gone ({error.strerror})")
        if (stat.st_dev, stat.st_ino) != self._identity:
            return StoreState(CORRUPT, f"{self.location} was replaced by another file after it was opened")
        if stat.st_size == 0:
            return StoreState(CORRUPT, f"{self.location} is empty (0 bytes): truncated")
        try:
            with contextlib.closing(sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                                    timeout=HEALTH_WAIT)) as reader:
                problems = [row[0] for row in reader.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.Error as error:
            return StoreState(CORRUPT, f"{self.location} is damaged ({error})")
        if problems != ["ok"]:
            return StoreState(CORRUPT, f"{self.location} is damaged ({problems[0]})")
        free = shutil.disk_usage(self.path.parent).free
        if free < MIN_FREE_BYTES:
            return StoreState(READ_ONLY, f"{self.location}: only {free // 1024} KiB free on its disk "
                                         f"(at least {MIN_FREE_BYTES // 2 ** 20} MiB needed)")
        try:
            self._set_busy_timeout(HEALTH_WAIT)
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("UPDATE meta SET value = value WHERE name = 'created'")
        except sqlite3.Error as error:
            return StoreState(READ_ONLY, f"{self.location} cannot be written ({error})")
        finally:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            with contextlib.suppress(sqlite3.Error):
                self._set_busy_timeout(self.busy_timeout)
        return StoreState(OK)
