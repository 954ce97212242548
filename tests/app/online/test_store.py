"""The sense store: versioned schema, first writer wins, durable commits, nothing of a crashed
transaction (paper 000 §4: a sense once used must never be chosen the other way)."""

import multiprocessing
import os
import sqlite3

import pytest

from ctadesk.app.online import SCHEMA_VERSION, SenseStore, StoreError

MEASURE = "Turnover"
FORK = multiprocessing.get_context("fork")


def test_a_reopened_store_holds_the_senses_and_tables(tmp_path):
    path = tmp_path / "senses.db"
    with SenseStore(path) as store:
        table, senses = store.decide(MEASURE, ("Region", "Size"), ["Region=N1", "Size=2"],
                                     {"Region=N1": 1, "Size=2": -1}, "local")
        secret = store.secret
    with SenseStore(path) as store:
        assert store.senses(MEASURE, ["Region=N1", "Size=2", "Size=3"]) == {"Region=N1": 1, "Size=2": -1}
        assert [(t.id, t.spanning) for t in store.tables()] == [(table, ("Region", "Size"))]
        assert store.secret == secret


def test_the_first_sense_stored_wins(tmp_path):
    with SenseStore(tmp_path / "senses.db") as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
        _, senses = store.decide(MEASURE, ("Region", "Size"), ["Region=N1", "Size=2"],
                                 {"Region=N1": -1, "Size=2": -1}, "table")
        assert senses == {"Region=N1": 1, "Size=2": -1}
        assert {r.cell: (r.sense, r.chosen_by) for r in store.sense_records()} == \
            {"Region=N1": (1, "local"), "Size=2": (-1, "table")}


def test_senses_are_kept_per_measure(tmp_path):
    with SenseStore(tmp_path / "senses.db") as store:
        store.decide("Turnover", ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
        store.decide("Employees", ("Region",), ["Region=N1"], {"Region=N1": -1}, "local")
        assert store.senses("Employees", ["Region=N1"]) == {"Region=N1": -1}


def test_a_refused_decision_leaves_nothing(tmp_path):
    with SenseStore(tmp_path / "senses.db") as store:
        with pytest.raises(StoreError, match="cell 'Region=N1': sense 0"):
            store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 0}, "local")
        assert store.tables() == [] and store.sense_records() == []


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "senses.db"
    SenseStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(StoreError, match=f"newer ctadesk \\(sense store schema {SCHEMA_VERSION + 1}"):
        SenseStore(path)


def test_a_schema_1_store_is_brought_up_to_date(tmp_path):
    path = tmp_path / "senses.db"
    with SenseStore(path) as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE reference_values")
        db.execute("UPDATE meta SET value = '1' WHERE name = 'schema_version'")
    with SenseStore(path) as store:
        assert store.senses(MEASURE, ["Region=N1"]) == {"Region=N1": 1} and not store.has_reference(MEASURE)
        store.decide(MEASURE, ("Region",), ["Region=N1"], {}, "data", reference={"Region=N1": 7.5})
        assert store.reference_values(MEASURE, ["Region=N1", "Region=N2"]) == {"Region=N1": 7.5}
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)


def test_protected_values_are_stored_only_with_the_senses_they_belong_to(tmp_path):
    with SenseStore(tmp_path / "senses.db") as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "data", reference={"Region=N1": 12.0})
        # another process chose the other sense: its table is not the store's
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": -1}, "data", reference={"Region=N1": 8.0})
        # the same senses again: the values stored first stay
        store.decide(MEASURE, ("Region",), ["Region=N1"], {}, "data", reference={"Region=N1": 13.0})
        assert store.reference_values(MEASURE, ["Region=N1"]) == {"Region=N1": 12.0}
    with SenseStore(tmp_path / "other.db") as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": -1}, "data", reference={"Region=N1": 8.0})
        assert not store.has_reference(MEASURE)


def test_the_latest_published_value_is_kept(tmp_path):
    with SenseStore(tmp_path / "senses.db") as store:
        first, _ = store.decide(MEASURE, ("Region",), [], {}, "data")
        store.publish(first, MEASURE, {"Region=N1": 10.0, "Region=N2": 4.0})
        second, _ = store.decide(MEASURE, ("Region", "Size"), [], {}, "data")
        store.publish(second, MEASURE, {"Region=N1": 11.0})
        assert store.published_values(MEASURE, ["Region=N1", "Region=N2"]) == {"Region=N1": 11.0, "Region=N2": 4.0}


def test_another_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE customers (name TEXT)")
    with pytest.raises(StoreError, match="not a ctadesk sense store"):
        SenseStore(path)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable sense store"):
        SenseStore(garbage)


def _crash_inside_a_transaction(path) -> None:
    store = SenseStore(path)
    store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")     # committed
    with store.transaction():
        table = store.request_table(MEASURE, ("Region", "Size"))
        store.insert_senses(MEASURE, {"Region=N2": -1, "Size=2": 1}, "local", table)
        os._exit(3)                                                                   # dies before COMMIT


def test_a_crash_mid_transaction_leaves_exactly_the_committed_senses(tmp_path):
    path = tmp_path / "senses.db"
    child = FORK.Process(target=_crash_inside_a_transaction, args=(path,))
    child.start()
    child.join(30)
    assert child.exitcode == 3
    with SenseStore(path) as store:
        assert [r.cell for r in store.sense_records()] == ["Region=N1"]
        assert [t.spanning for t in store.tables()] == [("Region",)]
        store.decide(MEASURE, ("Size",), ["Size=2"], {"Size=2": -1}, "local")        # the lock was released
        assert store.senses(MEASURE, ["Size=2"]) == {"Size=2": -1}


def _decide_many(path, sense: int, cells: list[str], results) -> None:
    with SenseStore(path) as store:
        for cell in cells:
            _, senses = store.decide(MEASURE, ("Region",), [cell], {cell: sense}, f"process {sense}")
            results.put((cell, senses[cell]))


def test_two_processes_deciding_at_once_agree_on_every_sense(tmp_path):
    path = tmp_path / "senses.db"
    SenseStore(path).close()
    cells = [f"Region=R{k}" for k in range(60)]
    results = FORK.Queue()
    workers = [FORK.Process(target=_decide_many, args=(path, sense, cells, results)) for sense in (1, -1)]
    for worker in workers:
        worker.start()
    seen = [results.get(timeout=60) for _ in range(2 * len(cells))]
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    with SenseStore(path) as store:
        stored = store.senses(MEASURE, cells)
    assert len(stored) == len(cells)
    assert all(stored[cell] == sense for cell, sense in seen)
