"""On-line CTA (Castro & González 2011, §4): tables requested one after another are protected consistently."""

import multiprocessing
import sqlite3
from collections import defaultdict

import numpy as np
import pytest

from ctadesk.app.online import OnlineError, OnlineService, cell_keys, open_store
from ctadesk.app.online.service import EMPTY, PUBLISHED, TableWithheld, check_sides
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.app.online.published import both_sides, publish_all
from tests.app.online.stores import new_store
from tests.app.online.synthetic import RULES, firms

TABLES = [("Region", "Size"), ("Region",), ("Size", "Region", "Sector"), ("Sector", "Region"), ("Size",)]
SPAWN = multiprocessing.get_context("spawn")


@pytest.mark.parametrize("senses", ["data", "local", "table"])
def test_the_averaging_attack_is_prevented(tmp_path, senses):
    with OnlineService(tmp_path / "senses.db", firms(seed=0), RULES, measure="Turnover", senses=senses,
                       init_store=True) as service:
        seen = publish_all(service, TABLES)
    repeated = {key: cell for key, cell in seen.items() if len(cell) > 1}
    # local and table senses: tables that would not verify are withheld
    assert len(repeated) >= 5 or senses != "data"
    assert both_sides(seen) == []
    for publications in repeated.values():
        original, _, lower, upper = publications[0]
        mean = np.mean([published for _, published, _, _ in publications])
        assert not original - lower + 1e-9 < mean < original + upper - 1e-9


def test_senses_persist_in_a_reopened_store(tmp_path):
    path = tmp_path / "senses.db"
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover", init_store=True) as service:
        first = publish_all(service, [("Size", "Region", "Sector")])
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover") as service:
        second = publish_all(service, [("Region", "Size"), ("Region",)])
        stored = len(service.store.sense_records())
    assert stored == len(first)
    assert both_sides({key: first[key] + second.get(key, []) for key in first}) == []


def test_the_published_table_does_not_tell_sensitive_cells_apart(tmp_path):
    with OnlineService(tmp_path / "senses.db", firms(seed=0), RULES, measure="Turnover", init_store=True) as service:
        table = service.publish(("Region", "Size"))
        _, problem = service.problem(("Region", "Size"))
    assert problem.n_sensitive > 0 and table.office.sensitive == problem.n_sensitive
    records = table.records()
    assert set(records[0]) == {"Region", "Size", "Turnover", "status"}
    assert {record["status"] for record in records} <= {EMPTY, PUBLISHED}


def test_a_later_table_keeps_the_values_published_before(tmp_path):
    with OnlineService(tmp_path / "senses.db", firms(seed=0), RULES, measure="Turnover", init_store=True) as service:
        two_way = service.publish(("Region", "Size"))
        one_way = service.publish(("Region",))
        _, problem = service.problem(("Region",))
    margins = {record["Region"]: record["Turnover"] for record in two_way.records() if record["Size"] == "Total"}
    assert one_way.office.pinned == 7 - problem.n_sensitive
    for record in one_way.records():
        assert record["Turnover"] == pytest.approx(margins[record["Region"]], rel=1e-9)


def dominated_region() -> Microdata:
    """N1 and N2 each dominated by one firm, and so is their total: all three cells sensitive."""
    region = Dimension.flat("Region", ["N1", "N2"])
    return Microdata(TableStructure((region,)), (np.array([0, 0, 1, 1]),), np.array([1000.0, 1.0, 500.0, 1.0]))


def test_senses_that_admit_no_table_withhold_the_table_and_record_nothing(tmp_path):
    """Issue 30: the soft second stage's table, which does not add up, was served as 200; now the
    table is withheld, naming what it would have given up and no value, and no value is recorded."""
    path = tmp_path / "senses.db"
    with new_store(path, dominated_region(), SafetyRules(dominance=((1, 60),))) as store:
        # both parts up and their total down: no additive table exists
        store.decide("Turnover", ("Region",), ["Region=N1", "Region=N2", ""],
                     {"Region=N1": 1, "Region=N2": 1, "": -1}, "local")
    rules = SafetyRules(dominance=((1, 60),))
    with OnlineService(path, dominated_region(), rules, measure="Turnover") as service:
        with pytest.raises(TableWithheld, match=r"withheld: .*given up\); none of its values was recorded") as withheld:
            service.publish(("Region",))
        assert not any(character.isdigit() for character in str(withheld.value).split("(")[0])
        assert service.store.published_values("Turnover", ["Region=N1", "Region=N2", ""]) == {}


def test_data_senses_come_from_the_full_table_once(tmp_path):
    path = tmp_path / "senses.db"
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover", init_store=True) as service:
        lines = service.prepare()
        full, problem = service.problem(("Region", "Size", "Sector"))
        table = service.publish(("Sector", "Region"))
        records = service.store.sense_records("Turnover")
    assert "full table Region x Size x Sector" in lines[0] and service.full_table_failure is None
    assert len(records) == problem.n_sensitive and {r.chosen_by for r in records} == {"data"}
    assert table.office.new_senses == 0 and table.office.chosen_by == "data" and not table.office.relaxation
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover") as again:
        assert again.prepare() == [f"full table Region x Size x Sector ({full.n_cells} cells): every one of its "
                                   f"{problem.n_sensitive} sensitive cells has a sense"]
        assert len(again.store.tables()) == 2                   # the full table's request and the table


