"""Released tables read back for an audit: a published value per cell and the cells left out.

The cells are those of the original table: a JJ or RCTA `.sol` release by cell number, a
tau-argus `.tab` or long CSV release by its codes, located in the original's structure (codes
matched as ctadesk.io.cells does).  A cell is not published (suppressed) when

* JJ: its status is `u` or `m` (the primary and secondary suppressions of a pattern);
* `.tab`: its status is `U`, `M` or `D` (primary, secondary and secondary-by-dominance
  suppressions, in a file that carries a `<STATUS>` variable), or its value field is empty or
  holds a mark such as `x`, `:` or `..`;
* CSV (header line, code columns, the value last): its value is empty or such a mark;
* `.tab` and CSV: the file does not list it (said in the messages);
* xlsx (a release workbook in the layout ctadesk writes for the original table,
  ctadesk.io.excel.grid: a sheet per slice with the row codes down column A and the column
  codes across the header row, or one long sheet of codes and values): its cell is blank or
  holds such a mark.  The labels are checked against the original's codes, so a workbook of
  another table or layout is refused, naming the sheet and cell that differ.

A `.sol` file publishes every cell (a CTA release).  Which reader reads which file is the format
registry's to say (ctadesk.app.formats).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.cells import CellLocator
from ctadesk.io.csv_dialect import decimal_mark, detect_delimiter, header_missing, sample_lines
from ctadesk.io.csv_table import MAX_BYTES
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.export import unique_title
from ctadesk.io.excel.grid import HEADER_ROW, grid_sheets
from ctadesk.io.excel.workbook import SheetGrid, open_workbook, read_grid
from ctadesk.io.jj import read_jj, read_sol
from ctadesk.io.numbers import Kind, read_cell
from ctadesk.io.tauargus import read_rda
from ctadesk.io.text import csv_records, read_text, split_lines

#: JJ statuses of suppressed cells
JJ_SUPPRESSED = ("u", "m")
#: tau-argus statuses of suppressed cells (compared in upper case)
TAB_SUPPRESSED = ("U", "M", "D")


@dataclasses.dataclass(frozen=True, eq=False)
class ReleasedTable:
    """published (n,) with NaN where missing (n,) is True; messages: what the reader decided."""

    path: Path
    published: np.ndarray
    missing: np.ndarray
    messages: tuple[str, ...] = ()


def released_jj(path: str | Path, structure: TableStructure) -> ReleasedTable:
    """A JJ release over the cells of ``structure`` (the original's): its u and m cells suppressed."""
    path = Path(path)
    instance = read_jj(path)
    _check_count(path, instance.problem.n_cells, structure)
    missing = np.isin(instance.statuses, JJ_SUPPRESSED)
    return ReleasedTable(path, np.where(missing, np.nan, instance.problem.values), missing)


def released_sol(path: str | Path, structure: TableStructure) -> ReleasedTable:
    """An RCTA .sol release: every cell published at its adjusted value."""
    path = Path(path)
    published = read_sol(path, structure.n_cells)
    return ReleasedTable(path, published, np.zeros(published.size, bool))


def released_tab(path: str | Path, structure: TableStructure, rda: str | Path | None = None) -> ReleasedTable:
    """A tau-argus release with its metadata (``rda``, else the .rda beside it), located by its codes."""
    path = Path(path)
    metadata = read_rda(rda if rda is not None else path.with_suffix(".rda"))
    spanning = metadata.spanning
    others = [v for v in metadata.variables if not v.has("RECODEABLE")]
    if len(spanning) != len(structure.dimensions):
        raise FileFormatError(f"{len(spanning)} spanning variables, the original table has "
                              f"{len(structure.dimensions)}", file=metadata.path)
    response = next((k for k, v in enumerate(others) if v.has("NUMERIC") and not any(
        v.has(word) for word in ("SHADOW", "COSTVAR", "LOWERPL", "UPPERPL"))), None)
    if response is None:
        raise FileFormatError("the metadata lists no response variable (<NUMERIC>)", file=metadata.path)
    status = next((k for k, v in enumerate(others) if v.has("STATUS")), None)
    separator = metadata.separator or ";"
    records = [(row, fields) for row, fields in csv_records(split_lines(read_text(path, max_bytes=MAX_BYTES)),
                                                            separator, path) if any(f.strip() for f in fields)]
    width = len(spanning) + len(others)
    decimal_comma = separator != "," and any("," in fields[len(spanning) + response] for _, fields in records
                                              if len(fields) == width)
    suppressed = {code for code, meaning in metadata.status_codes().items() if meaning == "U"} | set(TAB_SUPPRESSED)

    def cell(row: int, fields: list[str]) -> tuple[list[str], str, bool]:
        if len(fields) != width:
            raise FileFormatError(f"{len(fields)} fields, the metadata describes {width}", file=path, row=row)
        flagged = status is not None and fields[len(spanning) + status].strip().upper() in suppressed
        return fields[:len(spanning)], fields[len(spanning) + response], flagged

    return _collect(path, structure, [(row, *cell(row, fields)) for row, fields in records], decimal_comma)


def released_csv(path: str | Path, structure: TableStructure) -> ReleasedTable:
    """A long CSV release: a header line, the original's code columns, the value last."""
    path = Path(path)
    text = read_text(path, max_bytes=MAX_BYTES)
    delimiter = detect_delimiter(text)
    records = [(row, fields) for row, fields in csv_records(split_lines(text), delimiter, path)
               if any(f.strip() for f in fields)]
    if len(records) < 2:
        raise FileFormatError("expected a header line and a line per cell", file=path)
    (header_row, header), body = records[0], records[1:]
    first_lines = sample_lines(text)
    if header_missing([fields for row, fields in records if row <= first_lines]):
        raise FileFormatError("the first line reads as a line of cells like those below it (each field a code they "
                              "use, or a number), not as the names of the columns; a release CSV starts with a line "
                              "naming them",
                              file=path, row=header_row)
    codes = len(structure.dimensions)
    if len(header) != codes + 1:
        raise FileFormatError(f"{len(header)} columns; expected the {codes} code column(s) of the original "
                              "table and the value", file=path, row=header_row)
    for row, fields in body:
        if len(fields) != len(header):
            raise FileFormatError(f"{len(fields)} fields, the header has {len(header)}", file=path, row=row)
    texts = [fields[codes] for _, fields in body]
    decimal_comma = delimiter != "," and decimal_mark(path, texts, [row for row, _ in body], first_lines,
                                                      delimiter == ";", undecided=False)
    return _collect(path, structure, [(row, fields[:codes], text, False) for (row, fields), text in zip(body, texts)],
                    decimal_comma)


def _collect(path: Path, structure: TableStructure, cells: list[tuple[int, list[str], str, bool]],
             decimal_comma: bool) -> ReleasedTable:
    """The release from (line, codes, value text, suppressed by status) per line."""
    locator = CellLocator(structure, path)
    published = np.full(structure.n_cells, np.nan)
    for row, codes, text, flagged in cells:
        i = locator.locate(codes, row)
        reading = read_cell(text, decimal_comma)
        if reading.kind in (Kind.NUMBER, Kind.ZERO):
            published[i] = np.nan if flagged else reading.number
        elif reading.kind is Kind.TEXT:
            raise FileFormatError(f"'{text}' is neither a number nor a mark of a suppressed cell", file=path, row=row)
    missing = np.isnan(published)
    unlisted = int((locator.lines == 0).sum())
    messages = (f"{unlisted} cell(s) the file does not list were taken as not published",) if unlisted else ()
    return ReleasedTable(path, published, missing, messages)


def released_xlsx(path: str | Path, structure: TableStructure) -> ReleasedTable:
    """A release workbook in ctadesk's default layout for ``structure`` (module doc)."""
    path = Path(path)
    workbook = open_workbook(path)
    titles = [sheet.title for sheet in workbook.sheets]
    published = np.full(structure.n_cells, np.nan)
    plans = grid_sheets(structure)
    if plans is None:
        grid = _release_sheet(workbook, path, titles, "Table")
        messages = _read_long(grid, structure, published)
        return ReleasedTable(path, published, np.isnan(published), messages)
    written: list[str] = []
    for plan in plans:
        title = unique_title(written, plan.title)
        written.append(title)
        grid = _release_sheet(workbook, path, titles, title)
        _expect_labels(grid, HEADER_ROW, 0, plan.rows.codes, f"the codes of {plan.rows.name}", down=True)
        columns = plan.columns.codes if plan.columns is not None else ("Value",)
        _expect_labels(grid, HEADER_ROW - 1, 1, columns,
                       f"the codes of {plan.columns.name}" if plan.columns is not None else "'Value'", down=False)
        for i, j in np.ndindex(plan.cells.shape):
            published[plan.cells[i, j]] = _published(grid, HEADER_ROW + i, 1 + j)
    return ReleasedTable(path, published, np.isnan(published))


def _release_sheet(workbook, path: Path, titles: list[str], title: str) -> SheetGrid:
    if title not in titles:
        raise FileFormatError(f"no sheet '{title}' (sheets: {', '.join(titles)}); is this a release workbook "
                              "ctadesk wrote for this table?", file=path)
    return read_grid(workbook, title, path)


def _expect_labels(grid: SheetGrid, row: int, column: int, labels: tuple[str, ...], what: str, down: bool) -> None:
    """FileFormatError naming the first cell, from (row, column) down or across, that does not
    hold the next of ``labels`` (0-based row and column)."""
    for k, label in enumerate(labels):
        r, c = (row + k, column) if down else (row, column + k)
        text = _label(grid.values[r][c] if r < grid.n_rows and c < grid.n_columns else None)
        if text != label.strip():
            found = f"'{text}'" if text else "nothing"
            raise grid.error(f"expected '{label}' ({what}, as ctadesk writes the release of this table), "
                             f"found {found}", r, c)


def _published(grid: SheetGrid, row: int, column: int) -> float:
    """The value of a released cell: NaN for a blank or a mark of a suppressed cell."""
    value = grid.values[row][column] if row < grid.n_rows and column < grid.n_columns else None
    reading = read_cell(value, None)
    if reading.kind in (Kind.NUMBER, Kind.ZERO) and reading.number is not None:  # both always have one
        return float(reading.number)
    if reading.kind is Kind.TEXT:
        raise grid.error(f"'{value}' is neither a number nor a mark of a suppressed cell", row, column)
    return np.nan


def _read_long(grid: SheetGrid, structure: TableStructure, published: np.ndarray) -> tuple[str, ...]:
    """A long release sheet: under the header row, one row per cell with its codes and value;
    returns the messages (cells the sheet does not list)."""
    names = [d.name for d in structure.dimensions]
    _expect_labels(grid, HEADER_ROW - 1, 0, (*names, "Value"), "the header of a long release", down=False)
    positions = [{code.strip(): k for k, code in enumerate(d.codes)} for d in structure.dimensions]
    listed = np.zeros(structure.n_cells, bool)
    for r in range(HEADER_ROW, grid.n_rows):
        row = grid.values[r]
        if all(value is None for value in row):
            continue
        index = []
        for c, (dimension, position) in enumerate(zip(structure.dimensions, positions)):
            label = _label(row[c] if c < len(row) else None)
            if label not in position:
                raise grid.error(f"code '{label}' of {dimension.name} is not in the original table", r, c)
            index.append(position[label])
        i = int(np.ravel_multi_index(index, structure.shape))
        if listed[i]:
            raise grid.error(f"the cell {structure.cell_label(i)} is listed again", r, 0)
        listed[i] = True
        published[i] = _published(grid, r, len(names))
    unlisted = int((~listed).sum())
    return (f"{unlisted} cell(s) the sheet does not list were taken as not published",) if unlisted else ()


def _label(value: object) -> str:
    """A label cell as text: whole numbers without '.0' (a code a spreadsheet turned into a number)."""
    if value is None:
        return ""
    return (str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)).strip()


def _check_count(path: Path, n_cells: int, structure: TableStructure) -> None:
    if n_cells != structure.n_cells:
        raise FileFormatError(f"the release has {n_cells} cells, the original table {structure.n_cells}", file=path)

