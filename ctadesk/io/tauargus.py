"""tau-argus tabular input: `.tab` data with its `.rda` metadata, `.cdl` labels,
and writing a release `.tab` (codes and adjusted values) with its `.rda`, from a
table read from a `.tab` or one built from microdata (format: docs/formats.md).

A `.tab` line is one cell: the codes of the spanning variables (the `<TOTCODE>`
for a total), then the other variables in the order the `.rda` lists them:
response value, `<FREQUENCY>`, `<SHADOW>`, `<COSTVAR>`, `<MAXSCORE>` top
contributions (largest first), `<STATUS>` (S safe, U unsafe, P protected, E
empty; renamed by `<SAFE>` `<UNSAFE>` `<PROTECT>`), `<LOWERPL>` and `<UPPERPL>`.
Decimal commas are read; numbers must be finite, frequencies whole.  Files are
decoded as ctadesk.io.text decides (UTF-8, else cp1252) and may be at most
MAX_BYTES long.  Hierarchies come from `<HIERCODELIST>` .hrc files
(ctadesk.io.hierarchy.read_hrc); a code outside its hierarchy adds a cell under
the total, with a message naming the file and line.  Relations the values break are reported;
`make_additive` recomputes totals from the inner cells when the user asks.

The cells read as tau-argus reads them (manual §4.4.3, "Specify | Metafile [for
tabular data]"; §4.4.4 for the shadow):
* codes are trimmed: tau-argus right-aligns codes, so " 1", "1" and a
  right-justified "      Total" (rtauargus's fixed-width files) are the codes
  "1" and "Total", in the .tab and in the .hrc alike;
* without a `<FREQUENCY>` variable each cell listed is one contribution
  (frequency 1; cells the file does not list or marks empty: 0);
* the `<SHADOW>` variable is the one the safety rules apply to: its totals go
  into the statistics (CellStatistics.shadow) with the `<MAXSCORE>` top
  contributions, which are the shadow's.
"""

from __future__ import annotations

import dataclasses
import itertools
import shlex
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path, PureWindowsPath
from typing import overload

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import DEFAULT_TOTAL, Dimension, TableStructure
from ctadesk.io.additivity import RTOL, NonAdditiveRelation, non_additive
from ctadesk.io.cells import CellLocator
from ctadesk.io.csv_table import MAX_BYTES
from ctadesk.io.errors import FileFormatError
from ctadesk.io.hierarchy import read_hrc
from ctadesk.io.numbers import finite_values, not_a_number, parse_number
from ctadesk.io.text import csv_records, read_lines

STATUS_SAFE, STATUS_UNSAFE, STATUS_PROTECTED, STATUS_EMPTY = "S", "U", "P", "E"
#: the most decimals a `<DECIMALS>` option may ask for
MAX_DECIMALS = 15


@dataclasses.dataclass
class RdaVariable:
    """One variable of an .rda file with its options (`<KEYWORD>` -> its arguments)."""

    name: str
    position: tuple[str, ...] = ()  # start, width, missing codes (fixed-column microdata)
    options: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def has(self, keyword: str) -> bool:
        return keyword in self.options

    @overload
    def option(self, keyword: str) -> str | None: ...

    @overload
    def option(self, keyword: str, default: str) -> str: ...

    def option(self, keyword: str, default: str | None = None) -> str | None:
        """The keyword's first value, else ``default``."""
        values = self.options.get(keyword)
        return values[0] if values else default


@dataclasses.dataclass
class RdaMetadata:
    """An .rda file: the separator (None: fixed columns) and the variables in order."""

    path: Path
    separator: str | None
    variables: list[RdaVariable]
    options: dict[str, list[str]]

    @property
    def spanning(self) -> list[RdaVariable]:
        return [v for v in self.variables if v.has("RECODEABLE")]

    def status_codes(self) -> dict[str, str]:
        """File status code -> S/U/P/E."""
        names = {STATUS_SAFE: "SAFE", STATUS_UNSAFE: "UNSAFE", STATUS_PROTECTED: "PROTECT"}
        codes = {code: code for code in (STATUS_SAFE, STATUS_UNSAFE, STATUS_PROTECTED, STATUS_EMPTY)}
        for status, keyword in names.items():
            for variable in self.variables:
                code = variable.option(keyword)
                if code is not None:
                    codes[code] = status
            if keyword in self.options:
                codes[self.options[keyword][0]] = status
        return codes


