"""The sense store of an on-line table server (paper 000 §4): the protection sense chosen for
each sensitive cell, whichever table it first appeared in, so that every later table publishes
it on the same side of its true value (consistency on output); the tables published; the
latest published value of each non-sensitive cell; and, with senses from the data set's full
table, that table's protected values, which every later table is read from (reference values).

One SQLite file (the standard library's sqlite3), written so that a server database such as
PostgreSQL can replace it: the queries are plain SQL (``INSERT ... ON CONFLICT DO NOTHING``,
``RETURNING``) kept in this one class; only the connection, the pragmas and the placeholder
style (``?``) are SQLite's.  Cells are keyed by their definition (ctadesk.app.online.cells) and
by the measure (the response variable) tabulated.

Safety under several processes:
* WAL journal, so readers never block the writer, and ``synchronous=FULL``, so a committed
  sense survives a power cut (a lost sense could later be chosen the other way);
* decisions are taken in ``BEGIN IMMEDIATE`` transactions (the write lock at the start), with
  a busy timeout; a sense is inserted only where the cell has none (first writer wins) and read
  back in the same transaction, so two processes cannot record different senses for one cell;
* a process that dies inside a transaction leaves nothing of it: SQLite rolls the journal back
  when the file is next opened.

The schema is versioned (``meta.schema_version``); a file written by a newer ctadesk is refused,
an older one is brought up to date when opened (_MIGRATIONS, in the opening transaction).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import secrets
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from ctadesk.app.online.errors import StoreError

#: the schema this module reads and writes
SCHEMA_VERSION = 2
#: seconds a transaction waits for another process's write lock before giving up
BUSY_TIMEOUT = 30.0
#: keys per query (SQLite's bound-parameter limit is 32766; servers have similar ones)
BATCH = 500
#: the sense of a sensitive cell: published above (+1) or below (-1) its true value
SENSES = (-1, 1)

_SCHEMA = (
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # id: PostgreSQL writes 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY'
    "CREATE TABLE published_tables (id INTEGER PRIMARY KEY, measure TEXT NOT NULL, spanning TEXT NOT NULL, "
    "requested TEXT NOT NULL, published TEXT)",
    "CREATE TABLE senses (measure TEXT NOT NULL, cell TEXT NOT NULL, "
    "sense INTEGER NOT NULL CHECK (sense IN (-1, 1)), chosen_by TEXT NOT NULL, "
    "first_table INTEGER NOT NULL REFERENCES published_tables (id), PRIMARY KEY (measure, cell))",
    # value: the latest published; first_table: the table that first published the cell
    "CREATE TABLE published_values (measure TEXT NOT NULL, cell TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, "
    "first_table INTEGER NOT NULL REFERENCES published_tables (id), PRIMARY KEY (measure, cell))",
)
#: statements bringing a store of schema version k to k + 1 (the key)
_MIGRATIONS = {
    1: ("CREATE TABLE reference_values (measure TEXT NOT NULL, cell TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, "
        "PRIMARY KEY (measure, cell))",),
}


@dataclasses.dataclass(frozen=True)
class TableRecord:
    """A table requested from the server: its id, measure, spanning variables, when it was
    requested and published (UTC, ISO 8601; published None: not, or not yet)."""

    id: int
    measure: str
    spanning: tuple[str, ...]
    requested: str
    published: str | None


@dataclasses.dataclass(frozen=True)
class SenseRecord:
    """The stored sense of one sensitive cell, how it was chosen, and the table it was chosen for."""

    measure: str
    cell: str
    sense: int
    chosen_by: str
    first_table: int


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _batches(items: Sequence, size: int = BATCH) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


class SenseStore:
    """The store in one SQLite file (module docstring); a context manager that closes it.

    ``secret`` is a random key made when the file is created; local sense choices are drawn
    from it (ctadesk.app.online.senses), so nobody without the store can recompute them.

    A store holds one connection, which any thread may use but only one thread at a time (a
    server hands each store to one worker thread per request, ctadesk.server.pool); give
    threads that work at once a store each, as processes are.
    """

    def __init__(self, path: str | Path, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise StoreError(f"{self.path}: the store needs SQLite's WAL journal, this file system gave '{mode}'")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self.secret = self._opened()
        except StoreError:
            self._db.close()
            raise
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise StoreError(f"{self.path}: not a usable sense store ({error})") from None

    # ------------------------------------------------------------ the file itself
    def _opened(self) -> str:
        """Check (or, for a new file, write) the schema; the store's secret."""
        with self.transaction():
            names = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not names:
                for statement in _SCHEMA + tuple(step for steps in _MIGRATIONS.values() for step in steps):
                    self._db.execute(statement)
                self._db.executemany("INSERT INTO meta (name, value) VALUES (?, ?)",
                                     [("schema_version", str(SCHEMA_VERSION)), ("secret", secrets.token_hex(32)),
                                      ("created", _now())])
            elif "meta" not in names:
                raise StoreError(f"{self.path} is an SQLite file but not a ctadesk sense store")
            meta = dict(self._db.execute("SELECT name, value FROM meta").fetchall())
            version = int(meta["schema_version"]) if meta.get("schema_version", "").isdigit() else 0
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer ctadesk (sense store schema {version}; this "
                                 f"one reads schema {SCHEMA_VERSION}): update ctadesk to use it")
            if version not in range(1, SCHEMA_VERSION + 1) or "secret" not in meta:
                raise StoreError(f"{self.path}: unknown sense store schema '{meta.get('schema_version')}'")
            for step in range(version, SCHEMA_VERSION):
                for statement in _MIGRATIONS[step]:
                    self._db.execute(statement)
            if version != SCHEMA_VERSION:
                self._db.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(SCHEMA_VERSION),))
        return meta["secret"]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SenseStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception): the write lock is taken
        at the start, so what is read inside cannot change before the commit."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # ------------------------------------------------------------ tables
    def request_table(self, measure: str, spanning: Sequence[str]) -> int:
        """Record that a table of ``measure`` by ``spanning`` was requested; its id."""
        return int(self._db.execute(
            "INSERT INTO published_tables (measure, spanning, requested) VALUES (?, ?, ?) RETURNING id",
            (measure, " x ".join(spanning), _now())).fetchone()[0])

    def tables(self) -> list[TableRecord]:
        """Every table requested, oldest first."""
        rows = self._db.execute("SELECT id, measure, spanning, requested, published FROM published_tables "
                                "ORDER BY id").fetchall()
        return [TableRecord(row[0], row[1], tuple(row[2].split(" x ")), row[3], row[4]) for row in rows]

    # ------------------------------------------------------------ senses
    def senses(self, measure: str, cells: Sequence[str]) -> dict[str, int]:
        """The stored sense of each of ``cells`` that has one."""
        found: dict[str, int] = {}
        for batch in _batches(list(cells)):
            marks = ", ".join("?" * len(batch))
            found.update(self._db.execute(f"SELECT cell, sense FROM senses WHERE measure = ? AND cell IN ({marks})",
                                          (measure, *batch)).fetchall())
        return found

    def insert_senses(self, measure: str, chosen: Mapping[str, int], chosen_by: str, table: int) -> None:
        """Store ``chosen`` senses of cells that have none yet (the others keep theirs)."""
        bad = {cell: sense for cell, sense in chosen.items() if sense not in SENSES}
        if bad:
            cell, sense = next(iter(bad.items()))
            raise StoreError(f"cell '{cell}': sense {sense} is neither +1 (up) nor -1 (down)")
        self._db.executemany("INSERT INTO senses (measure, cell, sense, chosen_by, first_table) VALUES (?, ?, ?, ?, ?) "
                             "ON CONFLICT (measure, cell) DO NOTHING",
                             [(measure, cell, int(sense), chosen_by, table) for cell, sense in chosen.items()])

    def decide(self, measure: str, spanning: Sequence[str], cells: Sequence[str], chosen: Mapping[str, int],
               chosen_by: str, reference: Mapping[str, float] | None = None) -> tuple[int, dict[str, int]]:
        """One table's first-stage decisions, in one transaction: the table is recorded as
        requested, ``chosen`` senses stored for cells without one, and the stored sense of every
        one of ``cells`` read back (a sense another process stored first wins).  ``reference``
        (the full table's protected values with the ``chosen`` senses) is stored with them, when
        none is stored and every sense chosen was taken: values and senses always belong together.
        (table id, senses)."""
        with self.transaction():
            table = self.request_table(measure, spanning)
            self.insert_senses(measure, chosen, chosen_by, table)
            stored = self.senses(measure, cells)
            if reference and all(stored.get(cell) == sense for cell, sense in chosen.items()) \
                    and not self.has_reference(measure):
                self._db.executemany("INSERT INTO reference_values (measure, cell, value) VALUES (?, ?, ?)",
                                     [(measure, cell, float(value)) for cell, value in reference.items()])
        missing = [cell for cell in cells if cell not in stored]
        if missing:
            raise StoreError(f"{self.path}: no sense stored for cell '{missing[0]}' of table {table}")
        return table, stored

    def counts(self) -> dict[str, int]:
        """How many tables were requested and published, and how many senses and published
        values the store holds (every measure)."""
        query = ("SELECT (SELECT COUNT(*) FROM published_tables), "
                 "(SELECT COUNT(*) FROM published_tables WHERE published IS NOT NULL), "
                 "(SELECT COUNT(*) FROM senses), (SELECT COUNT(*) FROM published_values)")
        requested, published, senses, values = self._db.execute(query).fetchone()
        return {"tables_requested": requested, "tables_published": published, "senses": senses,
                "published_values": values}

    def sense_records(self, measure: str | None = None) -> list[SenseRecord]:
        """Every stored sense (of ``measure``, or of all), by measure and cell."""
        query = "SELECT measure, cell, sense, chosen_by, first_table FROM senses"
        rows = self._db.execute(query + (" WHERE measure = ?" if measure is not None else "") +
                                " ORDER BY measure, cell", (measure,) if measure is not None else ()).fetchall()
        return [SenseRecord(*row) for row in rows]

    # ------------------------------------------------------------ published values
    def publish(self, table: int, measure: str, values: Mapping[str, float]) -> None:
        """Mark ``table`` published and keep the values of its non-sensitive cells ``values``
        where none was published before (the public already holds the first one)."""
        with self.transaction():
            self._db.execute("UPDATE published_tables SET published = ? WHERE id = ?", (_now(), table))
            self._db.executemany("INSERT INTO published_values (measure, cell, value, first_table) VALUES (?, ?, ?, ?) "
                                 "ON CONFLICT (measure, cell) DO UPDATE SET value = excluded.value",
                                 [(measure, cell, float(value), table) for cell, value in values.items()])

    def published_values(self, measure: str, cells: Iterable[str]) -> dict[str, float]:
        """The latest published value of each of ``cells`` that has one."""
        return self._values("published_values", measure, cells)

    # ------------------------------------------------------------ reference values
    def has_reference(self, measure: str) -> bool:
        """Whether the full table's protected values of ``measure`` are stored."""
        return self._db.execute("SELECT 1 FROM reference_values WHERE measure = ? LIMIT 1", (measure,)).fetchone() \
            is not None

    def reference_values(self, measure: str, cells: Iterable[str]) -> dict[str, float]:
        """The full table's protected value of each of ``cells`` that has one."""
        return self._values("reference_values", measure, cells)

    def _values(self, table: str, measure: str, cells: Iterable[str]) -> dict[str, float]:
        found: dict[str, float] = {}
        for batch in _batches(list(cells)):
            marks = ", ".join("?" * len(batch))
            found.update(self._db.execute(f"SELECT cell, value FROM {table} WHERE measure = ? AND cell IN ({marks})",
                                          (measure, *batch)).fetchall())
        return found
