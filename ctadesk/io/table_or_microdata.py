"""Is a file of records a table or microdata?  A header line of variable names over one line
per respondent looks, to a table reader, like a table with a row per respondent: read so it
makes a table of one column without a single relation, which any method "protects" by
changing nothing.  The readers ask here first and refuse such a file, naming it and the
command that tabulates microdata (ctadesk protect FILE --span VAR ... --response VAR).

A table holds its cells once each and has totals (Total, Gesamt, ... -- the codes of
ctadesk.io.excel.layout.TOTAL_CODES, the labels of is_total_label); microdata have neither:
their categorical variables repeat their codes from record to record, and nothing in them
is a total.  Lines look like microdata when

* the first line names every column (none empty, none a number: no years across the top),
* no field is a total (no code or label of one; in the header line, no total code),
* a column of text (not numbers, zero marks, flags or marks of unknown values) repeats
  a code, and
* two lines agree on every field but the last (several records in one cell), or else they
  do not look like a long table without totals: one line per cell, left of a last column of
  numbers, the lines filling at least half the cells their codes span (microdata fill a
  sliver of them: 20,000 enterprises span 10^18 combinations of their fields).

A small long table without totals and microdata of a few records may not be told apart;
such a file is not refused here (the long reader asks for its totals).
The test reads the first SAMPLE lines and the last TAIL (where a wide table's total row
sits), so a million-line file costs what a few thousand lines do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.layout import is_total_code, is_total_label
from ctadesk.io.numbers import Kind, read_cell

SAMPLE = 2000
TAIL = 100
_NUMBERS = (Kind.NUMBER, Kind.ZERO, Kind.UNKNOWN, Kind.EMPTY)


def microdata_reason(header: Sequence[str], body: Sequence[tuple[int, Sequence[str]]], unit: str = "line"
                     ) -> str | None:
    """Why the records below ``header`` (each with its line or row number) look like
    microdata rather than a table (see the module's docstring); None when they may be a table."""
    header = [h.strip() for h in header]
    if len(header) < 2 or any(read_cell(h, None).kind in (Kind.EMPTY, Kind.NUMBER) for h in header):
        return None
    if any(is_total_code(h) for h in header):
        return None
    rows = [(line, [f.strip() for f in fields]) for line, fields in _sample(body) if any(f.strip() for f in fields)]
    if len(rows) < 2:
        return None
    width = len(header)
    columns = [[fields[c] if c < len(fields) else "" for _, fields in rows] for c in range(width)]
    kinds = [[read_cell(field, None).kind for field in column] for column in columns]
    if any(is_total_label(field) for column, ks in zip(columns, kinds)
           for field, kind in zip(column, ks) if kind is Kind.TEXT):
        return None
    repeated = next((c for c in range(width) if Kind.TEXT in kinds[c] and _repeat(columns[c], kinds[c])), None)
    if repeated is None:
        return None
    keys: dict[tuple[str, ...], int] = {}
    for line, fields in rows:
        key = tuple(fields[:width - 1])
        if key in keys:
            return (f"{unit}s {keys[key]} and {line} hold the same codes ({', '.join(key)}): several records "
                    "per cell, and nothing is a total")
        keys[key] = line
    spanned = math.prod(len(set(column)) for column in columns[:-1])
    if all(k in _NUMBERS for k in kinds[-1]) and 2 * len(rows) >= spanned:
        return None  # one line per cell, most cells listed: a long table without totals
    code = _repeat(columns[repeated], kinds[repeated])
    lines = [line for (line, _), field in zip(rows, columns[repeated]) if field == code][:2]
    return (f"'{header[repeated]}' repeats its codes ('{code}' on {unit}s {lines[0]} and {lines[1]}), "
            "and no line or column is a total")


def _sample(body: Sequence[tuple[int, Sequence[str]]]) -> Sequence[tuple[int, Sequence[str]]]:
    """The first SAMPLE records and the last TAIL."""
    if len(body) <= SAMPLE + TAIL:
        return body
    return [*body[:SAMPLE], *body[-TAIL:]]


def _repeat(column: list[str], kinds: list[Kind]) -> str | None:
    """The first text the column holds twice."""
    seen: set[str] = set()
    for field, kind in zip(column, kinds):
        if kind is Kind.TEXT:
            if field in seen:
                return field
            seen.add(field)
    return None


def not_a_table(path: str | Path, reason: str, sheet: str | None = None) -> FileFormatError:
    """The error refusing microdata as a table, naming the file and the command that tabulates it."""
    name = Path(path).name
    return FileFormatError(f"this looks like microdata, one record per respondent, not a table: {reason}. "
                           f"Tabulate and protect it with 'ctadesk protect {name} --span VAR [VAR ...] "
                           "--response VAR' (or 'ctadesk rules' for the safety rules alone), or open it as "
                           "microdata in the app", file=path, sheet=sheet)


def refuse_records(path: str | Path, structure: TableStructure, header: Sequence[str],
                   body: Sequence[tuple[int, Sequence[str]]], *, sheet: str | None = None, unit: str = "line") -> None:
    """Refuse a table read without a single relation from records that look like microdata."""
    if sum(structure.relation_counts()):
        return
    reason = microdata_reason(header, body, unit)
    if reason is not None:
        raise not_a_table(path, reason, sheet)


def grid_records(values: Sequence[Sequence[object]]) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """A sheet's first filled row as the header and the filled rows below it (1-based row
    numbers), every cell as text (numbers as Python writes them)."""
    rows = [(r + 1, ["" if v is None else str(v) for v in row]) for r, row in enumerate(values)
            if any(v is not None and str(v).strip() for v in row)]
    if not rows:
        return [], []
    (_, header), body = rows[0], rows[1:]
    return header, body
