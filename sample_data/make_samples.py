"""Make the sample tables and microdata of sample_data/ (README.md there lists them).  Every
file comes from a fixed seed, so running this again writes the same files:

    .venv/bin/python sample_data/make_samples.py

Not made here: thesis_3x4.jj/.senses (paper 003 Figure 6.1, written by hand) and
czech_autoworkers.csv (a copy of a published table; README.md).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

from ctadesk.app.formats import read_microdata
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.generate import GeneratorSpec, cox_table, generate_table
from ctadesk.engine.table.microdata import tabulate
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.hierarchy import read_hrc
from ctadesk.io.jj import write_jj
from ctadesk.io.microdata import MicrodataSpec

HERE = Path(__file__).resolve().parent
SEED = 2026
#: paper 003 Table 6.3: the thesis's table sizes and their numbers of sensitive cells
THESIS_SIZES = {(10, 15): 20, (20, 30): 20, (50, 75): 100, (70, 100): 100, (100, 120): 100}
COX_SHAPES = ((20, 20), (6, 8, 10))

# ------------------------------------------------------------ business register
RECORDS = 20_000
#: region code -> (name, macro-region, share of enterprises)
REGIONS = {"N1": ("Northwest", "N", 0.12), "N2": ("Northeast", "N", 0.08), "C1": ("Capital", "C", 0.30),
           "C2": ("Central Lakes", "C", 0.10), "C3": ("Midlands", "C", 0.15), "S1": ("Southern Coast", "S", 0.17),
           "S2": ("Southern Hills", "S", 0.08)}
MACRO_REGIONS = {"N": "North", "C": "Centre", "S": "South"}
#: industry code (NACE-like division) -> (name, share of enterprises, turnover per person, thousand euro)
INDUSTRIES = {"C10": ("Food products", 0.05, 180), "C25": ("Fabricated metal products", 0.06, 120),
              "C28": ("Machinery and equipment", 0.03, 200), "F41": ("Construction of buildings", 0.08, 150),
              "F43": ("Specialised construction", 0.14, 90), "G45": ("Motor vehicle trade", 0.07, 300),
              "G46": ("Wholesale trade", 0.12, 500), "G47": ("Retail trade", 0.27, 150),
              "M69": ("Legal and accounting", 0.10, 80), "M71": ("Architecture and engineering", 0.076, 90),
              "M72": ("Scientific research", 0.004, 110)}
#: size class -> (label, share of enterprises, persons employed from, to, sampling weight)
SIZE_CLASSES = {"1": ("0-9", 0.80, 1, 9, 12.0), "2": ("10-49", 0.15, 10, 49, 4.0),
                "3": ("50-249", 0.04, 50, 249, 1.5), "4": ("250+", 0.01, 250, 3000, 1.0)}
#: enterprise groups, of 2 to 5 enterprises of 10 or more persons each
HOLDINGS = 300
MICRODATA = "business_microdata"
REGION_HRC, INDUSTRY_HRC = "business_region.hrc", "business_industry.hrc"
COLUMNS = ("id", "region", "industry", "size_class", "employment", "turnover", "holding", "weight")


def thesis_problem(shape: tuple[int, int], sensitive: int, seed: int) -> CTAProblem:
    """A table as the thesis's generator makes them (paper 003 §6.2.3): inner values uniform on
    1..100, ``sensitive`` inner cells at random with whole-number protection levels of 10-30 %
    of their value both ways; as in its worked example (Figure 6.1) inner cells >= 0 and the
    totals fixed."""
    spec = GeneratorSpec(shape=shape, min_value=1, max_value=100, zero_share=0.0, sensitive_count=sensitive,
                         protection_min=0.10, protection_max=0.30, seed=seed)
    structure, problem = generate_table(spec)
    inner = structure.inner_mask().reshape(-1)
    values = problem.values
    levels = np.ceil(problem.upper_protection)
    return problem.replace(lower=np.where(inner, 0.0, values), upper=np.where(inner, np.inf, values),
                           fixed=~inner, lower_protection=levels, upper_protection=levels)


def business_register(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Synthetic enterprises: region, industry, size class, persons employed, turnover (thousand
    euro), holding ('' for none) and a sampling weight by size class.  One very large
    machinery maker in the Midlands dominates its cell."""
    n = RECORDS
    region = rng.choice(list(REGIONS), n, p=[r[2] for r in REGIONS.values()])
    industry = rng.choice(list(INDUSTRIES), n, p=[i[1] for i in INDUSTRIES.values()])
    size_class = rng.choice(list(SIZE_CLASSES), n, p=[s[1] for s in SIZE_CLASSES.values()])
    low = np.array([SIZE_CLASSES[s][2] for s in size_class], float)
    high = np.array([SIZE_CLASSES[s][3] for s in size_class], float)
    employment = np.floor(np.exp(rng.uniform(np.log(low), np.log(high + 1)))).astype(np.int64)
    productivity = np.array([INDUSTRIES[i][2] for i in industry], float)
    turnover = np.maximum(1, np.rint(employment * productivity * rng.lognormal(0.0, 0.6, n))).astype(np.int64)
    giant = 0
    region[giant], industry[giant], size_class[giant] = "C3", "C28", "4"
    employment[giant], turnover[giant] = 3_000, 2_400_000
    holding = np.full(n, "", dtype=object)
    group_sizes = rng.integers(2, 6, HOLDINGS)
    members = rng.choice(np.flatnonzero(size_class != "1"), group_sizes.sum(), replace=False)
    holding[members] = np.repeat([f"H{k:03d}" for k in range(1, HOLDINGS + 1)], group_sizes)
    region_factor = dict(zip(REGIONS, rng.uniform(0.9, 1.1, len(REGIONS))))
    weight = np.round([SIZE_CLASSES[s][4] * (region_factor[r] if s in ("1", "2") else 1.0)
                       for s, r in zip(size_class, region)], 2)
    return {"id": np.array([f"E{k:05d}" for k in range(1, n + 1)]), "region": region, "industry": industry,
            "size_class": size_class, "employment": employment, "turnover": turnover, "holding": holding,
            "weight": weight}


