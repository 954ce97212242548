"""Senses given by the user in a file, for `ctadesk solve --senses FILE`: one line per
sensitive cell, the cell then its sense, separated by a comma, semicolon, tab or spaces.

    # cell, sense
    0, up
    r3 x c4, up          <- a cell label as the table names it (CTAProblem.cell_label)
    7 down

A cell is its 0-based position in the table's cell order or its label; a sense is up / down
(also +1 / -1, u / d) or free.  Sensitive cells a file does not name keep the senses the
problem already has.  A line that names no cell of the table, a cell that is not sensitive,
a cell named twice or a word that is no sense is refused naming the line.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.io.errors import FileFormatError
from ctadesk.io.text import read_text

SENSE_WORDS = {"up": 1, "u": 1, "+1": 1, "1": 1, "+": 1, "down": -1, "d": -1, "-1": -1, "-": -1,
               "free": 0, "0": 0, "": 0}
MAX_BYTES = 64 * 1024 * 1024


def read_senses(path: str | Path, problem: CTAProblem) -> np.ndarray:
    """The senses (n_sensitive,) of ``problem``'s sensitive cells with the file's applied."""
    path = Path(path)
    senses = np.asarray(problem.senses, dtype=np.int8).copy()
    position = {int(cell): k for k, cell in enumerate(problem.sensitive)}
    labels: dict[str, int] | None = None
    seen: dict[int, int] = {}
    for line, fields in _lines(path):
        if len(fields) != 2:
            raise FileFormatError(f"expected a cell and its sense, found {len(fields)} field(s)", file=path, row=line)
        cell_text, sense_text = fields
        cell = _index(cell_text, problem.n_cells)
        if cell is None:
            if labels is None:
                labels = {} if problem.cell_label is None else \
                    {str(problem.cell_label(i)).strip(): i for i in range(problem.n_cells)}
            cell = labels.get(cell_text)
        if cell is None:
            raise FileFormatError(f"'{cell_text}' is no cell of the table (a 0-based position below "
                                  f"{problem.n_cells} or a cell label)", file=path, row=line)
        if cell not in position:
            raise FileFormatError(f"cell '{cell_text}' is not sensitive; senses are given for sensitive cells",
                                  file=path, row=line)
        if cell in seen:
            raise FileFormatError(f"cell '{cell_text}' is given a sense already on line {seen[cell]}",
                                  file=path, row=line)
        word = sense_text.strip().lower()
        if word not in SENSE_WORDS:
            raise FileFormatError(f"'{sense_text}' is no sense (up, down or free)", file=path, row=line)
        seen[cell] = line
        senses[position[cell]] = SENSE_WORDS[word]
    return senses


def _lines(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) of the non-blank, non-comment lines, with a header line skipped."""
    text = read_text(path, max_bytes=MAX_BYTES)
    rows = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        delimiter = next((d for d in (",", ";", "\t") if d in stripped), None)
        fields = (stripped.rsplit(None, 1) if delimiter is None
                  else next(csv.reader([stripped], delimiter=delimiter)))
        rows.append((number, [f.strip() for f in fields]))
    if rows and [f.lower() for f in rows[0][1]] in (["cell", "sense"], ["cell", "senses"]):
        rows = rows[1:]
    return rows


def _index(text: str, n_cells: int) -> int | None:
    try:
        index = int(text)
    except ValueError:
        return None
    return index if 0 <= index < n_cells else None
