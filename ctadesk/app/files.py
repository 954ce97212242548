"""Every file a session opens or writes, as Projects: ctadesk.io seen from a protection job.

Importers return a Project whose ``source`` remembers what the reader returned
(the Excel tables, the tau-argus table, the wide CSV), so export can write the
protected table back in the layout it came in.  Nothing here shows a widget.

Every importer checks the relations on the values read before a project is made
(ctadesk.io.additivity, the check ``ctadesk convert`` and the tau-argus reader
make): a table whose totals do not add up -- a structure guessed wrong, or a file
that is not additive -- is refused with a NonAdditiveError naming the file, the
sheet, the relations and the amounts, unless the user chose to keep the differences
(keep_non_additive: a tau-argus table opened as it is, a table converted as it stands).
Which importer reads which file is the format registry's to say (ctadesk.app.formats).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ctadesk.app.outcome import Outcome
from ctadesk.app.provenance import request_text, version_settings
from ctadesk.app.request import ProtectionRequest
from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.measures import QualityReport, quality_report
from ctadesk.engine.result import CTAResult
from ctadesk.engine.rules.safety import SafetyRules, apply_rules, to_problem
from ctadesk.engine.table.linked import LinkedTables
from ctadesk.engine.table.microdata import Microdata, tabulate
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.additivity import NonAdditiveError, require_additive
from ctadesk.io.project import Project

if TYPE_CHECKING:
    from ctadesk.engine.audit import AuditResult
    from ctadesk.io.csv_table import CsvRecords
    from ctadesk.io.excel import ExcelTable, ExportOutcome  # openpyxl loads when a workbook is read or written
    from ctadesk.io.tauargus import TauArgusTable

#: largest contributions kept per cell when microdata are tabulated (the most a dominance rule can use)
TOP_CONTRIBUTIONS = 5
#: cell weights of a table tabulated from microdata: 1/|a|, so change is spread in proportion to cell
#: size (w = 1 lets an optimal table take it all from a few cells; README "Cell weights")
TABULATED_WEIGHTS = "inverse"


@dataclasses.dataclass(frozen=True, eq=False)
class ExcelSource:
    """Tables read from sheets (or a wide CSV); linked is set when there are several."""

    tables: tuple[ExcelTable, ...]
    linked: LinkedTables | None = None
    csv: bool = False

    def scatter(self, values: np.ndarray) -> list[np.ndarray]:
        """Each table's values from the project's cell values."""
        return self.linked.scatter(values) if self.linked is not None else [np.asarray(values, float)]

    def table_cells(self, cells: np.ndarray, table: int) -> np.ndarray:
        """Positions in table `table` of project cells `cells`."""
        if self.linked is None:
            return np.asarray(cells, np.int64)
        return self.linked.table_indices(np.asarray(cells, np.int64), table)


#: what a refusal of a table whose totals do not add up suggests
NOT_ADDITIVE = ("correct the values or the layout (a hidden row or column the totals include, a column "
                "of shares or ratios taken as a part of a total)")


def check_additive(structure: TableStructure, values: np.ndarray, file: str | Path | None,
                   sheet: str | None = None, advice: str = NOT_ADDITIVE) -> None:
    """NonAdditiveError naming file, sheet, relation and amount when values break a relation of structure."""
    require_additive(structure.relations(), values, structure.relation_label, file=file, sheet=sheet, advice=advice)


def _plain_problem(structure: TableStructure, values: np.ndarray, relations=None) -> CTAProblem:
    """A table with nothing sensitive yet; cells >= 0 when every value is."""
    values = np.asarray(values, float)
    relations = structure.relations() if relations is None else relations
    return CTAProblem(values=values, relations=relations, lower=0.0 if np.all(values >= 0) else None)


# ------------------------------------------------------------------ importers
def project_from_excel(tables: Sequence[ExcelTable], csv_source: bool = False, *,
                       keep_non_additive: bool = False) -> Project:
    """One sheet as its grid; several as linked tables over their unique cells (one list).  The
    reader's notes (hidden rows left out, flag columns, cells taken as 0, ...) go to the log.
    A table whose totals do not add up is refused (check_additive, naming its sheet) unless
    keep_non_additive."""
    tables = tuple(tables)
    if not tables:
        raise CTAError("choose at least one sheet")
    for table in tables:
        if not keep_non_additive:
            check_additive(table.structure, table.values, table.source, None if csv_source else table.sheet)
    if len(tables) == 1:
        table = tables[0]
        project = Project.from_problem(_plain_problem(table.structure, table.values), table.structure)
        project.source = ExcelSource(tables, csv=csv_source)
    else:
        linked = LinkedTables.link([t.structure for t in tables])
        values = linked.gather([t.values for t in tables])
        codes = [linked.cell_label(i) for i in range(linked.n_cells)]
        structure = TableStructure((Dimension("Cell", tuple(codes), np.full(len(codes), -1)),))
        project = Project.from_problem(_plain_problem(structure, values, linked.relations()), structure)
        project.source = ExcelSource(tables, linked)
    project.log = "\n".join(f"{table.source.name}{'' if csv_source else f', sheet {table.sheet}'}: {note}"
                            for table in tables for note in table.notes)
    return project


def project_from_tab(table: TauArgusTable, *, keep_non_additive: bool = False) -> Project:
    """Unsafe cells sensitive with the file's protection levels; statistics kept for the rules.
    Totals that differ from the sum of their parts are refused naming them, unless the user
    chose to keep them (keep_non_additive; TauArgusTable.make_additive recomputes them)."""
    broken = table.non_additive()
    if broken and not keep_non_additive:
        raise NonAdditiveError(broken, file=table.path, advice="recompute the totals from their parts, or keep "
                                                               "the differences on purpose")
    project = Project.from_problem(table.problem(), table.structure)
    project.log = "\n".join(table.messages)  # codes outside their hierarchy, cells not in the file, ...
    project.flagged_by[project.sensitive] = "tau-argus"
    project.statistics = table.statistics
    project.source = table
    return project


def project_from_microdata(microdata: Microdata, top_k: int = TOP_CONTRIBUTIONS) -> Project:
    """Tabulate (values, frequencies, top contributions, holdings); nothing flagged until rules apply."""
    stats = tabulate(microdata, top_k=top_k, holding_top_k=top_k)
    structure = microdata.structure
    problem = to_problem(structure, stats, apply_rules(stats, SafetyRules()), weights=TABULATED_WEIGHTS)
    project = Project.from_problem(problem, structure)
    project.statistics = stats
    return project


def read_csv_table(path: str | Path | CsvRecords, kind: str, *, no_totals: bool = False,
                   decimal_comma: bool | None = None, keep_non_additive: bool = False) -> Project:
    """A table from a CSV file, 'long' (one line per cell) or 'wide' (as a sheet).  A long table
    without any total code is refused unless no_totals says it has none; a table whose totals
    do not add up is refused (check_additive) unless keep_non_additive.  path may be the file
    parsed already (ctadesk.io.csv_table.read_csv_records)."""
    from ctadesk.io.csv_table import read_long_csv, read_wide_csv

    if kind == "long":
        table = read_long_csv(path, decimal_comma=decimal_comma, no_totals=no_totals)
        if not keep_non_additive:
            check_additive(table.structure, table.values, table.path)
        project = Project.from_problem(_plain_problem(table.structure, table.values), table.structure)
        project.log = "\n".join(table.messages)
        return project
    return project_from_excel([read_wide_csv(path, decimal_comma=decimal_comma)], csv_source=True,
                              keep_non_additive=keep_non_additive)


# -------------------------------------------------------------- microdata
def read_microdata_file(path: str | Path, spanning: Sequence[str], response: str, weight: str | None = None,
                        holding: str | None = None, hierarchy_files: Mapping[str, str] | None = None) -> Project:
    """Read microdata with the chosen variables and hierarchy files (.hrc or level CSV), then tabulate."""
    from ctadesk.app.formats import read_hierarchy, read_microdata
    from ctadesk.io.microdata import MicrodataSpec

    hierarchies = {name: read_hierarchy(file, name) for name, file in (hierarchy_files or {}).items() if file}
    spec = MicrodataSpec(spanning=tuple(spanning), response=response, weight=weight or None,
                         holding=holding or None, hierarchies=hierarchies)
    project = project_from_microdata(read_microdata(path, spec))
    project.response = response or "Freq"
    return project


# ------------------------------------------------------------------ exporters
def project_quality(project: Project, result: CTAResult) -> QualityReport | None:
    """The quality report of result against the project's original values (None without a table).
    Only values, relations and sensitive cells matter, so a table being edited cannot fail it."""
    if result.values is None or result.values.shape != project.values.shape:
        return None
    table = CTAProblem(values=project.values, relations=project.relations, sensitive=np.flatnonzero(project.sensitive))
    return quality_report(table, result.values)


def _solved(project: Project) -> CTAResult:
    """The project's result, when it holds a table (CTAError telling the user to protect first)."""
    result = project.result
    if result is None or result.values is None:
        raise CTAError("There is no protected table to export yet: press Protect first.")
    return result