def write_hierarchies() -> None:
    """tau-argus .hrc files: macro-regions over regions, NACE sections over divisions."""
    regions = [line for macro in MACRO_REGIONS
               for line in (macro, *(f"@{code}" for code, r in REGIONS.items() if r[1] == macro))]
    sections = dict.fromkeys(code[0] for code in INDUSTRIES)
    industries = [line for section in sections
                  for line in (section, *(f"@{code}" for code in INDUSTRIES if code[0] == section))]
    (HERE / REGION_HRC).write_text("\n".join(regions) + "\n", encoding="utf-8")
    (HERE / INDUSTRY_HRC).write_text("\n".join(industries) + "\n", encoding="utf-8")


def write_microdata(register: dict[str, np.ndarray]) -> None:
    """The register as CSV, xlsx and SPSS .sav, the same records in each."""
    import openpyxl
    import pandas as pd
    import pyreadstat

    rows = list(zip(*(register[c].tolist() for c in COLUMNS)))
    with open(HERE / f"{MICRODATA}.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("enterprises")
    sheet.append(COLUMNS)
    for row in rows:
        sheet.append(row)
    book.save(HERE / f"{MICRODATA}.xlsx")
    frame = pd.DataFrame({c: register[c] for c in COLUMNS})
    labels = ["Enterprise", "Region (business_region.hrc)", "Industry, NACE-like division (business_industry.hrc)",
              "Size class of persons employed", "Persons employed", "Turnover, thousand euro",
              "Holding (enterprise group); empty: none", "Sampling weight"]
    pyreadstat.write_sav(frame, HERE / f"{MICRODATA}.sav", column_labels=labels, row_compress=True)


def register_statistics(spanning: tuple[str, ...]) -> tuple[TableStructure, CellStatistics]:
    """Turnover tabulated from the CSV register over ``spanning`` (with the .hrc hierarchies),
    through ctadesk's own reader."""
    hierarchies = {"region": read_hrc(HERE / REGION_HRC, "region"),
                   "industry": read_hrc(HERE / INDUSTRY_HRC, "industry")}
    spec = MicrodataSpec(spanning=spanning, response="turnover",
                         hierarchies={name: hierarchies[name] for name in spanning if name in hierarchies})
    microdata = read_microdata(HERE / f"{MICRODATA}.csv", spec)
    return microdata.structure, tabulate(microdata, top_k=2)


def write_region_industry_tab() -> None:
    """The hierarchical region x industry turnover table as tau-argus writes tables with
    contributions: .tab (value, frequency, two largest contributions, status) and .rda."""
    structure, stats = register_statistics(("region", "industry"))
    region, industry = structure.dimensions
    top = np.nan_to_num(stats.top)
    with open(HERE / "region_industry.tab", "w", encoding="utf-8", newline="\n") as handle:
        for i in range(structure.n_cells):
            r, k = structure.coordinates(i)
            status = "S" if stats.freq[i] else "E"
            handle.write(f'"{region.codes[r]}";"{industry.codes[k]}";{stats.values[i]:.0f};{stats.freq[i]};'
                         f"{top[i, 0]:.0f};{top[i, 1]:.0f};{status}\n")
    spanning = "".join(f'{name}\n    <RECODEABLE>\n    <TOTCODE> "Total"\n    <HIERARCHICAL>\n'
                       f'    <HIERCODELIST> "{hrc}"\n    <HIERLEADSTRING> "@"\n'
                       for name, hrc in (("Region", REGION_HRC), ("Industry", INDUSTRY_HRC)))
    (HERE / "region_industry.rda").write_text(
        '   <SEPARATOR> ";"\n' + spanning + "Turnover\n    <NUMERIC>\n    <DECIMALS> 0\nFreq\n    <FREQUENCY>\n"
        "Top1\n    <MAXSCORE>\nTop2\n    <MAXSCORE>\nStatus\n    <STATUS>\n", encoding="utf-8")


def write_office_workbook() -> None:
    """Turnover by region and size class as an office publishes it: a title and a unit line,
    merged two-line headers, macro-regions with their regions indented, footnotes."""
    import openpyxl
    from openpyxl.styles import Alignment, Font

    structure, stats = register_statistics(("region", "size_class"))
    region, size = structure.dimensions
    values = stats.values.reshape(structure.shape)
    names = {**MACRO_REGIONS, **{code: r[0] for code, r in REGIONS.items()}, "Total": "All regions"}
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Turnover"
    sheet["A1"] = "Table 2. Turnover of enterprises by region and size class, 2024"
    sheet["A1"].font = Font(bold=True, size=13)
    sheet["A2"] = "Thousand euro"
    sheet["A4"], sheet["B4"], sheet["F4"] = "Region", "Size class (persons employed)", "Total"
    for column, code in enumerate(size.codes[:-1], start=2):
        sheet.cell(5, column, SIZE_CLASSES[code][0])
    for cells in ("A1:F1", "A4:A5", "B4:E4", "F4:F5"):
        sheet.merge_cells(cells)
    for row in sheet.iter_rows(min_row=4, max_row=5):
        for cell in row:
            cell.font = Font(bold=True)
            cell.alignment = Alignment(horizontal="center", vertical="center")
    order = [region.codes.index(code) for code in region.codes if code != "Total"] + [region.codes.index("Total")]
    depth = region.depth
    for row, r in enumerate(order, start=6):
        label = sheet.cell(row, 1, names[region.codes[r]])
        label.alignment = Alignment(indent=int(depth[r]) - 1 if depth[r] else 0)
        label.font = Font(bold=depth[r] != 2)
        for column, value in enumerate(values[r], start=2):
            sheet.cell(row, column, float(value)).number_format = "#,##0"
    last = 6 + len(order)
    sheet.cell(last + 1, 1, "Source: synthetic business register (ctadesk sample data, "
                            "business_microdata.csv), sums over all enterprises.")
    sheet.cell(last + 2, 1, "Size classes by persons employed; regions grouped into macro-regions.")
    sheet.column_dimensions["A"].width = 24
    for column in "BCDEF":
        sheet.column_dimensions[column].width = 14
    book.save(HERE / "office_turnover.xlsx")


def main() -> int:
    for number, (shape, sensitive) in enumerate(THESIS_SIZES.items()):
        write_jj(HERE / f"thesis_{shape[0]}x{shape[1]}.jj", thesis_problem(shape, sensitive, SEED + number))
    for shape in COX_SHAPES:
        write_jj(HERE / f"cox_{'x'.join(map(str, shape))}.jj", cox_table(shape, seed=SEED)[1])
    write_hierarchies()
    write_microdata(business_register(np.random.default_rng(SEED)))
    write_region_industry_tab()
    write_office_workbook()
    print(f"wrote the samples in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
