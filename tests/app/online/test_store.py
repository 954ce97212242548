"""The sense store on both back ends (SQLite, PostgreSQL: conftest.backend): versioned schema,
made only on request and bound to what it protects, first writer wins, durable commits, nothing
of a crashed transaction, a health state (Castro & González 2011, §4: a sense once used must never be chosen
the other way; issue 30)."""

import dataclasses
import multiprocessing
import os
import signal
import types

import pytest

from ctadesk.app.online import SCHEMA_VERSION, StoreBinding, StoreError, open_store, store_sqlite
from ctadesk.app.online.store import CORRUPT, OK, READ_ONLY

MEASURE = "Turnover"
FORK = multiprocessing.get_context("fork")
BINDING = StoreBinding(MEASURE, "f" * 64, 120, {"Region": "a" * 64, "Size": "b" * 64},
                       {"min_frequency": 3, "p_percent": [10.0]})


def new(backend):
    return open_store(backend.location, BINDING, create=True)


def test_a_reopened_store_holds_the_senses_and_tables(backend):
    with new(backend) as store:
        table, _ = store.decide(MEASURE, ("Region", "Size"), ["Region=N1", "Size=2"],
                                     {"Region=N1": 1, "Size=2": -1}, "local")
        secret = store.secret
    with open_store(backend.location, BINDING) as store:
        assert store.senses(MEASURE, ["Region=N1", "Size=2", "Size=3"]) == {"Region=N1": 1, "Size=2": -1}
        assert [(t.id, t.spanning) for t in store.tables()] == [(table, ("Region", "Size"))]
        assert store.secret == secret and store.binding == BINDING


def test_the_first_sense_stored_wins(backend):
    with new(backend) as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
        _, senses = store.decide(MEASURE, ("Region", "Size"), ["Region=N1", "Size=2"],
                                 {"Region=N1": -1, "Size=2": -1}, "table")
        assert senses == {"Region=N1": 1, "Size=2": -1}
        assert {r.cell: (r.sense, r.chosen_by) for r in store.sense_records()} == \
            {"Region=N1": (1, "local"), "Size=2": (-1, "table")}


def test_senses_are_kept_per_measure(backend):
    with new(backend) as store:
        store.decide("Turnover", ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
        store.decide("Employees", ("Region",), ["Region=N1"], {"Region=N1": -1}, "local")
        assert store.senses("Employees", ["Region=N1"]) == {"Region=N1": -1}


def test_a_refused_decision_leaves_nothing(backend):
    with new(backend) as store:
        with pytest.raises(StoreError, match="cell 'Region=N1': sense 0"):
            store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 0}, "local")
        assert store.tables() == [] and store.sense_records() == []


def test_a_newer_schema_is_refused(backend):
    new(backend).close()
    backend.execute(f"UPDATE meta SET value = '{SCHEMA_VERSION + 1}' WHERE name = 'schema_version'")
    with pytest.raises(StoreError, match=f"newer ctadesk \\(sense store schema {SCHEMA_VERSION + 1}"):
        open_store(backend.location, BINDING)


def test_a_schema_1_store_is_brought_up_to_date_and_bound_on_request(backend):
    with new(backend) as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
    backend.execute("DROP TABLE reference_values")
    backend.execute("DELETE FROM meta WHERE name IN ('measure', 'records', 'record_count', 'variables', 'rules')")
    backend.execute("UPDATE meta SET value = '1' WHERE name = 'schema_version'")
    with pytest.raises(StoreError, match="made by an older ctadesk and records nothing"):
        open_store(backend.location, BINDING)
    with open_store(backend.location, BINDING, create=True) as store:       # --init-store binds it
        assert store.senses(MEASURE, ["Region=N1"]) == {"Region=N1": 1} and not store.has_reference(MEASURE)
        store.decide(MEASURE, ("Region",), ["Region=N1"], {}, "data", reference={"Region=N1": 7.5})
        assert store.reference_values(MEASURE, ["Region=N1", "Region=N2"]) == {"Region=N1": 7.5}
    with open_store(backend.location, BINDING) as store:
        assert store.binding == BINDING
        assert store._execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone() == \
            (str(SCHEMA_VERSION),)


