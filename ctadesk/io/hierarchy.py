"""Hierarchies of spanning variables: tau-argus .hrc files, sdcTable-style level
CSVs, and digit positions of the codes (tau-argus <HIERLEVELS>).

All three give a ``Dimension`` (ctadesk.engine.table.structure) whose total is the root.
Files are decoded as ctadesk.io.text decides (UTF-8, else cp1252) and, like the
table files they go with, may be at most ctadesk.io.csv_table.MAX_BYTES long.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.structure import DEFAULT_TOTAL, Dimension
from ctadesk.io.csv_table import MAX_BYTES
from ctadesk.io.errors import FileFormatError
from ctadesk.io.text import csv_records, read_lines


def _dimension(name: str, levels: list[int], codes: list[str], total: str | None, path, rows: list[int]) -> Dimension:
    seen: dict[str, int] = {}
    for code, row in zip(codes, rows):
        if code in seen:
            raise FileFormatError(f"code '{code}' appears twice (first on line {seen[code]})", file=path, row=row)
        seen[code] = row
    try:
        return Dimension.from_levels(name, levels, codes, total=total)
    except ProblemError as error:
        raise FileFormatError(str(error), file=path) from None


def read_hrc(path: str | Path, name: str, lead: str = "@", total: str = DEFAULT_TOTAL) -> Dimension:
    """A tau-argus .hrc hierarchy: one code per line, each copy of ``lead`` one level
    deeper, the total not listed.  Codes keep their leading spaces (they must
    match the data exactly); trailing blanks and empty lines are ignored."""
    if not lead:
        raise ProblemError("the hierarchy lead string must not be empty")
    levels, codes, rows = [], [], []
    for row, line in enumerate(read_lines(path, max_bytes=MAX_BYTES), start=1):
        text = line.rstrip()
        if not text:
            continue
        depth = 0
        while text.startswith(lead, depth * len(lead)):
            depth += 1
        code = text[depth * len(lead):]
        if not code.strip():
            raise FileFormatError(f"a line of only '{lead}' has no code", file=path, row=row)
        levels.append(depth + 1)
        codes.append(code)
        rows.append(row)
    if not codes:
        raise FileFormatError("the hierarchy lists no codes", file=path)
    if levels[0] != 1:
        raise FileFormatError(f"the first code '{codes[0]}' must be at the top level (no '{lead}')", file=path,
                              row=rows[0])
    return _dimension(name, levels, codes, total, path, rows)


def read_level_csv(path: str | Path, name: str, lead: str = "@", total: str = DEFAULT_TOTAL) -> Dimension:
    """A two-column CSV of level markers ('@', '@@', ...) and codes, as sdcTable
    writes it.  When the shallowest level holds a single first code it is the
    total itself (sdcTable lists it as '@'); otherwise ``total`` is added above.
    A first line whose first column is not a marker is a header and skipped."""
    if not lead:
        raise ProblemError("the hierarchy lead string must not be empty")
    lines = read_lines(path, max_bytes=MAX_BYTES)
    sample = "\n".join(lines[:100])
    delimiter = ";" if sample.count(";") > sample.count(",") else ","
    records = [(row, fields) for row, fields in csv_records(lines, delimiter, path) if any(f.strip() for f in fields)]
    levels, codes, rows = [], [], []
    for k, (row, fields) in enumerate(records):
        marker = fields[0].strip()
        if marker == "" or marker.replace(lead, "") != "":
            if k == 0:
                continue  # header
            raise FileFormatError(f"'{fields[0]}' is not a level marker made of '{lead}'", file=path, row=row)
        if len(fields) < 2 or not fields[1].strip():
            raise FileFormatError("the code is missing", file=path, row=row)
        levels.append(len(marker) // len(lead))
        codes.append(fields[1].strip())
        rows.append(row)
    if not codes:
        raise FileFormatError("the hierarchy lists no codes", file=path)
    top = min(levels)
    levels = [level - top for level in levels]
    if levels.count(0) == 1 and levels[0] == 0:
        return _dimension(name, levels, codes, None, path, rows)
    return _dimension(name, [level + 1 for level in levels], codes, total, path, rows)


def digit_levels(name: str, codes: Iterable[str], widths: Sequence[int], total: str = DEFAULT_TOTAL) -> Dimension:
    """A hierarchy from digit positions (tau-argus <HIERLEVELS> 3 1 1 0 0): a code of
    sum(widths) characters; its first widths[0] characters are its level-1 code,
    the first widths[0] + widths[1] its level-2 code, and so on.  Codes appear in
    sorted pre-order; the leaves are the full codes given."""
    widths = [int(w) for w in widths if int(w) > 0]
    if not widths:
        raise ProblemError(f"{name}: digit levels need at least one positive width")
    length = sum(widths)
    full = sorted(set(codes))
    wrong = [code for code in full if len(code) != length]
    if wrong:
        raise ProblemError(f"{name}: code '{wrong[0]}' has {len(wrong[0])} characters, "
                           f"the digit levels {' '.join(map(str, widths))} need {length}")
    ends = np.cumsum(widths)
    prefixes = sorted({(code[:end], level) for code in full for level, end in enumerate(ends, start=1)})
    return Dimension.from_levels(name, [level for _, level in prefixes], [code for code, _ in prefixes], total=total)


def flat_dimension(name: str, codes: Iterable[str], total: str = DEFAULT_TOTAL) -> Dimension:
    """A flat variable of the codes seen, in natural order (numbers by value)."""
    unique = sorted(set(codes))
    if unique and all(code.strip().removeprefix("-").isdecimal() for code in unique):
        unique.sort(key=lambda code: int(code.strip()))  # int() strips fewer spaces than strip()
    return Dimension.flat(name, unique, total=total)
