"""The sense store of an on-line table server (Castro & González 2011, §4): the protection sense chosen for
each sensitive cell, whichever table it first appeared in, so that every later table publishes
it on the same side of its true value (consistency on output); the tables published; the
latest published value of each non-sensitive cell; and, with senses from the data set's full
table, that table's protected values, which every later table is read from (reference values).

One interface (SenseStore, this module: the queries, plain SQL) over two databases:

* an SQLite file (ctadesk.app.online.store_sqlite): one machine, any number of processes;
* a PostgreSQL database, ``postgresql://…`` (ctadesk.app.online.store_postgres, the
  ``server-postgres`` extra): several ``ctadesk serve`` processes on several machines.

open_store() picks one from the location.  A store is made only on request (``create``:
``ctadesk serve --init-store``) and bound to what it protects (ctadesk.app.online.binding); a
missing, empty or mismatched store is refused when opened, and so is one that fails its start
checks (state(): integrity, a write in a transaction rolled back).

Safety under several processes (both databases):
* a sense is inserted only where the cell has none (``INSERT … ON CONFLICT DO NOTHING``) and
  read back in the same transaction, so two processes cannot record different senses for one
  cell: the first to commit wins, the other reads its sense.  SQLite takes the database's write
  lock at the start of a transaction (``BEGIN IMMEDIATE``); PostgreSQL locks the rows inserted,
  a concurrent insert of the same cell waiting for the first transaction to end; rows are
  written in the order of their keys, so two transactions never wait for each other;
* the full table's protected values are stored by one transaction at a time (a row lock on the
  store's meta row, ``SELECT … FOR UPDATE``), only with the senses they belong to;
* a process that dies inside a transaction leaves nothing of it (SQLite rolls its journal back
  when the file is next opened; PostgreSQL when the connection drops), and its locks go with it.

The schema is versioned (``meta.schema_version``); a store written by a newer ctadesk is
refused, an older one is brought up to date when opened (_MIGRATIONS, in the opening
transaction).
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import datetime
import json
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ctadesk.app.online.binding import StoreBinding
from ctadesk.app.online.errors import StoreError

#: the schema this module reads and writes (3: the binding, ctadesk.app.online.binding)
SCHEMA_VERSION = 3
#: seconds a transaction waits for another process's lock before giving up
BUSY_TIMEOUT = 30.0
#: keys per query (SQLite's bound-parameter limit is 32766; servers have similar ones)
BATCH = 500
#: the sense of a sensitive cell: published above (+1) or below (-1) its true value
SENSES = (-1, 1)
#: the states state() reports: usable; readable but not writable; damaged; the database
#: server cannot be reached
OK, READ_ONLY, CORRUPT, UNAVAILABLE = "ok", "read-only", "corrupt", "unavailable"
#: what ``--store`` must start with to name a PostgreSQL database
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
#: the store's tables, created in this order
TABLES = ("meta", "published_tables", "senses", "published_values", "reference_values")

#: a table id: written by each database its own way (store_sqlite, store_postgres)
TABLE_ID = "{table_id}"
_SCHEMA = (
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    f"CREATE TABLE published_tables (id {TABLE_ID}, measure TEXT NOT NULL, spanning TEXT NOT NULL, "
    "requested TEXT NOT NULL, published TEXT)",
    "CREATE TABLE senses (measure TEXT NOT NULL, cell TEXT NOT NULL, "
    "sense INTEGER NOT NULL CHECK (sense IN (-1, 1)), chosen_by TEXT NOT NULL, "
    "first_table BIGINT NOT NULL REFERENCES published_tables (id), PRIMARY KEY (measure, cell))",
    # value: the latest published; first_table: the table that first published the cell
    "CREATE TABLE published_values (measure TEXT NOT NULL, cell TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, "
    "first_table BIGINT NOT NULL REFERENCES published_tables (id), PRIMARY KEY (measure, cell))",
    "CREATE TABLE reference_values (measure TEXT NOT NULL, cell TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (measure, cell))",
)
#: statements bringing a store of schema version k to k + 1 (the key); 2 -> 3 adds the binding
#: to meta (open_store(create=True) writes it)
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (_SCHEMA[-1],),
    2: (),
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


@dataclasses.dataclass(frozen=True)
class StoreState:
    """What state() found: ``status`` (OK, READ_ONLY, CORRUPT or UNAVAILABLE) and why (the
    location and what is wrong; '' when ok)."""

    status: str
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Whether tables can be published (a server's /health fails otherwise)."""
        return self.status == OK

    def as_dict(self) -> dict[str, str]:
        """{'status': …, 'reason': …} for a JSON answer."""
        return {"status": self.status, "reason": self.reason}


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _batches(items: Sequence, size: int = BATCH) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def is_postgres(location: str | Path) -> bool:
    """Whether ``location`` names a PostgreSQL database (a URL) rather than an SQLite file."""
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


