"""Tables of one batch tabulated from one microdata set are protected together (issue 31): a
batch with a `<SUPPRESS> CTA(n)` per table publishes a cell the tables share -- Region x Total of
Region x Size and Region x Sector -- with one value, and every table verifies on its own.

The published tables are read back from the code-value files the batch writes, and checked
against each table built again on its own (its relations, its unsafe cells and levels)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app.batch import plan_jobs, run_batch
from ctadesk.app.batch.tables import build_table
from ctadesk.app.request import ProtectionRequest
from ctadesk.engine.publish.verify import verify
from ctadesk.io.tauargus_batch import read_batch

RDA = """<SEPARATOR> ","
Region 1 9
   <RECODEABLE>
   <TOTCODE> Total
Size 2 9
   <RECODEABLE>
   <TOTCODE> Total
Sector 3 9
   <RECODEABLE>
   <TOTCODE> Total
Turnover 4 999999
   <NUMERIC>
"""
SPANS = (("Region", "Size"), ("Region", "Sector"), ("Size", "Sector"))


def write_batch(folder: Path, records: list[tuple[int, int, int, int]], tables: int) -> Path:
    """Microdata, metadata and a batch with one SUPPRESS CTA and one code-value output per table."""
    (folder / "micro.asc").write_text("".join(f"r{a},s{b},c{c},{v}\n" for a, b, c, v in records))
    (folder / "micro.rda").write_text(RDA)
    lines = ['<LOGBOOK> "log.txt"', '<OPENMICRODATA> "micro.asc"', '<OPENMETADATA> "micro.rda"']
    for span in SPANS[:tables]:
        lines += [f'<SPECIFYTABLE> {"".join(f"{chr(34)}{v}{chr(34)}" for v in span)}|"Turnover"||',
                  "<SAFETYRULE> FREQ(3,20)|P(15,1)"]
    lines.append("<READMICRODATA>")
    for number in range(1, tables + 1):
        lines += [f"<SUPPRESS> CTA({number})", f'<WRITETABLE> ({number}, 3, AS+, "out{number}.txt")']
    (folder / "job.arb").write_text("\n".join(lines) + "\n")
    return folder / "job.arb"


def published(path: Path, dims: int) -> dict[tuple[str, ...], float]:
    """Cell codes (by variable order of the table) -> published value of a code-value output."""
    with open(path, newline="") as handle:
        return {tuple(row[:dims]): float(row[dims]) for row in csv.reader(handle) if row}


records = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 1), st.integers(1, 500)),
                   min_size=12, max_size=40)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=records, tables=st.sampled_from([2, 3]))
def test_tables_of_one_microdata_set_publish_a_shared_cell_once(tmp_path_factory, records, tables):
    folder = tmp_path_factory.mktemp("batch")
    batch = write_batch(folder, records, tables)
    jobs, _ = plan_jobs(read_batch(batch), ProtectionRequest(seed=5))
    assert len(jobs) == 1 and len(jobs[0].tables) == tables and len(jobs[0].linked) == tables - 1
    report = run_batch(batch, request=ProtectionRequest(seed=5, time_limit=60))
    assert report.ok, report.lines()
    by_variable: dict[tuple[str, str], float] = {}
    for number, span in enumerate(SPANS[:tables], start=1):
        table = build_table(jobs[0].tables[number - 1])
        cells = published(folder / f"out{number}.txt", 2)
        structure = table.structure
        values = np.array([cells[tuple(structure.dimensions[d].codes[i].strip() for d, i in enumerate(index))]
                           for index in np.ndindex(*structure.shape)])
        assert verify(table.problem, values).ok, f"table {number} does not verify"
        for (a, b), value in cells.items():
            for variable, code, other in ((span[0], a, b), (span[1], b, a)):
                if other == "Total":                   # a one-way margin the other tables may hold
                    seen = by_variable.setdefault((variable, code), value)
                    assert abs(seen - value) <= 1e-6 * max(1.0, abs(value)), (variable, code, seen, value)
