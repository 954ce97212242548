"""Errors of the file readers and writers; messages name the file, sheet, row and cell at fault."""

from __future__ import annotations

import os
from pathlib import Path

from ctadesk.engine.errors import CTAError


class FileFormatError(CTAError, ValueError):
    """A file cannot be read as the format it claims to be.

    The message starts with where the problem is, e.g.
    ``tables.xlsx, sheet 'Turnover', cell C7: 'n/a' is not a number``.
    """

    def __init__(self, message: str, *, file: str | os.PathLike[str] | None = None, sheet: str | None = None,
                 row: int | None = None, cell: str | None = None) -> None:
        self.file = None if file is None else os.fspath(file)
        self.sheet = sheet
        self.row = row
        self.cell = cell
        where = [Path(self.file).name] if self.file else []
        if sheet is not None:
            where.append(f"sheet '{sheet}'")
        if cell is not None:
            where.append(f"cell {cell}")
        elif row is not None:
            where.append(f"line {row}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