def open_store(location: str | Path, binding: StoreBinding | None = None, *, create: bool = False,
               busy_timeout: float = BUSY_TIMEOUT) -> SenseStore:
    """The sense store at ``location``: an SQLite file, or a PostgreSQL database
    (``postgresql://user@host:5432/db``; password from the URL, ~/.pgpass or PGPASSWORD).

    create    make the store, bound to ``binding``; refused when one is there (a store with
              no binding, made by an older ctadesk, is bound instead)
    binding   what the store must protect: refused when it protects something else; without
              one (reading a store: the GUI's view) neither the binding nor the start checks
              are looked at

    StoreError naming the location and what is wrong: missing, empty, another database, a
    newer schema, another binding, a failed start check (state())."""
    if create and binding is None:
        raise StoreError(f"{_shown(location)}: a sense store is made for one microdata set, measure and rules; "
                         "none was given")
    if is_postgres(location):
        from ctadesk.app.online.store_postgres import PostgresStore
        return PostgresStore(str(location), binding, create=create, busy_timeout=busy_timeout)
    from ctadesk.app.online.store_sqlite import SQLiteStore
    return SQLiteStore(Path(location), binding, create=create, busy_timeout=busy_timeout)


def _shown(location: str | Path) -> str:
    if is_postgres(location):
        from ctadesk.app.online.store_postgres import shown_url
        return shown_url(str(location))
    return str(location)


