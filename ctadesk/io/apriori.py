"""tau-argus a-priori files (`.hst`): what an office knows of some cells before protection --
their status, bounds an intruder knows, protection levels and costs -- applied to a table's CTA
problem (tau-argus manual §4.5.1 "A priori info" and §5.7 `<APRIORI>`).

One line per cell: the codes of the table's spanning variables (the total by its `<TOTCODE>`),
then a type and its numbers, all separated by the separator the batch command names:

    S            the cell is safe (it was unsafe by the rules, or is to be treated as safe)
    U            the cell is unsafe; its protection levels are the manual safety range
    P            the cell is protected: it is published unchanged
    M, ML        secondary suppressions of an earlier round: CTA has none, so they are noted
    C w, W w     the cell's cost (its weight in the distance; 0 is taken as 1, as tau-argus does)
    AB l u       bounds an intruder knows: the published value stays within [l, u]
    PL l u       the cell's lower and upper protection levels (it must be unsafe)

Status changes follow tau-argus's (TableSet.processAprioryFile): an empty or a protected cell
keeps its status, a cell is made protected only when it is safe.  A line that cannot be applied -- a code the
table does not have, a change that is not allowed -- is an error naming the file and line, or,
when the batch command says to ignore errors (its default), a note in the log.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.csv_table import MAX_BYTES
from ctadesk.io.errors import FileFormatError
from ctadesk.io.numbers import parse_number
from ctadesk.io.text import read_lines

#: the a-priori types and how many numbers follow each
TYPES = {"S": 0, "U": 0, "P": 0, "M": 0, "ML": 0, "C": 1, "W": 1, "AB": 2, "PL": 2}


@dataclasses.dataclass(frozen=True)
class AprioriLine:
    """One line of a `.hst`: the cell it names (C order of the table), its type and numbers."""

    row: int
    cell: int
    kind: str
    numbers: tuple[float, ...]


@dataclasses.dataclass(frozen=True)
class Apriori:
    """An a-priori file read against one table: the lines that name a cell, and notes on the rest."""

    path: Path
    lines: tuple[AprioriLine, ...]
    notes: tuple[str, ...]


def read_apriori(path: str | Path, structure: TableStructure, separator: str = ";",
                 ignore_errors: bool = True) -> Apriori:
    """The lines of ``path`` that name a cell of ``structure``; a line naming a code the table does
    not have, or with a wrong type or number, is an error naming the line, or (ignore_errors)
    left out with a note."""
    path = Path(path)
    if not separator:
        raise FileFormatError("no separator given for the a-priori file", file=path)
    dims = structure.dimensions
    lookups = [{code.strip(): i for i, code in enumerate(d.codes)} for d in dims]
    lines: list[AprioriLine] = []
    notes: list[str] = []
    for row, text in enumerate(read_lines(path, max_bytes=MAX_BYTES), start=1):
        if not text.strip():
            continue
        fields = [field.strip().strip('"') for field in text.split(separator)]
        try:
            lines.append(_line(fields, row, structure, lookups))
        except FileFormatError as error:
            if not ignore_errors:
                raise FileFormatError(str(error), file=path, row=row) from None
            notes.append(f"{path.name}, line {row}: {error}; line left out")
    if not lines and not notes:
        raise FileFormatError("the a-priori file holds no lines", file=path)
    return Apriori(path, tuple(lines), tuple(notes))


def _line(fields: list[str], row: int, structure: TableStructure, lookups: list[dict[str, int]]) -> AprioriLine:
    dims = structure.dimensions
    if len(fields) <= len(dims):
        raise FileFormatError(f"{len(fields)} fields; expected the {len(dims)} codes "
                              f"({', '.join(d.name for d in dims)}) and a type")
    index = []
    for dimension, lookup, code in zip(dims, lookups, fields):
        if code not in lookup:
            raise FileFormatError(f"{dimension.name} has no code '{code}'")
        index.append(lookup[code])
    kind = fields[len(dims)].upper()
    if kind not in TYPES:
        raise FileFormatError(f"type '{fields[len(dims)]}' is not one of {', '.join(TYPES)}")
    numbers = fields[len(dims) + 1:]
    if len(numbers) < TYPES[kind]:
        raise FileFormatError(f"type {kind} needs {TYPES[kind]} number(s), got {len(numbers)}")
    values = tuple(parse_number(text, decimal_comma=None) for text in numbers[:TYPES[kind]])
    if any(value is None for value in values):
        raise FileFormatError(f"type {kind}: '{' '.join(numbers)}' holds something that is not a number")
    return AprioriLine(row, int(np.ravel_multi_index(tuple(index), structure.shape)), kind, values)  # type: ignore[arg-type]


def apply_apriori(problem: CTAProblem, apriori: Apriori, empty: np.ndarray, manual_range: float = 0.0,
                  ignore_errors: bool = True) -> tuple[CTAProblem, tuple[str, ...]]:
    """``problem`` with the file's lines applied in order, and the notes for the log.  ``empty``
    marks the cells without contributors; ``manual_range`` is the manual safety range (percent
    of the cell's value) that a cell made unsafe gets as its protection levels."""
    n = problem.n_cells
    sensitive = np.zeros(n, bool)
    sensitive[problem.sensitive] = True
    lower_level, upper_level = np.zeros(n), np.zeros(n)
    lower_level[problem.sensitive] = problem.lower_protection
    upper_level[problem.sensitive] = problem.upper_protection
    fixed = problem.fixed.copy()
    weights = problem.weights.copy()
    lower, upper = problem.lower.copy(), problem.upper.copy()
    notes = list(apriori.notes)
    counts = dict.fromkeys(TYPES, 0)

    def refuse(line: AprioriLine, why: str) -> None:
        message = f"{problem.describe_cell(line.cell)}: {why}"
        if not ignore_errors:
            raise FileFormatError(message, file=apriori.path, row=line.row)
        notes.append(f"{apriori.path.name}, line {line.row}: {message}; line left out")

    for line in apriori.lines:
        i = line.cell
        if line.kind in ("S", "U", "P") and empty[i]:
            refuse(line, f"an empty cell cannot be made {({'S': 'safe', 'U': 'unsafe', 'P': 'protected'})[line.kind]}")
            continue
        if line.kind in ("S", "U") and fixed[i]:
            refuse(line, "a protected cell keeps its status")
            continue
        if line.kind == "S":
            sensitive[i] = False
        elif line.kind == "U":
            sensitive[i] = True
            lower_level[i] = upper_level[i] = abs(problem.values[i]) * manual_range / 100.0
        elif line.kind == "P":
            if sensitive[i]:
                refuse(line, "an unsafe cell cannot be made protected (make it safe first)")
                continue
            fixed[i] = True
        elif line.kind in ("M", "ML"):
            notes.append(f"{apriori.path.name}, line {line.row}: {problem.describe_cell(i)}: a secondary "
                         "suppression has no meaning for CTA; ignored")
        elif line.kind in ("C", "W"):
            if line.numbers[0] < 0:
                refuse(line, f"cost {line.numbers[0]:g} must not be negative")
                continue
            weights[i] = line.numbers[0] or 1.0
        elif line.kind == "AB":
            low, high = line.numbers
            if not low <= problem.values[i] <= high:
                refuse(line, f"bounds [{low:g}, {high:g}] do not hold the cell's value {problem.values[i]:g}")
                continue
            lower[i], upper[i] = low, high
        elif line.kind == "PL":
            if not sensitive[i]:
                refuse(line, "protection levels are for unsafe cells; this one is safe")
                continue
            if min(line.numbers) < 0:
                refuse(line, "protection levels must not be negative")
                continue
            lower_level[i], upper_level[i] = line.numbers
        counts[line.kind] += 1
    applied = ", ".join(f"{count} {kind}" for kind, count in counts.items() if count)
    notes.insert(0, f"{apriori.path.name}: a-priori lines applied: {applied or 'none'}")
    cells = np.flatnonzero(sensitive)
    protected = problem.replace(sensitive=cells, lower_protection=lower_level[cells],
                                upper_protection=upper_level[cells], fixed=fixed, weights=weights,
                                lower=lower, upper=upper, senses=None)
    return protected, tuple(notes)