def read_rda(path: str | Path) -> RdaMetadata:
    """Parse an .rda: variables start in column 1, their `<OPTION> args` lines are indented."""
    path = Path(path)
    variables: list[RdaVariable] = []
    options: dict[str, list[str]] = {}
    separator = None
    for row, line in enumerate(read_lines(path, max_bytes=MAX_BYTES), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            tokens = shlex.split(line, posix=True)
        except ValueError as error:
            raise FileFormatError(f"cannot read this line ({error})", file=path, row=row) from None
        if not line[0].isspace() and not line.startswith("<"):
            variables.append(RdaVariable(tokens[0], tuple(tokens[1:])))
            continue
        keyword = None
        for token in tokens:
            if token.startswith("<") and token.endswith(">"):
                keyword = token[1:-1].upper()
                target = variables[-1].options if variables else options
                target.setdefault(keyword, [])
            elif keyword is None:
                raise FileFormatError(f"'{token}' is not an option like <NUMERIC>", file=path, row=row)
            else:
                (variables[-1].options if variables else options)[keyword].append(token)
        if "SEPARATOR" in options and separator is None:
            separator = options["SEPARATOR"][0] if options["SEPARATOR"] else None
            if separator is not None and (len(separator) != 1 or separator in '"\r\n'):
                raise FileFormatError(f"<SEPARATOR> '{separator}' must be one character, not a quote or a "
                                      "line break", file=path, row=row)
        if variables and "<DECIMALS>" in (token.upper() for token in tokens):
            _check_decimals(variables[-1], path, row)
    return RdaMetadata(path, separator, variables, options)


def _check_decimals(variable: RdaVariable, path: Path, row: int) -> None:
    """A `<DECIMALS>` option must be a whole number 0..MAX_DECIMALS (none given: 2)."""
    text = variable.option("DECIMALS", "2")
    if not (text.isascii() and text.isdigit() and int(text) <= MAX_DECIMALS):
        raise FileFormatError(f"{variable.name}: <DECIMALS> '{text}' must be a whole number from 0 to "
                              f"{MAX_DECIMALS}", file=path, row=row)


def read_cdl(path: str | Path) -> dict[str, str]:
    """A codelist: `code,label` per line -> {code: label} (codes keep their leading spaces)."""
    labels = {}
    for row, line in enumerate(read_lines(path, max_bytes=MAX_BYTES), start=1):
        if not line.strip():
            continue
        code, sep, label = line.partition(",")
        if not sep:
            raise FileFormatError("expected 'code,label'", file=path, row=row)
        labels[code.rstrip()] = label.strip().strip('"')
    return labels


@dataclasses.dataclass(frozen=True, eq=False)
class TauArgusTable:
    """A table read from a .tab file (all arrays per cell, C order of structure).

    statistics   values, frequencies, top contributions and shadow (for the safety rules)
    status       S safe, U unsafe, P protected, E empty
    lines        the .tab line (1-based) of each cell, 0 if the file did not list it
    labels       per dimension, code -> label from its .cdl codelist
    """

    path: Path
    metadata: RdaMetadata
    structure: TableStructure
    statistics: CellStatistics
    shadow: np.ndarray | None
    cost: np.ndarray | None
    status: np.ndarray
    lower_protection: np.ndarray | None
    upper_protection: np.ndarray | None
    lines: np.ndarray
    labels: tuple[dict[str, str], ...]
    messages: tuple[str, ...] = ()

    @property
    def values(self) -> np.ndarray:
        return self.statistics.values

    def non_additive(self, rtol: float = RTOL) -> list[NonAdditiveRelation]:
        """Relations whose total differs from the sum of its parts, largest difference first
        (ctadesk.io.additivity.non_additive)."""
        return non_additive(self.structure.relations(), self.values, self.structure.relation_label, rtol=rtol)

    def make_additive(self) -> tuple[TauArgusTable, np.ndarray]:
        """The table with every total and subtotal recomputed from the inner cells,
        and the indices of the cells that changed."""
        inner = self.values.reshape(self.structure.shape)
        values = self.structure.aggregate(inner)
        changed = np.flatnonzero(np.abs(values - self.values) > 1e-9 * np.maximum(1, np.abs(self.values)))
        statistics = dataclasses.replace(self.statistics, values=values)
        note = f"made additive: {changed.size} total(s) recomputed from their parts"
        return dataclasses.replace(self, statistics=statistics, messages=(*self.messages, note)), changed

    def problem(self, use_cost: bool = True) -> CTAProblem:
        """The CTA problem the file describes: unsafe cells sensitive with the file's protection
        levels, protected and empty cells fixed, costs as weights; values >= 0 stay >= 0."""
        sensitive = np.flatnonzero(self.status == STATUS_UNSAFE)
        fixed = np.isin(self.status, (STATUS_PROTECTED, STATUS_EMPTY))
        lower = np.zeros(self.values.size) if np.all(self.values >= 0) else None
        zeros = np.zeros(sensitive.size)
        return CTAProblem(
            self.values, self.structure.relations(), lower=lower,
            weights=self.cost if use_cost and self.cost is not None else None,
            sensitive=sensitive, fixed=fixed,
            lower_protection=zeros if self.lower_protection is None else self.lower_protection[sensitive],
            upper_protection=zeros if self.upper_protection is None else self.upper_protection[sensitive],
            cell_label=self.structure.cell_label, relation_label=self.structure.relation_label)


def read_tab(path: str | Path, rda: str | Path | None = None) -> TauArgusTable:
    """Read a .tab file with its .rda (default: the same name with .rda)."""
    path = Path(path)
    metadata = read_rda(rda if rda is not None else path.with_suffix(".rda"))
    spanning = metadata.spanning
    if not spanning:
        raise FileFormatError("the metadata lists no spanning variable (<RECODEABLE>)", file=metadata.path)
    others = [v for v in metadata.variables if not v.has("RECODEABLE")]
    records = _records(path, metadata.separator or ";")
    n_fields = len(spanning) + len(others)
    for row, fields in records:
        if len(fields) != n_fields:
            raise FileFormatError(f"{len(fields)} fields, the metadata describes {n_fields} "
                                  f"({', '.join(v.name for v in metadata.variables)})", file=path, row=row)
    structure, labels, messages = _structure(metadata, records, path)
    cells = _read_cells(path, metadata, structure, records)
    missing = int((cells.lines == 0).sum())
    if missing:
        messages.append(f"{missing} cell(s) not in the file were taken as empty (0)")
    return TauArgusTable(path, metadata, structure, _statistics(metadata, cells), cells.column("SHADOW"),
                         cells.column("COSTVAR"), cells.status, cells.column("LOWERPL"), cells.column("UPPERPL"),
                         cells.lines, labels, tuple(messages))


def _structure(metadata: RdaMetadata, records: list[tuple[int, list[str]]], records_path: Path | None = None
               ) -> tuple[TableStructure, tuple[dict[str, str], ...], list[str]]:
    """The table the spanning variables' codes make, their codelists and notes on codes; a
    code outside its variable's hierarchy is noted naming records_path (the .tab) and its line."""
    messages: list[str] = []
    dimensions, labels = [], []
    try:
        for d, variable in enumerate(metadata.spanning):
            dimension, note = _dimension(variable, [fields[d] for _, fields in records], metadata.path,
                                         [row for row, _ in records], records_path)
            dimensions.append(dimension)
            messages += note
            labels.append(variable_labels(variable, metadata.path.parent))
        return TableStructure(tuple(dimensions)), tuple(labels), messages
    except ProblemError as error:
        raise FileFormatError(str(error), file=metadata.path) from None


@dataclasses.dataclass(frozen=True)
class _Cells:
    """The numbers and statuses of a .tab, per cell of the structure (0 and E where not listed)."""

    others: list[RdaVariable]
    columns: dict[str, np.ndarray]
    status: np.ndarray
    lines: np.ndarray

    def column(self, keyword: str) -> np.ndarray | None:
        """The values of the first variable with `keyword`, or None."""
        found = [v.name for v in self.others if v.has(keyword)]
        return self.columns[found[0]] if found else None


def _read_cells(path: Path, metadata: RdaMetadata, structure: TableStructure,
                records: list[tuple[int, list[str]]]) -> _Cells:
    """Every line's numbers and status, put in the line's cell."""
    n_codes = len(metadata.spanning)
    others = [v for v in metadata.variables if not v.has("RECODEABLE")]
    decimal_comma = (metadata.separator != ","
                     and any("," in f for _, fields in records for f in fields[n_codes:]))
    locator = CellLocator(structure, path)
    columns = {v.name: np.zeros(structure.n_cells) for v in others}
    status = np.full(structure.n_cells, STATUS_EMPTY, dtype="<U1")
    status_codes = metadata.status_codes()
    for row, fields in records:
        i = locator.locate(fields[:n_codes], row)
        for variable, text in zip(others, fields[n_codes:]):
            if variable.has("STATUS"):
                status[i] = _status(text, status_codes, path, row)
            else:
                columns[variable.name][i] = _number(variable, text, decimal_comma, path, row)
    if not any(v.has("STATUS") for v in others):
        status[locator.lines > 0] = STATUS_SAFE
    return _Cells(others, columns, status, locator.lines)


def _status(text: str, status_codes: dict[str, str], path: Path, row: int) -> str:
    if text.strip() not in status_codes:
        raise FileFormatError(f"status '{text}' is not one of {', '.join(status_codes)}", file=path, row=row)
    return status_codes[text.strip()]


def _number(variable: RdaVariable, text: str, decimal_comma: bool, path: Path, row: int) -> float:
    """A field as a finite number (empty: 0); a frequency must be whole and not negative."""
    number = parse_number(text, decimal_comma) if text.strip() else 0.0
    if number is None:
        raise FileFormatError(f"{variable.name} {not_a_number(text, decimal_comma)}", file=path, row=row)
    if variable.has("FREQUENCY") and not (number >= 0 and number.is_integer() and number < 2**53):
        raise FileFormatError(f"{variable.name} '{text}' must be a whole number, 0 or more", file=path, row=row)
    return number


def _statistics(metadata: RdaMetadata, cells: _Cells) -> CellStatistics:
    """What the safety rules read: the response, the frequency (1 per listed cell without a
    `<FREQUENCY>` variable, manual §4.4.3), the `<MAXSCORE>` top contributions and the
    shadow they belong to (manual §4.4.4)."""
    response = [v.name for v in cells.others if v.has("NUMERIC") and len(v.options) <= 2
                and not any(v.has(k) for k in ("SHADOW", "COSTVAR", "LOWERPL", "UPPERPL"))]
    if not response:
        raise FileFormatError("the metadata lists no response variable (<NUMERIC>)", file=metadata.path)
    frequency = cells.column("FREQUENCY")
    if frequency is None:
        frequency = cells.status != STATUS_EMPTY
    n = cells.status.size
    top = np.column_stack([cells.columns[v.name] for v in cells.others if v.has("MAXSCORE")] or [np.zeros((n, 0))])
    return CellStatistics(cells.columns[response[0]], frequency.astype(np.int64), top,
                          shadow=cells.column("SHADOW"))


def write_tab(path: str | Path, table: TauArgusTable, values: np.ndarray) -> Path:
    """Write the protected table as a release: a `.tab` with the spanning codes and `values`
    as the response variable, and beside it the `.rda` that describes it (same name).

    Everything else of the source file is left out: frequencies, shadow and cost values, top
    contributions, statuses and protection levels carry original values or single out the
    sensitive cells.  Lines keep the source's order, codes and decimal mark; codelists and
    hierarchy files the spanning variables name are copied beside the new `.rda` when missing.
    """
    path = Path(path)
    values = finite_values(values, "values", path)
    if values.shape != table.values.shape:
        raise FileFormatError(f"{values.size} values for a table of {table.values.size} cells", file=path)
    metadata = table.metadata
    if _same_file(path, table.path) or _same_file(path.with_suffix(".rda"), metadata.path):
        raise FileFormatError("the release would overwrite the source .tab or .rda; choose another name",
                              file=path)
    spanning = metadata.spanning
    response = _release_response(metadata)
    separator = metadata.separator or ";"
    records = dict(_records(table.path, separator))
    decimal_comma = separator != "," and any("," in f for fields in records.values()
                                             for f in fields[len(spanning):])
    listed = [i for i in np.argsort(np.where(table.lines > 0, table.lines, np.iinfo(np.int64).max), kind="stable")
              if table.lines[i]]
    codes = [records[int(table.lines[i])][:len(spanning)] for i in listed]
    _write_release(path, codes, values[listed], separator, decimal_comma, spanning, response)
    _copy_code_files(spanning, metadata.path.parent, path.parent)
    return path


def write_table_tab(path: str | Path, structure: TableStructure, values: np.ndarray, response: str,
                    decimals: int) -> Path:
    """Write a table built elsewhere (from microdata) as a release `.tab` and its `.rda`, as
    write_tab writes one read from a `.tab`: each cell's codes, in tau-argus's order (a code before
    its sub-codes, the total first), and its value at ``decimals`` as the variable ``response``.
    A spanning variable with sub-totals gets its hierarchy as a `.hrc` beside them
    (<stem>_<variable>.hrc).  Frequencies and statuses are not written: they single out the
    sensitive cells."""
    from ctadesk.io.tauargus_output import preorder

    path = Path(path)
    values = finite_values(values, "values", path)
    if values.size != structure.n_cells:
        raise FileFormatError(f"{values.size} values for a table of {structure.n_cells} cells", file=path)
    spanning = []
    for dimension in structure.dimensions:
        roots = np.flatnonzero(dimension.parents < 0)
        if roots.size != 1:
            raise FileFormatError(f"{dimension.name} has {roots.size} top codes; a .tab variable has one total",
                                  file=path)
        variable = RdaVariable(dimension.name, options={"RECODEABLE": [],
                                                        "TOTCODE": [dimension.codes[int(roots[0])]]})
        if int(dimension.depth.max()) > 1:
            hrc = path.with_name(f"{path.stem}_{dimension.name}.hrc")
            hrc.write_text("".join(f"{'@' * (int(dimension.depth[k]) - 1)}{dimension.codes[k]}\n"
                                   for k in preorder(dimension)[1:]), encoding="utf-8")
            variable.options.update(HIERARCHICAL=[], HIERCODELIST=[hrc.name], HIERLEADSTRING=["@"])
        spanning.append(variable)
    orders = [preorder(dimension) for dimension in structure.dimensions]
    cells = [(int(np.ravel_multi_index(codes, structure.shape)), codes) for codes in itertools.product(*orders)]
    codes = [[structure.dimensions[d].codes[k] for d, k in enumerate(position)] for _, position in cells]
    rda_response = RdaVariable(response, options={"NUMERIC": [], "DECIMALS": [str(decimals)]})
    _write_release(path, codes, values[[cell for cell, _ in cells]], ";", False, spanning, rda_response)
    return path


def _write_release(path: Path, codes: list[list[str]], values: np.ndarray, separator: str, decimal_comma: bool,
                   spanning: list[RdaVariable], response: RdaVariable) -> None:
    """The release `.tab` (each line the cell's quoted codes and its value at the response's
    `<DECIMALS>`) and its `.rda` (same name)."""
    decimals = int(response.option("DECIMALS", "2"))
    out = []
    for cell_codes, value in zip(codes, values):
        text = f"{value:.{decimals}f}"
        out.append(separator.join([*(f'"{code}"' for code in cell_codes),
                                   text.replace(".", ",") if decimal_comma else text]))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    path.with_suffix(".rda").write_text(_release_rda(separator, spanning, response), encoding="utf-8")


def _same_file(first: Path, second: Path) -> bool:
    return first.exists() and second.exists() and first.resolve() == second.resolve()


def _release_response(metadata: RdaMetadata) -> RdaVariable:
    """The response variable of a .tab (the first plain `<NUMERIC>`), as read_tab takes it."""
    for variable in metadata.variables:
        if (variable.has("NUMERIC") and len(variable.options) <= 2
                and not any(variable.has(k) for k in ("SHADOW", "COSTVAR", "LOWERPL", "UPPERPL"))):
            return variable
    raise FileFormatError("the metadata lists no response variable (<NUMERIC>)", file=metadata.path)


def _release_rda(separator: str, spanning: list[RdaVariable], response: RdaVariable) -> str:
    """An .rda listing the spanning variables with all their options, then the response."""
    def quoted(text: str) -> str:
        return text if text.replace(".", "", 1).isdigit() else '"' + text.replace('"', "") + '"'

    lines = [f'   <SEPARATOR> {quoted(separator)}']
    for variable in spanning:
        lines.append(" ".join([variable.name, *(f'"{t}"' for t in variable.position)]))
        lines += [f"    <{keyword}>" + "".join(f" {quoted(a)}" for a in arguments)
                  for keyword, arguments in variable.options.items()]
    lines += [response.name, "    <NUMERIC>", f"    <DECIMALS> {response.option('DECIMALS', '2')}"]
    return "\n".join(lines) + "\n"


def _copy_code_files(spanning: list[RdaVariable], source: Path, target: Path) -> None:
    """Copy the codelists and hierarchy files the variables name into target, unless there already."""
    if source.resolve() == target.resolve():
        return
    for variable in spanning:
        for keyword in ("CODELIST", "HIERCODELIST"):
            name = variable.option(keyword)
            if name and not (target / _base_name(name)).exists():
                shutil.copyfile(find_beside(source, name), target / _base_name(name))


# ------------------------------------------------------------------ helpers
def _records(path: Path, separator: str) -> list[tuple[int, list[str]]]:
    """The non-blank records of a .tab file with the line each starts on."""
    return [(row, fields) for row, fields in csv_records(read_lines(path, max_bytes=MAX_BYTES), separator, path)
            if any(f.strip() for f in fields)]


def _base_name(name: str) -> str:
    """The file name alone of a name an .rda gives ('C:\\data\\region.hrc', '../x.hrc' -> the
    last part): files an .rda names are looked for next to it, and written only there."""
    base = PureWindowsPath(name.strip()).name
    if base in ("", ".", ".."):
        raise FileFormatError(f"'{name}' is not a file name")
    return base


def find_beside(directory: Path, name: str) -> Path:
    """A file named in an .rda, found next to it, case-insensitively (tau-argus ran on Windows);
    a folder part of the name (absolute, '..') is not followed."""
    base = _base_name(name)
    candidate = directory / base
    if candidate.is_file():
        return candidate
    for other in directory.iterdir():
        if other.name.lower() == base.lower() and other.is_file():
            return other
    raise FileFormatError(f"the file '{name}' the metadata refers to is missing (looked for {base} next to it)",
                          file=directory / base)


def _dimension(variable: RdaVariable, codes: list[str], rda: Path, rows: list[int] | None = None,
               path: Path | None = None) -> tuple[Dimension, list[str]]:
    """The variable's codes, trimmed (tau-argus right-aligns codes), under its `<TOTCODE>`:
    its .hrc hierarchy (beside the metadata file ``rda``), or flat in the order of the file.  A
    code its hierarchy does not hold (tau-argus's own pp.tab has one) is added directly under the
    total, with a note naming the file `path` and the first line holding it (rows: the line of
    each code)."""
    total = variable.option("TOTCODE", DEFAULT_TOTAL).strip()
    codes = [code.strip() for code in codes]
    seen = list(dict.fromkeys(code for code in codes if code != total))
    if variable.has("HIERLEVELS") and not variable.has("HIERCODELIST"):
        # digit levels are read for microdata only (tauargus_microdata.py): a table's are refused,
        # not read flat (pp.tab with a flat Region was protected and called verified)
        raise FileFormatError(f"{variable.name}: a table's hierarchy is read from a <HIERCODELIST> .hrc "
                              f"file, not from <HIERLEVELS>", file=rda)
    if not (variable.has("HIERARCHICAL") or variable.has("HIERCODELIST")):
        return Dimension.flat(variable.name, seen, total=total, total_first=bool(codes) and codes[0] == total), []
    first = {code: rows[k] for k, code in reversed(list(enumerate(codes)))} if rows else {}
    return with_codes_under_total(variable_hierarchy(variable, rda, total), variable, seen, total, first.get, path)


def with_codes_under_total(hierarchy: Dimension, variable: RdaVariable, seen: Iterable[str], total: str,
                           line_of: Callable[[str], int | None], path: Path | None) -> tuple[Dimension, list[str]]:
    """``hierarchy`` with each code of ``seen`` it does not hold added directly under the total
    (tau-argus's own pp.tab has one), and a note for each naming the file ``path`` and the first
    line holding the code (``line_of``; where it gives none, the variable alone)."""
    held = set(hierarchy.codes)
    extra = [code for code in seen if code not in held]
    if not extra:
        return hierarchy, []
    root = int(np.flatnonzero(hierarchy.parents < 0)[0])
    dimension = Dimension(variable.name, hierarchy.codes + tuple(extra),
                          np.r_[hierarchy.parents, np.full(len(extra), root)])
    where = f"{path.name}, " if path is not None else ""
    notes = []
    for code in extra:
        line = line_of(code)
        at = f"{where}line {line}: code '{code}' of {variable.name}" if line is not None else \
            f"{variable.name}: code '{code}'"
        notes.append(f"{at} is not in {variable.option('HIERCODELIST')}; its cell was added directly under {total}")
    return dimension, notes


def variable_hierarchy(variable: RdaVariable, rda: Path, total: str) -> Dimension:
    """The variable's `<HIERCODELIST>` hierarchy with its codes trimmed, read beside the metadata
    file ``rda`` (FileFormatError naming that file where the variable has no list, or the list
    names no .hrc file)."""
    listed = variable.option("HIERCODELIST")
    if not variable.has("HIERCODELIST"):
        raise FileFormatError(f"{variable.name}: <HIERARCHICAL> with neither <HIERCODELIST> nor <HIERLEVELS>",
                              file=rda)
    if not listed:
        raise FileFormatError(f"{variable.name}: <HIERCODELIST> names no .hrc file", file=rda)
    path = find_beside(rda.parent, listed)
    hierarchy = read_hrc(path, variable.name, lead=variable.option("HIERLEADSTRING", "@"), total=total)
    try:
        return Dimension(variable.name, tuple(code.strip() for code in hierarchy.codes), hierarchy.parents)
    except ProblemError as error:
        raise FileFormatError(str(error), file=path) from None


def variable_labels(variable: RdaVariable, directory: Path) -> dict[str, str]:
    name = variable.option("CODELIST")
    if not name:
        return {}
    labels = read_cdl(find_beside(directory, name))
    return {**labels, **{code.strip(): label for code, label in labels.items()}}
