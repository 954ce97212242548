"""Excel import and export of a 1000 x 1000 table, with peak memory.

The workbook: a title row, a header row and a 2-D table of 1000 x 1000 cells
(999 rows and columns of integers plus a total row and a total column), written
once with openpyxl into a temporary directory.  Phases, each in its own process
so the peak resident memory printed is that phase's; besides the seconds it
took, each prints the processor seconds it used (all its threads), which other
work on the machine disturbs less:

    import            ctadesk.io.excel.import_table (what `ctadesk convert t.xlsx t.jj` runs)
    release           export_workbook, release (the source's layout)
    internal          export_workbook, internal (with ORIGINAL and DIFFERENCE sheets)
    release-default   export_table_workbook, release (the default layout)
    internal-default  export_table_workbook, internal (with the Cells sheet)

The export phases take the table the import phase read (pickled) and a fake
protected table: 10 % of the inner cells sensitive, moved by a few units.

    .venv/bin/python benchmarks/excel.py              # every phase
    .venv/bin/python benchmarks/excel.py release      # one phase (and the import it needs)
    .venv/bin/python benchmarks/excel.py --repeat 3   # every phase three times, then the medians
"""

from __future__ import annotations

import pickle
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZE = 1000
PHASES = ["import", "release", "internal", "release-default", "internal-default"]
#: the figures of a phase's line
_RESULT = re.compile(r"^(\S+)\s+([\d.]+) s\s+cpu\s+([\d.]+) s\s+peak\s+(\d+) MiB", re.MULTILINE)


def make_workbook(path: Path) -> None:
    """The benchmark workbook: title, header, rows of a label and numbers, totals last."""
    import openpyxl

    rng = np.random.default_rng(1)
    inner = rng.integers(1, 1000, (SIZE - 1, SIZE - 1))
    grid = np.zeros((SIZE, SIZE), np.int64)
    grid[:-1, :-1] = inner
    grid[-1, :-1] = inner.sum(axis=0)
    grid[:-1, -1] = inner.sum(axis=1)
    grid[-1, -1] = inner.sum()
    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Table")
    sheet.append(["Turnover by region and branch"])
    sheet.append(["Region", *(f"B{j + 1}" for j in range(SIZE - 1)), "Total"])
    for i, row in enumerate(grid.tolist()):
        sheet.append(["Total" if i == SIZE - 1 else f"R{i + 1}", *row])
    workbook.save(path)


def run_phase(phase: str, folder: Path) -> None:
    source, pickled = folder / "table.xlsx", folder / "table.pickle"
    started, processor = time.perf_counter(), time.process_time()
    if phase == "import":
        from ctadesk.io.excel import import_table

        table = import_table(source)
        seconds, processor = time.perf_counter() - started, time.process_time() - processor
        pickled.write_bytes(pickle.dumps(table))
        detail = f"{table.structure.shape[0]} x {table.structure.shape[1]} cells"
    else:
        from ctadesk.io.excel import export_table_workbook, export_workbook

        table = pickle.loads(pickled.read_bytes())
        original = table.values
        rng = np.random.default_rng(2)
        inner = np.flatnonzero(table.structure.inner_mask())
        sensitive = np.sort(rng.choice(inner, inner.size // 10, replace=False))
        adjusted = original.copy()
        adjusted[sensitive] += rng.integers(-5, 6, sensitive.size)
        internal = phase.startswith("internal")
        target = folder / f"{phase}.xlsx"
        started, processor = time.perf_counter(), time.process_time()
        if phase.endswith("default"):
            export_table_workbook(target, table.structure, original, adjusted, sensitive, internal=internal)
        else:
            export_workbook(target, [table], [adjusted], [sensitive], internal=internal)
        seconds, processor = time.perf_counter() - started, time.process_time() - processor
        detail = f"{sensitive.size} sensitive, {target.stat().st_size / 2**20:.1f} MB written"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{phase:17s} {seconds:7.2f} s   cpu {processor:6.2f} s   peak {peak:6.0f} MiB   {detail}", flush=True)


def main() -> None:
    arguments = sys.argv[1:]
    if len(arguments) == 2 and arguments[0] in PHASES:
        run_phase(arguments[0], Path(arguments[1]))
        return
    repeat = 1
    if arguments[:1] == ["--repeat"]:
        repeat, arguments = int(arguments[1]), arguments[2:]
    phases = arguments or PHASES
    if "import" not in phases:
        phases = ["import", *phases]
    figures: dict[str, list[tuple[float, ...]]] = {phase: [] for phase in phases}  # seconds, cpu, peak
    with tempfile.TemporaryDirectory(prefix="ctadesk-excel-bench-") as name:
        folder = Path(name)
        started = time.perf_counter()
        make_workbook(folder / "table.xlsx")
        print(f"workbook of {SIZE} x {SIZE} table cells written in {time.perf_counter() - started:.1f} s "
              f"({(folder / 'table.xlsx').stat().st_size / 2**20:.1f} MB)", flush=True)
        for _ in range(repeat):
            for phase in phases:
                printed = subprocess.run([sys.executable, __file__, phase, str(folder)], check=True,
                                         capture_output=True, text=True).stdout
                print(printed, end="", flush=True)
                figures[phase].append(tuple(map(float, _RESULT.search(printed).groups()[1:])))
    if repeat > 1:
        print(f"medians of {repeat} runs:")
        for phase, runs in figures.items():
            seconds, processor, peak = (statistics.median(run[k] for run in runs) for k in range(3))
            print(f"{phase:17s} {seconds:7.2f} s   cpu {processor:6.2f} s   peak {peak:6.0f} MiB")


if __name__ == "__main__":
    main()