def test_with_data_senses_every_table_is_read_from_the_protected_full_table(tmp_path):
    with OnlineService(tmp_path / "senses.db", firms(seed=0), RULES, measure="Turnover", init_store=True) as service:
        service.prepare()
        tables = {spanning: service.publish(spanning) for spanning in [*TABLES, ("Region", "Size", "Sector")]}
        published = defaultdict(set)
        for table in tables.values():
            for key, value in zip(cell_keys(table.structure), table.values):
                published[key].add(float(value))
        reference = service.store.reference_values("Turnover", list(published))
    assert all(table.office.values_from == "full" and
               table.office.status == "feasible" and not table.office.relaxation for table in tables.values())
    assert len(reference) == len(published) and all(values == {reference[key]} for key, values in published.items())


def test_values_table_protects_each_table_with_its_own_second_stage(tmp_path):
    with OnlineService(tmp_path / "senses.db", firms(seed=0), RULES, measure="Turnover", values="table",
                       init_store=True) as service:
        seen = publish_all(service, TABLES)
        table = service.publish(("Region", "Size"))
    assert table.office.values_from == "table" and "second stage:" in table.office.lines()[1]
    assert both_sides(seen) == []
    with pytest.raises(OnlineError, match="values 'full' are read from the full table, which senses 'local'"):
        OnlineService(tmp_path / "other.db", firms(seed=0), RULES, measure="Turnover", senses="local", values="full")


def test_a_table_abandoned_by_its_requester_is_not_recorded_as_published(tmp_path):
    with OnlineService(tmp_path / "senses.db", firms(seed=0), RULES, measure="Turnover", values="table",
                       init_store=True) as service:
        with pytest.raises(OnlineError, match="Region x Size: abandoned by its requester; not published"):
            service.publish(("Region", "Size"), abandoned=lambda: True)
        assert [table.published for table in service.store.tables()] == [None, None]   # the full table's, this one
        assert service.store.counts()["published_values"] == 0
        service.publish(("Region", "Size"), abandoned=lambda: False)
        assert service.store.counts()["published_values"] > 0


def test_a_store_without_protected_values_gets_them_from_its_senses(tmp_path):
    path = tmp_path / "senses.db"
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover", init_store=True) as service:
        service.prepare()
        senses = {record.cell: record.sense for record in service.store.sense_records()}
    with sqlite3.connect(path) as db:                           # as a store of schema 1 would be
        db.execute("DELETE FROM reference_values")
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover") as service:
        lines = service.prepare()
        table = service.publish(("Region", "Size"))
        assert {record.cell: record.sense for record in service.store.sense_records()} == senses
    assert "protected by the senses stored; 0 senses and its protected values stored" in lines[0]
    assert table.office.values_from == "full" and not table.office.relaxation


def test_data_senses_keep_the_senses_stored_before(tmp_path):
    path = tmp_path / "senses.db"
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover", senses="local", init_store=True) as local:
        seen = publish_all(local, [("Region", "Size")])
    before = {record.cell: record.sense for record in open_store(path).sense_records()}
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover") as service:
        later = publish_all(service, [("Size", "Region", "Sector"), ("Region",)])
        after = {record.cell: record.sense for record in service.store.sense_records()}
    assert before and all(after[cell] == sense for cell, sense in before.items())
    assert both_sides({key: seen.get(key, []) + later.get(key, []) for key in seen.keys() | later.keys()}) == []


def test_a_full_table_too_large_for_data_senses_is_refused_by_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr("ctadesk.app.online.service.FULL_TABLE_CELLS", 50)
    with OnlineService(tmp_path / "senses.db", firms(seed=0), RULES, measure="Turnover", init_store=True) as service:
        for _ in range(2):          # refused at every request, never local senses instead
            with pytest.raises(OnlineError, match=r"full table Region x Size x Sector has \d+ cells.*up to 50"):
                service.publish(("Region",))


def test_a_cell_on_the_other_side_of_its_sense_is_never_published():
    problem = CTAProblem(values=[10.0, 5.0, 15.0], relations=[[1.0, 1.0, -1.0]], sensitive=[0],
                         lower_protection=[2.0], upper_protection=[2.0])
    check_sides(problem, np.array([1]), np.array([12.0, 5.0, 17.0]))
    with pytest.raises(OnlineError, match="other side of its stored sense"):
        check_sides(problem, np.array([1]), np.array([9.0, 5.0, 14.0]))


def test_an_unknown_variable_is_named_before_any_work(tmp_path, monkeypatch):
    """A new store first protects its full table (up to FULL_TABLE_BUDGET seconds): a request
    naming no variable of the data is refused before that."""
    with OnlineService(tmp_path / "senses.db", firms(), RULES, measure="Turnover", init_store=True) as service:
        monkeypatch.setattr(service, "prepare", lambda: pytest.fail("the full table was protected first"))
        with pytest.raises(OnlineError, match=r"no variable 'Industry'.*Region, Size, Sector"):
            service.publish(("Region", "Industry"))
        with pytest.raises(OnlineError, match="names a variable twice"):
            service.publish(("Region", "Region"))


def _publish_in_a_process(path, tables, results) -> None:
    with OnlineService(path, firms(seed=0), RULES, measure="Turnover", senses="local") as service:
        results.put(dict(publish_all(service, tables)))


def test_two_processes_publishing_at_once_keep_every_cell_on_one_side(tmp_path):
    path = tmp_path / "senses.db"
    new_store(path, firms(seed=0), RULES).close()
    results = SPAWN.Queue()
    workers = [SPAWN.Process(target=_publish_in_a_process, args=(path, tables, results))
               for tables in (TABLES, TABLES[::-1])]
    for worker in workers:
        worker.start()
    seen = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    merged = {key: seen[0].get(key, []) + seen[1].get(key, []) for key in seen[0].keys() | seen[1].keys()}
    assert both_sides(merged) == []
    with open_store(path) as store:
        assert len(store.sense_records()) >= len(merged)     # a withheld table's new senses stay stored
        assert len(store.tables()) == 2 * len(TABLES)
