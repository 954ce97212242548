"""Issue 14's check (Castro & González 2011, §4): 200 random tables (random 2-3 of four spanning variables, the
hierarchical ones cut at random levels) from one synthetic microdata set, published one after
another from one store: no sensitive cell is ever published on both sides of its true value, the
mean of its publications never falls inside its protection interval, no sensitive cell falls short
of its protection level, and every table verifies by the independent checker.

With senses from the full table (``data``, the default) every table verifies.  With ``local`` or
``table`` senses that cannot be asserted: stored senses may admit no table later (Castro & González 2011, §4:
"in no way it guarantees that second stage problems of future tables will be feasible"), and
then the table is withheld (issue 30: before, the soft second stage published a table that did
not add up, and said so to the office only).  Every table served verifies."""

import random
from collections import defaultdict

import numpy as np
import pytest

from ctadesk.app.online import OnlineService, cell_keys
from ctadesk.app.online.service import TableWithheld
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.app.online.checker import both_sides, cell_names, full_original, problems
from tests.app.online.stores import new_store
from tests.app.online.synthetic import RULES

#: the store's secret (a fresh store draws one): the local senses, and so the tables, are the same
#: at every run.  This one drew the stream on which a table was withheld (a cell exactly at the p %
#: threshold flagged by a rounding, then left 1.4e-5 across its sense by the soft second stage)
SECRET = "b0a779ed51542d3566416311b7f227e46398307e76d382f693ed0cd825b52aba"

TABLES = 200


def firms(seed: int = 3, records: int = 500) -> Microdata:
    """Firms by Region (three levels), Sector (two), Size and Legal form, lognormal turnover."""
    region = Dimension.from_levels(
        "Region", [1, 2, 3, 3, 2, 3, 3, 3, 1, 2, 3, 3, 2, 3, 3],
        ["N", "N1", "N1a", "N1b", "N2", "N2a", "N2b", "N2c", "S", "S1", "S1a", "S1b", "S2", "S2a", "S2b"])
    sector = Dimension.from_levels("Sector", [1, 2, 2, 2, 1, 2, 2, 1, 2, 2],
                                   ["A", "A1", "A2", "A3", "B", "B1", "B2", "C", "C1", "C2"])
    structure = TableStructure((region, sector, Dimension.flat("Size", ["1", "2", "3", "4"]),
                                Dimension.flat("Legal", ["co", "sole", "coop"])))
    rng = np.random.default_rng(seed)
    codes = tuple(rng.choice(np.flatnonzero(d.is_leaf), records) for d in structure.dimensions)
    return Microdata(structure, codes, np.round(rng.lognormal(3.0, 1.5, records), 1))


def random_tables(microdata: Microdata, count: int, seed: int = 11) -> list[tuple[str, ...]]:
    """``count`` tables: 2 or 3 of the variables in random order, hierarchies at a random level
    (or whole)."""
    rng = random.Random(seed)
    dimensions = microdata.structure.dimensions
    depth = {d.name: int(d.depth.max()) for d in dimensions}
    tables = []
    for _ in range(count):
        chosen = rng.sample([d.name for d in dimensions], rng.choice([2, 3]))
        tables.append(tuple(name if depth[name] == 1 or rng.random() < 0.4 else f"{name}:{rng.randint(1, depth[name])}"
                            for name in chosen))
    return tables


@pytest.mark.slow
@pytest.mark.parametrize("senses, values", [("data", "full"), ("data", "table"), ("local", "table"),
                                            ("table", "table")])
def test_two_hundred_random_tables_are_consistent_and_verify(tmp_path, senses, values):
    microdata = firms()
    publications: dict = {}
    levels_seen = set()
    read = defaultdict(set)
    withheld = 0
    # local senses drawn from a fixed secret: one stream
    with new_store(tmp_path / "senses.db", microdata, RULES) as store:
        store._db.execute("UPDATE meta SET value = ? WHERE name = 'secret'", (SECRET,))
    with OnlineService(tmp_path / "senses.db", microdata, RULES, measure="Turnover", senses=senses,
                       values=values, time_budget=2.0) as service:
        for spanning in random_tables(microdata, TABLES):
            levels_seen.update(item for item in spanning if ":" in item)
            structure, problem = service.problem(spanning)
            try:
                table = service.publish(spanning)
            except TableWithheld:
                withheld += 1
                continue
            original, counts = full_original(microdata, spanning, structure)
            np.testing.assert_allclose(problem.values, original.reshape(-1), rtol=1e-12, atol=1e-9)
            few = np.flatnonzero((counts.reshape(-1) > 0) & (counts.reshape(-1) < RULES.min_frequency))
            assert set(few) <= set(problem.sensitive.tolist())
            keys = cell_keys(structure)
            stored = service.store.senses("Turnover", [keys[i] for i in problem.sensitive])
            senses_of = np.array([stored[keys[i]] for i in problem.sensitive])
            found = problems(structure, original, table.values, problem.sensitive, problem.lower_protection,
                             problem.upper_protection, senses_of)
            assert not found, (spanning, found)        # a table that does not verify is withheld, never served
            assert (table.office.values_from == "full") == (values == "full" and not service.full_table_failure)
            names = cell_names(structure)
            for i, name in enumerate(names):
                read[name].add(float(table.values[i]))
            for k, i in enumerate(problem.sensitive):
                publications.setdefault(names[i], []).append(
                    (original.reshape(-1)[i], table.values[i], problem.lower_protection[k],
                     problem.upper_protection[k], not found))
    repeated = sum(len(p) > 1 for p in publications.values())
    assert len(levels_seen) >= 3 and (repeated >= 50 or withheld)     # withheld tables show fewer cells twice
    # the full table's senses admit every table; this sparse set's full table has only one-sided
    # senses within the time (refused: issue 30), so its tables are protected one by one
    assert withheld == 0 or senses != "data" or service.full_table_failure
    assert both_sides({key: [(a, x) for a, x, *_ in p] for key, p in publications.items()}) == []
    if values == "full":            # one value per cell, whichever tables show it
        assert all(len(published) == 1 for published in read.values())
    for key, p in publications.items():
        if len(p) > 1 and all(protected for *_, protected in p):
            original, _, lower, upper, _ = p[0]
            mean = np.mean([x for _, x, *_ in p])
            assert not original - lower + 1e-6 * abs(original) < mean < original + upper - 1e-6 * abs(original), key