def _adjusted(project: Project) -> np.ndarray:
    return np.asarray(_solved(project).values, float)


def _released(project: Project) -> np.ndarray:
    """The adjusted values, when they are a protected table that may be released."""
    result = _solved(project)
    adjusted = np.asarray(result.values, float)
    if not result.protected:
        raise CTAError("The result is not a protected table, so it cannot be released; "
                       "the internal workbook can still be written.")
    published = Outcome.from_dict(project.outcome).published
    if not published.met:
        raise CTAError(f"The protected table is not at the precision it would be published at "
                       f"({published.note}), so it cannot be released: choose another precision "
                       "and protect again; the internal workbook can still be written.")
    return adjusted


def published_decimals_of(project: Project) -> int | None:
    """The decimals the project's result was put at (None: unrounded)."""
    return None if project.result is None else Outcome.from_dict(project.outcome).published.decimals


def export_excel(path: str | Path, project: Project, internal: bool, audit: AuditResult | None = None) -> ExportOutcome:
    """Release or internal workbook: in the layout of the workbook the table came from, else in
    the default layout (rows x columns with labels).  A release needs a protected table.  An
    internal workbook gets an Audit sheet from ``audit`` (a release never does).  Both name the
    versions that made the result (the project's, else this installation's); the internal one
    also the request with its seed (ctadesk.app.provenance)."""
    from ctadesk.io.excel import ExportReport, export_table_workbook, export_workbook
    from ctadesk.io.excel.export import AuditSheet

    adjusted = _adjusted(project) if internal else _released(project)
    sensitive = np.flatnonzero(project.sensitive)
    public, secret = _split_options(project.options)
    public.update(version_settings(project.versions or None))
    secret["request"] = request_text(project.options)
    result = _solved(project)
    report = ExportReport.from_result(result, project.values, sensitive, settings=public,
                                      measures=project_quality(project, result),
                                      internal_settings=secret.items())
    if internal and audit is not None:
        report = dataclasses.replace(report, audit=AuditSheet.from_result(audit, project.structure.cell_label))
    source = project.source
    if isinstance(source, ExcelSource) and not source.csv:
        per_table = [source.table_cells(sensitive, t) for t in range(len(source.tables))]
        return export_workbook(path, source.tables, source.scatter(adjusted), per_table, internal=internal,
                               report=report)
    from ctadesk.app.linked_tables import LinkedTabulation

    if isinstance(source, LinkedTabulation):      # linked tables from microdata: a sheet per table
        from ctadesk.io.excel.tables import export_tables_workbook

        return export_tables_workbook(path, source.grid_tables(project.values, adjusted, sensitive),
                                      internal=internal, report=report, decimals=published_decimals_of(project))
    return export_table_workbook(path, project.structure, project.values, adjusted, sensitive,
                                 internal=internal, report=report, decimals=published_decimals_of(project))


