"""tau-argus microdata: an `.asc` file of records with the `.rda` that describes it, read into
the engine's Microdata (ctadesk.engine.table.microdata) for the tables a batch file or the app
asks of it.

The `.rda` is read by ctadesk.io.tauargus.read_rda.  Each variable's line gives, for a fixed-width
file, ``Name start width missing1 missing2`` (columns counted from 1); after a `<SEPARATOR>` line the
fields are delimited and the line is ``Name width missing1 missing2`` (tau-argus manual §4.4.1,
"Specify | Metafile" for microdata).  The options read here:

* `<RECODEABLE>` a spanning variable, `<TOTCODE>` its total's code (default "Total");
  `<HIERARCHICAL>` with `<HIERCODELIST>` file.hrc / `<HIERLEADSTRING>`, or with `<HIERLEVELS>`
  3 1 1 0 0 (digit positions); `<CODELIST>` labels;
* `<NUMERIC>` a numeric variable, `<DECIMALS>` its decimals (how it is shown; the file holds
  the decimal point);
* `<WEIGHT>` the sampling weight, `<HOLDING>` the holding (enterprise group) identifier,
  `<REQUEST>` "1" "2" the request-for-protection variable and its two codes.

Codes are trimmed, as tau-argus right-aligns them (" 1" and "1" are one code), except for
`<HIERLEVELS>` variables, whose codes are digit strings of the declared width.  A spanning
variable's missing codes are codes of their own, as tau-argus keeps them (the MIS rule decides
whether their cells may be unsafe: MicrodataTable.missing_cells).  A record whose response or
weight holds that variable's missing code takes no part in the table; the notes count them.

Errors name the file, the line and the field: ``tau_testW.asc, line 12: Var2 (columns 28-37):
'12a' is not a number``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import DEFAULT_TOTAL, Dimension, TableStructure
from ctadesk.io.cells import check_table_size
from ctadesk.io.csv_table import MAX_BYTES
from ctadesk.io.errors import FileFormatError
from ctadesk.io.hierarchy import digit_levels, flat_dimension
from ctadesk.io.numbers import not_a_number, parse_number
from ctadesk.io.tauargus import (
    RdaMetadata,
    RdaVariable,
    read_rda,
    variable_hierarchy,
    variable_labels,
    with_codes_under_total,
)
from ctadesk.io.text import csv_records, read_lines


@dataclasses.dataclass(frozen=True)
class Field:
    """Where a variable is in a record: 0-based start and width of a fixed-width file (start -1
    in a delimited file, where ``index`` is the field's number) and its missing codes."""

    variable: RdaVariable
    index: int
    start: int
    width: int
    missing: tuple[str, ...]

    def where(self) -> str:
        if self.start < 0:
            return f"{self.variable.name} (field {self.index + 1})"
        return f"{self.variable.name} (columns {self.start + 1}-{self.start + self.width})"


@dataclasses.dataclass(frozen=True, eq=False)
class MicrodataTable:
    """A table asked of tau-argus microdata: the records with their codes placed in the table's
    dimensions, and what the rules need besides.

    microdata      the engine's records (response, weight, holding, request)
    shadow         the shadow variable's value per record (None: the response)
    cost           the cost variable's value per record (None: no cost variable)
    missing_codes  per dimension, the positions (in Dimension.codes) of its missing codes
    labels         per dimension, code -> label from its `<CODELIST>`
    notes          what the reader did that the log should say
    """

    microdata: Microdata
    shadow: np.ndarray | None
    cost: np.ndarray | None
    missing_codes: tuple[np.ndarray, ...]
    labels: tuple[dict[str, str], ...]
    notes: tuple[str, ...]

    @property
    def structure(self) -> TableStructure:
        return self.microdata.structure

    def missing_cells(self) -> np.ndarray:
        """Mask of the cells with a missing code in some dimension (C order of structure)."""
        per_dimension = []
        for dimension, missing in zip(self.structure.dimensions, self.missing_codes):
            mask = np.zeros(dimension.size, bool)
            mask[missing] = True
            per_dimension.append(mask)
        grids = np.meshgrid(*per_dimension, indexing="ij")
        return np.logical_or.reduce([grid.reshape(-1) for grid in grids])


@dataclasses.dataclass(frozen=True, eq=False)
class AscMicrodata:
    """The records of an `.asc` file, every variable the `.rda` lists as text (columns[name]),
    with the line each record is on."""

    path: Path
    metadata: RdaMetadata
    fields: dict[str, Field]
    columns: dict[str, np.ndarray]
    lines: np.ndarray

    @property
    def n_records(self) -> int:
        return int(self.lines.size)

    def variable(self, name: str, what: str = "variable") -> RdaVariable:
        """The `.rda` variable called ``name`` (case-insensitive, as tau-argus matches them)."""
        for key, field in self.fields.items():
            if key.lower() == name.lower():
                return field.variable
        raise FileFormatError(f"no {what} '{name}' (the metadata lists {', '.join(self.fields)})",
                              file=self.metadata.path)

    def role(self, keyword: str) -> RdaVariable | None:
        """The first variable with option ``keyword`` (WEIGHT, HOLDING, REQUEST), or None."""
        return next((f.variable for f in self.fields.values() if f.variable.has(keyword)), None)

    def numbers(self, name: str) -> np.ndarray:
        """The variable's values as numbers; its missing codes (and empty fields) as NaN.  A field
        that is not a number is reported with its line and columns."""
        field = self.fields[self.variable(name).name]
        text = np.char.strip(self.columns[field.variable.name])
        missing = np.isin(text, [*field.missing, ""])
        values = np.full(text.size, np.nan)
        present = np.flatnonzero(~missing)
        try:
            values[present] = text[present].astype(float)
        except ValueError:
            for i in present:
                number = parse_number(str(text[i]), decimal_comma=None)
                if number is None:
                    raise FileFormatError(f"{field.where()}: {not_a_number(str(text[i]))}", file=self.path,
                                          row=int(self.lines[i])) from None
                values[i] = number
        bad = present[~np.isfinite(values[present])]
        if bad.size:
            raise FileFormatError(f"{field.where()}: '{text[bad[0]]}' is not a finite number", file=self.path,
                                  row=int(self.lines[bad[0]]))
        return values

    def codes(self, name: str) -> np.ndarray:
        """A spanning variable's codes: trimmed, except digit-level (`<HIERLEVELS>`) codes."""
        variable = self.variable(name)
        column = self.columns[variable.name]
        return column if variable.has("HIERLEVELS") else np.char.strip(column)

    def table(self, spanning: list[str] | tuple[str, ...], response: str | None, shadow: str | None = None,
              cost: str | None = None, weighted: bool = True) -> MicrodataTable:
        """The records of the table ``spanning`` x ``response`` (None: a frequency table, each record
        counting 1), with the `.rda`'s weight (when ``weighted``), holding and request variables."""
        notes: list[str] = []
        numeric = {"response": response, "shadow": shadow, "cost": cost}
        for what, name in numeric.items():
            if name is not None and not self.variable(name, f"{what} variable").has("NUMERIC"):
                raise FileFormatError(f"the {what} variable '{name}' is not <NUMERIC>", file=self.metadata.path)
        weight = self.role("WEIGHT") if weighted else None
        names = {what: name for what, name in numeric.items() if name is not None}
        if weight is not None:
            names["weight"] = weight.name
        values = {what: self.numbers(name) for what, name in names.items()}
        keep = np.logical_and.reduce([np.isfinite(v) for v in values.values()] or [np.ones(self.n_records, bool)])
        for what, column in values.items():
            dropped = int((~np.isfinite(column)).sum())
            if dropped:
                notes.append(f"{self.path.name}: {dropped} record(s) with a missing {what} "
                             f"({names[what]}) left out of the table")
        dimensions, missing, labels = [], [], []
        for name in spanning:
            variable = self.variable(name, "spanning variable")
            if not variable.has("RECODEABLE"):
                raise FileFormatError(f"'{name}' is not a spanning variable (<RECODEABLE>)", file=self.metadata.path)
            dimension, note = self._dimension(variable, self.codes(name)[keep])
            dimensions.append(dimension)
            notes += note
            field = self.fields[variable.name]
            missing.append(np.array([i for i, code in enumerate(dimension.codes) if code.strip() in
                                     {m.strip() for m in field.missing}], np.int64))
            labels.append(variable_labels(variable, self.metadata.path.parent))
        structure = TableStructure(tuple(dimensions))
        check_table_size(structure, self.path)
        holding = self.role("HOLDING")
        request = self.role("REQUEST")
        request_flags = None
        if request is not None:
            codes = np.char.strip(self.columns[request.name][keep])
            asked = [code.strip() for code in request.options["REQUEST"]] or ["1", "2"]
            request_flags = np.select([codes == asked[0], codes == (asked[1] if len(asked) > 1 else asked[0])],
                                      [1, 2], 0).astype(np.int8)
        try:
            microdata = Microdata.from_code_columns(
                structure, [self.codes(name)[keep] for name in spanning],
                values["response"][keep] if response is not None else None,
                weight=values["weight"][keep] if weight is not None else None,
                holding=np.char.strip(self.columns[holding.name][keep]) if holding is not None else None,
                request=request_flags, first_record=self.lines[keep], record_word="line")
        except ProblemError as error:
            raise FileFormatError(str(error), file=self.path) from None
        return MicrodataTable(microdata, values["shadow"][keep] if shadow else None,
                              values["cost"][keep] if cost else None, tuple(missing), tuple(labels), tuple(notes))

    def _dimension(self, variable: RdaVariable, codes: np.ndarray) -> tuple[Dimension, list[str]]:
        """The variable's codes under its `<TOTCODE>`: its .hrc hierarchy (a code it does not hold
        is added under the total, with a note naming the first line holding it), its digit
        levels, or flat in natural order (a `<HIERARCHICAL>` variable with neither is refused:
        tauargus.variable_hierarchy)."""
        total = variable.option("TOTCODE", DEFAULT_TOTAL).strip()
        seen = np.unique(codes)
        try:
            if variable.has("HIERCODELIST") or (variable.has("HIERARCHICAL") and not variable.has("HIERLEVELS")):
                def line_of(code: str) -> int:
                    return int(self.lines[np.flatnonzero(self.codes(variable.name) == code)[0]])

                return with_codes_under_total(variable_hierarchy(variable, self.metadata.path, total), variable,
                                              [str(code) for code in seen], total, line_of, self.path)
            if variable.has("HIERLEVELS"):
                widths = [int(w) for w in variable.options["HIERLEVELS"]]
                return digit_levels(variable.name, [str(c) for c in seen], widths, total=total), []
            return flat_dimension(variable.name, [str(c) for c in seen], total=total), []
        except ProblemError as error:
            raise FileFormatError(str(error), file=self.metadata.path) from None


def _fields(metadata: RdaMetadata) -> dict[str, Field]:
    """Where each variable is in a record, from its `.rda` line (module docstring)."""
    fields = {}
    for index, variable in enumerate(metadata.variables):
        numbers = variable.position
        fixed = metadata.separator is None
        needed = 2 if fixed else 0
        if len(numbers) < needed or not all(n.isdigit() for n in numbers[:needed]):
            raise FileFormatError(f"{variable.name}: a fixed-width file needs 'name start width' "
                                  f"(got '{' '.join((variable.name, *numbers))}')", file=metadata.path)
        start = int(numbers[0]) - 1 if fixed else -1
        width = int(numbers[1]) if fixed else (int(numbers[0]) if numbers and numbers[0].isdigit() else 0)
        if fixed and (start < 0 or width < 1):
            raise FileFormatError(f"{variable.name}: start {start + 1} and width {width} must be 1 or more",
                                  file=metadata.path)
        missing = tuple(numbers[needed if fixed else 1:])
        fields[variable.name] = Field(variable, index, start, width, missing)
    return fields


def read_asc(path: str | Path, rda: str | Path | None = None) -> AscMicrodata:
    """Read an `.asc` microdata file with its `.rda` (default: the same name with .rda, found
    case-insensitively as tau-argus's Windows files name it)."""
    path = Path(path)
    metadata = read_rda(rda if rda is not None else rda_beside(path))
    if not metadata.spanning:
        raise FileFormatError("the metadata lists no spanning variable (<RECODEABLE>)", file=metadata.path)
    fields = _fields(metadata)
    lines = read_lines(path, max_bytes=MAX_BYTES)
    if metadata.separator is None:
        rows = np.array([row for row, line in enumerate(lines, start=1) if line.strip()], np.int64)
        text = [lines[row - 1].rstrip("\r\n") for row in rows]
        columns = _fixed_columns(text, fields)
    else:
        records = [(row, values) for row, values in csv_records(lines, metadata.separator, path)
                   if any(v.strip() for v in values)]
        rows = np.array([row for row, _ in records], np.int64)
        for row, values in records:
            if len(values) != len(fields):
                raise FileFormatError(f"{len(values)} fields, the metadata describes {len(fields)} "
                                      f"({', '.join(fields)})", file=path, row=row)
        columns = {name: np.array([values[field.index] for _, values in records], dtype=str)
                   for name, field in fields.items()}
    if rows.size == 0:
        raise FileFormatError("the file holds no records", file=path)
    return AscMicrodata(path, metadata, fields, columns, rows)


def rda_beside(path: str | Path) -> Path:
    """The `.rda` of an `.asc` file: the same name with .rda, matched case-insensitively."""
    return _beside(Path(path), ".rda")


def _fixed_columns(text: list[str], fields: dict[str, Field]) -> dict[str, np.ndarray]:
    """Every variable's characters of every record, cut from one character grid (a record that
    ends early, its trailing blanks trimmed by an editor, is read as ending in blanks)."""
    end = max(field.start + field.width for field in fields.values())
    grid = np.array([line.ljust(end)[:end] for line in text], dtype=f"<U{end}")
    characters = grid.view("<U1").reshape(len(text), end)
    return {name: np.ascontiguousarray(characters[:, field.start:field.start + field.width])
            .view(f"<U{field.width}").reshape(-1) for name, field in fields.items()}


def _beside(path: Path, suffix: str) -> Path:
    """The file of the same name with ``suffix``, matched case-insensitively."""
    wanted = path.with_suffix(suffix)
    if wanted.exists() or not path.parent.is_dir():
        return wanted
    for other in path.parent.iterdir():
        if other.name.lower() == wanted.name.lower():
            return other
    return wanted