def test_protected_values_are_stored_only_with_the_senses_they_belong_to(backend):
    with new(backend) as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "data", reference={"Region=N1": 12.0})
        # another process chose the other sense: its table is not the store's
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": -1}, "data", reference={"Region=N1": 8.0})
        # the same senses again: the values stored first stay
        store.decide(MEASURE, ("Region",), ["Region=N1"], {}, "data", reference={"Region=N1": 13.0})
        assert store.reference_values(MEASURE, ["Region=N1"]) == {"Region=N1": 12.0}
        store.decide("Employees", ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
        store.decide("Employees", ("Region",), ["Region=N1"], {"Region=N1": -1}, "data", reference={"Region=N1": 8.0})
        assert not store.has_reference("Employees")


def test_the_latest_published_value_is_kept(backend):
    with new(backend) as store:
        first, _ = store.decide(MEASURE, ("Region",), [], {}, "data")
        store.publish(first, MEASURE, {"Region=N1": 10.0, "Region=N2": 4.0})
        second, _ = store.decide(MEASURE, ("Region", "Size"), [], {}, "data")
        store.publish(second, MEASURE, {"Region=N1": 11.0})
        assert store.published_values(MEASURE, ["Region=N1", "Region=N2"]) == {"Region=N1": 11.0, "Region=N2": 4.0}
        assert store.counts() == {"tables_requested": 2, "tables_published": 2, "senses": 0, "published_values": 2}


# ------------------------------------------------------------ made only on request, bound to its data
def test_a_missing_store_is_refused_not_started_afresh(backend):
    with pytest.raises(StoreError, match="--init-store"):
        open_store(backend.location, BINDING)
    with pytest.raises(StoreError, match="--init-store"):
        open_store(backend.location)                       # reading, too
    new(backend).close()
    with pytest.raises(StoreError, match="already holds a sense store"):
        new(backend)


def test_an_emptied_store_is_refused(backend, tmp_path):
    with new(backend) as store:
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
    if backend.kind == "sqlite":
        open(backend.location, "wb").close()                  # truncated to 0 bytes
        match = "is empty \\(0 bytes\\): was it truncated"
    else:
        backend.execute("DELETE FROM meta")
        match = "the sense store is empty"
    for create in (False, True):
        with pytest.raises(StoreError, match=match):
            open_store(backend.location, BINDING, create=create)


def test_another_database_is_refused(backend, tmp_path):
    backend.execute("CREATE TABLE customers (name TEXT)")
    with pytest.raises(StoreError, match="is a database but not a ctadesk sense store \\(it has other tables only"):
        open_store(backend.location, BINDING)
    if backend.kind == "sqlite":
        garbage = tmp_path / "garbage.db"
        garbage.write_bytes(b"not a database at all" * 100)
        with pytest.raises(StoreError, match="not a usable sense store"):
            open_store(garbage, BINDING)


@pytest.mark.parametrize("change, reason", [
    ({"measure": "Employees"}, "it protects the measure 'Turnover', not 'Employees'"),
    ({"records": "e" * 64}, "it protects other microdata \\(120 records"),
    ({"record_count": 121}, "it protects other microdata"),
    ({"variables": {"Region": "c" * 64}}, "the codes or the hierarchy of Region differ"),
    ({"rules": {"min_frequency": 4, "p_percent": [10.0]}}, "other safety rules \\(min_frequency 3 there, 4 here\\)"),
])
def test_a_store_bound_to_other_data_is_refused(backend, change, reason):
    new(backend).close()
    with pytest.raises(StoreError, match=reason):
        open_store(backend.location, dataclasses.replace(BINDING, **change))


def test_a_variable_the_store_has_not_seen_is_added_to_its_binding(backend):
    new(backend).close()
    wider = dataclasses.replace(BINDING, variables={"Region": "a" * 64, "Sector": "d" * 64})
    open_store(backend.location, wider).close()
    with open_store(backend.location, BINDING) as store:
        assert store.binding.variables == {"Region": "a" * 64, "Size": "b" * 64, "Sector": "d" * 64}
    with pytest.raises(StoreError, match="of Sector differ"):
        open_store(backend.location, dataclasses.replace(BINDING, variables={"Sector": "e" * 64}))


def test_a_binding_is_needed_to_make_a_store(backend):
    with pytest.raises(StoreError, match="none was given"):
        open_store(backend.location, create=True)


# ------------------------------------------------------------ health
def test_a_sound_store_is_ok_and_a_read_only_one_is_said(backend):
    with new(backend) as store:
        assert store.state().ok and store.state().as_dict() == {"status": OK, "reason": ""}
        if backend.kind == "sqlite":
            store._execute("PRAGMA query_only = ON")
        else:
            store._execute("SET default_transaction_read_only = on")
        state = store.state()
        assert state.status == READ_ONLY and backend.location.split("?")[0] in state.reason


def test_a_damaged_store_is_corrupt_and_refused_at_start(backend):
    with new(backend) as store:
        cells = [f"Region=R{k}" for k in range(3000)]
        store.decide(MEASURE, ("Region",), cells, dict.fromkeys(cells, 1), "local")
        if backend.kind == "sqlite":
            store._execute("PRAGMA wal_checkpoint(TRUNCATE)")
            with open(backend.location, "r+b") as file:             # 8 KB of random bytes mid-file
                file.seek(os.path.getsize(backend.location) // 2 // 4096 * 4096)
                file.write(os.urandom(8192))
        else:
            backend.execute("DROP TABLE reference_values")
        state = store.state()
    assert state.status == CORRUPT, state
    with pytest.raises(StoreError, match=r"damaged|gone|not a usable"):
        open_store(backend.location, BINDING)


def test_a_replaced_or_full_sqlite_store_is_said(tmp_path, monkeypatch):
    path = tmp_path / "senses.db"
    with open_store(path, BINDING, create=True) as store:
        monkeypatch.setattr(store_sqlite.shutil, "disk_usage", lambda _: types.SimpleNamespace(free=4096))
        assert store.state().status == READ_ONLY and "4 KiB free" in store.state().reason
        monkeypatch.undo()
        os.replace(path, tmp_path / "moved.db")
        path.write_bytes((tmp_path / "moved.db").read_bytes())
        assert store.state().status == CORRUPT and "replaced" in store.state().reason


def test_a_postgres_store_reconnects_after_its_connection_was_cut(backend):
    if backend.kind != "postgresql":
        pytest.skip("PostgreSQL only")
    with new(backend) as store:
        pid = store._db.info.backend_pid
        backend.execute(f"SELECT pg_terminate_backend({pid})")
        assert store.state().ok
        store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")
        assert store.senses(MEASURE, ["Region=N1"]) == {"Region=N1": 1}


def test_a_postgres_password_is_never_shown(postgres_url):
    url = postgres_url.replace("postgresql://ctadesk@", "postgresql://ctadesk:s3cret@").replace(
        ":" + postgres_url.rsplit(":", 1)[1].split("/")[0], ":1")       # a port nothing listens on
    with pytest.raises(StoreError, match="cannot connect") as error:
        open_store(url + "?password=s3cret2", BINDING)
    assert "s3cret" not in str(error.value) and "postgresql://ctadesk@127.0.0.1:1/" in str(error.value)


# ------------------------------------------------------------ several processes
def _crash_inside_a_transaction(location) -> None:
    store = open_store(location, BINDING)
    store.decide(MEASURE, ("Region",), ["Region=N1"], {"Region=N1": 1}, "local")     # committed
    with store.transaction():
        table = store.request_table(MEASURE, ("Region", "Size"))
        store.insert_senses(MEASURE, {"Region=N2": -1, "Size=2": 1}, "local", table)
        os._exit(3)                                                                   # dies before COMMIT


def test_a_crash_mid_transaction_leaves_exactly_the_committed_senses(backend):
    new(backend).close()
    child = FORK.Process(target=_crash_inside_a_transaction, args=(backend.location,))
    child.start()
    child.join(30)
    assert child.exitcode == 3
    with open_store(backend.location, BINDING) as store:
        assert [r.cell for r in store.sense_records()] == ["Region=N1"]
        assert [t.spanning for t in store.tables()] == [("Region",)]
        store.decide(MEASURE, ("Size",), ["Size=2"], {"Size=2": -1}, "local")        # the lock was released
        assert store.senses(MEASURE, ["Size=2"]) == {"Size=2": -1}


def _decide_many(location, sense: int, cells: list[str], results, start=None) -> None:
    with open_store(location, BINDING) as store:
        if start is not None:
            start.wait(60)
        for k in range(0, len(cells), 3):                 # overlapping tables of three cells
            table = cells[k:k + 5]
            _, senses = store.decide(MEASURE, ("Region",), table, dict.fromkeys(table, sense), f"process {sense}")
            results.put([(cell, senses[cell]) for cell in table])


def test_two_processes_deciding_at_once_agree_on_every_sense(backend):
    new(backend).close()
    cells = [f"Region=R{k:03d}" for k in range(150)]
    results, start = FORK.Queue(), FORK.Barrier(2)
    workers = [FORK.Process(target=_decide_many, args=(backend.location, sense, order, results, start))
               for sense, order in ((1, cells), (-1, cells[::-1]))]        # opposite orders: no deadlock either
    for worker in workers:
        worker.start()
    seen = [pair for _ in range(2 * len(range(0, len(cells), 3))) for pair in results.get(timeout=120)]
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    with open_store(backend.location, BINDING) as store:
        stored = store.senses(MEASURE, cells)
        records = store.sense_records()
    assert len(stored) == len(cells) == len(records)
    assert all(stored[cell] == sense for cell, sense in seen)           # every process read the one sense


def _hold_a_transaction(location, ready) -> None:
    store = open_store(location, BINDING)
    with store.transaction():
        store._lock_store()
        table = store.request_table(MEASURE, ("Region",))
        store.insert_senses(MEASURE, {f"Region=R{k}": -1 for k in range(20)}, "doomed", table)
        ready.set()
        signal.pause()                                    # killed here, mid-transaction


def test_a_process_killed_mid_transaction_leaves_nothing_and_the_other_goes_on(backend):
    new(backend).close()
    ready, results = FORK.Event(), FORK.Queue()
    doomed = FORK.Process(target=_hold_a_transaction, args=(backend.location, ready))
    doomed.start()
    assert ready.wait(60)
    other = FORK.Process(target=_decide_many, args=(backend.location, 1, [f"Region=R{k}" for k in range(20)], results))
    other.start()                                         # waits for the doomed transaction's locks
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.join(30)
    seen = [pair for _ in range(7) for pair in results.get(timeout=120)]
    other.join(30)
    assert other.exitcode == 0 and all(sense == 1 for _, sense in seen)
    with open_store(backend.location, BINDING) as store:
        assert {r.chosen_by for r in store.sense_records()} == {"process 1"}
        assert len(store.tables()) == 7 and store.state().ok
