"""Locating the cells of a table from the codes on each line of a table file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.errors import FileFormatError

#: the most cells a table read from codes may span (a few lines of codes can span
#: billions of cells: 10 000 codes down and across are 10^8)
MAX_TABLE_CELLS = 20_000_000


def check_table_size(structure: TableStructure, path: str | Path | None) -> None:
    """FileFormatError when structure spans more than MAX_TABLE_CELLS cells (before any
    per-cell array is made)."""
    if structure.n_cells > MAX_TABLE_CELLS:
        raise FileFormatError(f"the codes span a table of {structure.n_cells:,} cells "
                              f"({' x '.join(map(str, structure.shape))}), more than the {MAX_TABLE_CELLS:,} "
                              "ctadesk reads", file=path)


class CellLocator:
    """Maps a line's codes to its cell, each cell at most once; errors name file and line.

    A code is matched exactly first (tau-argus codes keep their leading spaces),
    then without surrounding spaces.  ``lines[i]`` is the line that gave cell i (0: none).
    """

    def __init__(self, structure: TableStructure, path: str | Path) -> None:
        check_table_size(structure, path)
        self.structure = structure
        self.path = path
        self.positions = [{code: k for k, code in enumerate(d.codes)} for d in structure.dimensions]
        self.lines = np.zeros(structure.n_cells, np.int64)

    def locate(self, codes: Sequence[str], line: int) -> int:
        index = []
        for position, dimension, code in zip(self.positions, self.structure.dimensions, codes):
            k = position.get(code, position.get(code.strip()))
            if k is None:
                raise FileFormatError(f"code '{code.strip()}' of {dimension.name} is not in its hierarchy",
                                      file=self.path, row=line)
            index.append(k)
        i = int(np.ravel_multi_index(index, self.structure.shape))
        if self.lines[i]:
            raise FileFormatError(f"the cell {self.structure.cell_label(i)} is listed again (first on line "
                                  f"{self.lines[i]})", file=self.path, row=line)
        self.lines[i] = line
        return i