def _split_options(options: Mapping[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """The solver options a release may show, and the secret ones (a seed) for the internal workbook.
    Quality terms are named (ProtectionRequest.public_settings), never listed with their cells."""
    public = {k: v for k, v in options.items() if k not in ("method", "quality") and "seed" not in k}
    if options.get("quality"):
        public["quality terms"] = ProtectionRequest.from_options(options).public_settings()["quality terms"]
    return public, {k: v for k, v in options.items() if "seed" in k}


def export_release(path: str | Path, project: Project) -> ExportOutcome:
    """The release workbook (export_excel)."""
    return export_excel(path, project, internal=False)


def export_internal(path: str | Path, project: Project) -> ExportOutcome:
    """The internal workbook with the originals (export_excel; the session adds its audit)."""
    return export_excel(path, project, internal=True)


def export_csv(path: str | Path, project: Project) -> Path:
    """The adjusted table: in its own layout when it came from a wide CSV, else one line per cell."""
    from ctadesk.io.csv_table import write_long_csv, write_wide_csv

    adjusted = _adjusted(project)
    source = project.source
    if isinstance(source, ExcelSource) and source.csv:
        return write_wide_csv(path, source.tables[0], adjusted)
    return write_long_csv(path, project.structure, adjusted)


def export_jj(path: str | Path, project: Project) -> Path:
    """The problem as it stands (original values, status, protection levels) as a JJ file; a
    table whose totals do not add up is refused (a JJ file holds an additive table)."""
    from ctadesk.io.additivity import non_additive
    from ctadesk.io.jj import write_jj

    problem = project.to_problem()
    broken = non_additive(problem.relations, problem.values, problem.describe_relation, problem.rhs)
    if broken:
        raise NonAdditiveError(broken, file=path, advice="a JJ file holds an additive table")
    write_jj(path, problem)
    return Path(path)


def write_table_csv(path: str | Path, project: Project) -> Path:
    """The table as it stands (its original values), one line per cell."""
    from ctadesk.io.csv_table import write_long_csv

    return write_long_csv(path, project.structure, project.values)


def export_sol(path: str | Path, project: Project) -> Path:
    from ctadesk.io.jj import write_sol

    write_sol(path, project.to_problem(), _adjusted(project))
    return Path(path)


def tab_exportable(project: Project) -> bool:
    """Whether the project's table can be written as a .tab: read from a .tab (written in its
    layout) or tabulated from microdata as one table (its response variable known).  The window
    asks after every run: the .tab reader is not imported for it (a table read from a .tab has
    loaded it already)."""
    tauargus = sys.modules.get("ctadesk.io.tauargus")
    from_tab = tauargus is not None and isinstance(project.source, tauargus.TauArgusTable)
    return from_tab or (project.response is not None and project.source is None)


def export_tab(path: str | Path, project: Project) -> Path:
    """A release .tab (codes and adjusted values) with its .rda and its provenance sidecar
    (ctadesk.app.provenance: a .tab holds no header): in the layout of the .tab the table was read
    from, or, for a table tabulated from microdata, in tau-argus's order with the response
    variable's name, at the decimals the result was published at."""
    from ctadesk.app.provenance import write_release_provenance
    from ctadesk.engine.publish.precision import published_decimals
    from ctadesk.io.tauargus import TauArgusTable, write_tab, write_table_tab

    if not tab_exportable(project):
        raise CTAError("Only a table read from a tau-argus .tab file or tabulated from microdata (one table) "
                       "can be written as .tab.")
    released = _released(project)
    if isinstance(project.source, TauArgusTable):
        written = write_tab(path, project.source, released)
    else:
        decimals = published_decimals_of(project)
        written = write_table_tab(path, project.structure, released, str(project.response),
                                  published_decimals(released) if decimals is None else decimals)
    write_release_provenance(written, project.options, project.versions or None, files=(written.with_suffix(".rda"),))
    return written
