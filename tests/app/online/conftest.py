"""The sense store's back ends for the store's tests: every test taking ``backend`` runs once
on an SQLite file and once on a PostgreSQL schema of its own (tests/postgres.py)."""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import fresh_schema


@dataclasses.dataclass
class Backend:
    """Where a test's store lives (``location``, for open_store) and a way around the store to
    its database (``execute``: one statement, committed), to damage or age it."""

    kind: str
    location: str

    def execute(self, statement: str) -> None:
        if self.kind == "sqlite":
            with contextlib.closing(sqlite3.connect(self.location)) as db, db:
                db.execute(statement)
        else:
            import psycopg
            with psycopg.connect(self.location, autocommit=True) as db:
                db.execute(statement)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        yield Backend("sqlite", str(tmp_path / "senses.db"))
        return
    with fresh_schema(request.getfixturevalue("postgres_url")) as url:
        yield Backend("postgresql", url)