class SenseStore(abc.ABC):
    """The store (module docstring); a context manager that closes it.  Made by open_store().

    ``secret`` is a random key made with the store; local sense choices are drawn from it
    (ctadesk.engine.online.senses), so nobody without the store can recompute them.  ``location``
    is the file or the URL, password left out, for messages.

    A store holds one connection, which any thread may use but only one thread at a time (a
    server hands each store to one worker thread per request, ctadesk.server.pool); give
    threads that work at once a store each, as processes are.
    """

    location: str
    secret: str
    #: the binding the store holds (None: made by an older ctadesk and not bound yet)
    binding: StoreBinding | None

    # ------------------------------------------------------------ what each database does
    @abc.abstractmethod
    def _execute(self, query: str, parameters: Sequence[Any] = ()) -> Any:
        """Run ``query`` (``?`` placeholders); a cursor.  Driver errors become StoreError."""

    @abc.abstractmethod
    def _executemany(self, query: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run ``query`` once per row of ``rows``."""

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """A transaction: committed on leaving, rolled back on an exception; what it reads of
        rows it wrote cannot change before the commit."""

    @abc.abstractmethod
    def _lock_store(self) -> None:
        """Inside a transaction: wait until no other transaction holds the store's lock, and
        hold it to the commit (SQLite's write lock is already held)."""

    @abc.abstractmethod
    def _table_names(self) -> set[str]:
        """The names of the tables in the database."""

    @abc.abstractmethod
    def state(self) -> StoreState:
        """Whether the store can be used now, cheaply enough for every /health request: the
        database reachable and intact, a write in a transaction rolled back.  Never raises."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close the connection."""

    def __enter__(self) -> SenseStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ opening
    #: the column type of a table id, in this database's words
    _table_id: str

    def _schema(self) -> tuple[str, ...]:
        """The CREATE TABLE statements in this database's words."""
        return tuple(statement.replace(TABLE_ID, self._table_id) for statement in _SCHEMA)

    def _opened(self, binding: StoreBinding | None, create: bool) -> None:
        """Check the schema and the binding (or, with ``create``, write them) and set secret and
        binding, in one transaction; then, given a binding, the start checks (state())."""
        self._checked(binding, create)
        if binding is not None:
            state = self.state()
            if not state.ok:
                raise StoreError(f"{state.reason}; the server is not started on it")

    def _checked(self, binding: StoreBinding | None, create: bool) -> None:
        if create and binding is None:
            raise StoreError(f"{self.location}: a sense store is created for the microdata and measure it is bound to")
        with self.transaction():
            self._lock_store_creation()
            names = self._table_names()
            if not names & set(TABLES):
                if not create:
                    if names:
                        raise StoreError(f"{self.location} is a database but not a ctadesk sense store (it has "
                                         "other tables only)")
                    raise StoreError(f"{self.location} holds no sense store (it is empty): a store is made only by "
                                     "--init-store (OnlineService(init_store=True)); a store that was there and is "
                                     "gone cannot be started afresh without putting cells published before on both "
                                     "sides of their value")
                for statement in self._schema():
                    self._execute(statement)
                self._executemany("INSERT INTO meta (name, value) VALUES (?, ?)",
                                  [("schema_version", str(SCHEMA_VERSION)), ("secret", secrets.token_hex(32)),
                                   ("created", _now()), *(binding.meta().items() if binding is not None else ())])
            elif "meta" not in names:
                raise StoreError(f"{self.location} is a database but not a ctadesk sense store")
            elif create and binding is not None:
                self._bind_older(binding)
            meta = self._meta()
            version = int(meta["schema_version"]) if meta.get("schema_version", "").isdigit() else 0
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.location} was written by a newer ctadesk (sense store schema {version}; "
                                 f"this one reads schema {SCHEMA_VERSION}): update ctadesk to use it")
            if version not in range(1, SCHEMA_VERSION + 1) or "secret" not in meta:
                raise StoreError(f"{self.location}: unknown sense store schema '{meta.get('schema_version')}'")
            for step in range(version, SCHEMA_VERSION):
                for statement in _MIGRATIONS[step]:
                    self._execute(statement)
            if version != SCHEMA_VERSION:
                self._execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(SCHEMA_VERSION),))
            try:
                self.binding = StoreBinding.from_meta(meta)
            except (KeyError, ValueError) as error:
                raise StoreError(f"{self.location}: the record of what the store protects is damaged ({error})") \
                    from None
            if binding is not None:
                self._check_binding(binding)
            self.secret = meta["secret"]

    def _meta(self) -> dict[str, str]:
        """The meta rows; StoreError when there are none (an emptied store)."""
        meta = dict(self._execute("SELECT name, value FROM meta").fetchall())
        if not meta:
            raise StoreError(f"{self.location}: the sense store is empty (its meta table has no rows): was it "
                             "truncated? Restore it from a backup; --init-store makes a store only where there is none")
        return meta

    @abc.abstractmethod
    def _lock_store_creation(self) -> None:
        """Inside the opening transaction: keep two processes from making the store at once
        (SQLite's write lock already does)."""

    def _bind_older(self, binding: StoreBinding) -> None:
        """``create`` over an existing store: bind a store made before stores were bound,
        refuse any other."""
        meta = self._meta()
        if StoreBinding.from_meta(meta) is None and "secret" in meta:
            self._executemany("INSERT INTO meta (name, value) VALUES (?, ?)", list(binding.meta().items()))
            return
        made = f" (made {meta['created']})" if meta.get("created") else ""
        raise StoreError(f"{self.location} already holds a sense store{made}: --init-store makes a store only where "
                         "there is none; drop the --init-store to use it, or remove it yourself to start afresh "
                         "(every table published from it would then be unprotected against the new ones)")

    def _check_binding(self, wanted: StoreBinding) -> None:
        """StoreError unless the store protects ``wanted``; variables it does not know are added."""
        if self.binding is None:
            raise StoreError(f"{self.location} was made by an older ctadesk and records nothing of the microdata, "
                             "measure and rules it protects: bind it to these with --init-store "
                             "(OnlineService(init_store=True)) if they are the ones it was used with")
        why = self.binding.mismatch(wanted)
        if why:
            raise StoreError(f"{self.location} cannot protect these tables: {why}. A store serves the data it was "
                             "made for; make another store (--init-store) for other data")
        added = self.binding.new_variables(wanted)
        if added:
            self.binding = self.binding.joined(added)
            self._execute("UPDATE meta SET value = ? WHERE name = 'variables'",
                          (json.dumps(dict(self.binding.variables), sort_keys=True),))

    # ------------------------------------------------------------ tables
    def request_table(self, measure: str, spanning: Sequence[str]) -> int:
        """Record that a table of ``measure`` by ``spanning`` was requested; its id."""
        return int(self._execute(
            "INSERT INTO published_tables (measure, spanning, requested) VALUES (?, ?, ?) RETURNING id",
            (measure, " x ".join(spanning), _now())).fetchone()[0])

    def tables(self) -> list[TableRecord]:
        """Every table requested, oldest first."""
        rows = self._execute("SELECT id, measure, spanning, requested, published FROM published_tables "
                             "ORDER BY id").fetchall()
        return [TableRecord(row[0], row[1], tuple(row[2].split(" x ")), row[3], row[4]) for row in rows]

    # ------------------------------------------------------------ senses
    def senses(self, measure: str, cells: Sequence[str]) -> dict[str, int]:
        """The stored sense of each of ``cells`` that has one."""
        found: dict[str, int] = {}
        for batch in _batches(list(cells)):
            marks = ", ".join("?" * len(batch))
            found.update(self._execute(f"SELECT cell, sense FROM senses WHERE measure = ? AND cell IN ({marks})",
                                       (measure, *batch)).fetchall())
        return found

    def insert_senses(self, measure: str, chosen: Mapping[str, int], chosen_by: str, table: int) -> None:
        """Store ``chosen`` senses of cells that have none yet (the others keep theirs), in the
        order of the cells' keys."""
        bad = {cell: sense for cell, sense in chosen.items() if sense not in SENSES}
        if bad:
            cell, sense = next(iter(bad.items()))
            raise StoreError(f"cell '{cell}': sense {sense} is neither +1 (up) nor -1 (down)")
        self._executemany("INSERT INTO senses (measure, cell, sense, chosen_by, first_table) VALUES (?, ?, ?, ?, ?) "
                          "ON CONFLICT (measure, cell) DO NOTHING",
                          [(measure, cell, int(chosen[cell]), chosen_by, table) for cell in sorted(chosen)])

    def decide(self, measure: str, spanning: Sequence[str], cells: Sequence[str], chosen: Mapping[str, int],
               chosen_by: str, reference: Mapping[str, float] | None = None) -> tuple[int, dict[str, int]]:
        """One table's first-stage decisions, in one transaction: the table is recorded as
        requested, ``chosen`` senses stored for cells without one, and the stored sense of every
        one of ``cells`` read back (a sense another process stored first wins).  ``reference``
        (the full table's protected values with the ``chosen`` senses) is stored with them, when
        none is stored and every sense chosen was taken: values and senses always belong together.
        (table id, senses)."""
        with self.transaction():
            if reference:
                self._lock_store()
            table = self.request_table(measure, spanning)
            self.insert_senses(measure, chosen, chosen_by, table)
            stored = self.senses(measure, cells)
            if reference and all(stored.get(cell) == sense for cell, sense in chosen.items()) \
                    and not self.has_reference(measure):
                self._executemany("INSERT INTO reference_values (measure, cell, value) VALUES (?, ?, ?)",
                                  [(measure, cell, float(reference[cell])) for cell in sorted(reference)])
        missing = [cell for cell in cells if cell not in stored]
        if missing:
            raise StoreError(f"{self.location}: no sense stored for cell '{missing[0]}' of table {table}")
        return table, stored

    def counts(self) -> dict[str, int]:
        """How many tables were requested and published, and how many senses and published
        values the store holds (every measure)."""
        query = ("SELECT (SELECT COUNT(*) FROM published_tables), "
                 "(SELECT COUNT(*) FROM published_tables WHERE published IS NOT NULL), "
                 "(SELECT COUNT(*) FROM senses), (SELECT COUNT(*) FROM published_values)")
        requested, published, senses, values = self._execute(query).fetchone()
        return {"tables_requested": requested, "tables_published": published, "senses": senses,
                "published_values": values}

    def sense_records(self, measure: str | None = None) -> list[SenseRecord]:
        """Every stored sense (of ``measure``, or of all), by measure and cell."""
        query = "SELECT measure, cell, sense, chosen_by, first_table FROM senses"
        rows = self._execute(query + (" WHERE measure = ?" if measure is not None else "") +
                             " ORDER BY measure, cell", (measure,) if measure is not None else ()).fetchall()
        return [SenseRecord(*row) for row in rows]

    # ------------------------------------------------------------ published values
    def publish(self, table: int, measure: str, values: Mapping[str, float]) -> None:
        """Mark ``table`` published and keep the values of its non-sensitive cells ``values``
        where none was published before (the public already holds the first one)."""
        with self.transaction():
            self._execute("UPDATE published_tables SET published = ? WHERE id = ?", (_now(), table))
            self._executemany("INSERT INTO published_values (measure, cell, value, first_table) VALUES (?, ?, ?, ?) "
                              "ON CONFLICT (measure, cell) DO UPDATE SET value = excluded.value",
                              [(measure, cell, float(values[cell]), table) for cell in sorted(values)])

    def published_values(self, measure: str, cells: Iterable[str]) -> dict[str, float]:
        """The latest published value of each of ``cells`` that has one."""
        return self._values("published_values", measure, cells)

    # ------------------------------------------------------------ reference values
    def has_reference(self, measure: str) -> bool:
        """Whether the full table's protected values of ``measure`` are stored."""
        return self._execute("SELECT 1 FROM reference_values WHERE measure = ? LIMIT 1", (measure,)).fetchone() \
            is not None

    def reference_values(self, measure: str, cells: Iterable[str]) -> dict[str, float]:
        """The full table's protected value of each of ``cells`` that has one."""
        return self._values("reference_values", measure, cells)

    def _values(self, table: str, measure: str, cells: Iterable[str]) -> dict[str, float]:
        found: dict[str, float] = {}
        for batch in _batches(list(cells)):
            marks = ", ".join("?" * len(batch))
            found.update(self._execute(f"SELECT cell, value FROM {table} WHERE measure = ? AND cell IN ({marks})",
                                       (measure, *batch)).fetchall())
        return found
