"""Several tables from one microdata set, protected together.

An office publishes Region x Size and Region x Sector from one survey: both hold every
Region x Total cell.  Protected one at a time, each table's CTA moves those cells its own
way, and the publication shows two different totals for one region.  Here the tables are
linked (engine/table/linked.py; de Wolf & Giessing's model, Petrenko 2017, §5.1): a cell is one
variable however many tables hold it, the safety rules judge it once (from the records it
holds, the same in every table), one CTA runs over the union of the tables' relations, and
each table's published values are read back from the one solution.

    tables = tabulate_linked(microdata, [("Region", "Size"), ("Region", "Sector")])
    linked = protect_linked(tables, SafetyRules(min_frequency=3), ProtectionRequest(seed=1))
    linked.published()[1]          # Region x Sector as published, C order of its structure

``protect_linked`` is what every front end runs for several tables of one microdata set:
``ctadesk protect --span A B --span A C``, the app's tabulate dialog with several tables and
a batch job's tables of one microdata file.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ctadesk.app.job import Protection, protect
from ctadesk.app.request import ProtectionRequest
from ctadesk.engine.errors import CTAError, ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import Progress
from ctadesk.engine.rules.safety import RuleResult, SafetyRules, apply_rules, to_problem
from ctadesk.engine.table.linked import LinkedTables
from ctadesk.engine.table.microdata import Microdata, tabulate
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.project import Project

if TYPE_CHECKING:
    from ctadesk.io.excel.tables import GridTable

#: the cell costs a linked problem may be given by name: 1/|value| (the default of tabulated
#: tables), 1 (total absolute change) and the number of contributors (tau-argus's cost -1)
COSTS = ("inverse", "unit", "frequency")


@dataclasses.dataclass(frozen=True, eq=False)
class LinkedTabulation:
    """Tables tabulated from one microdata set over their unique cells.

    spans       each table's spanning variables, in table order
    linked      the tables' structures and the unique cell of each of their cells
    statistics  each table's statistics (C order of its structure)
    cells       the unique cells' statistics (a shared cell's are the same in every table)
    """

    spans: tuple[tuple[str, ...], ...]
    linked: LinkedTables
    statistics: tuple[CellStatistics, ...]
    cells: CellStatistics

    @classmethod
    def of(cls, spans: Sequence[Sequence[str]], structures: Sequence[TableStructure],
           statistics: Sequence[CellStatistics]) -> LinkedTabulation:
        """Tables already tabulated (a shadow variable's contributions, a batch's own
        tabulation), linked: a shared cell's statistics must agree between tables."""
        linked = LinkedTables.link(structures)
        return cls(tuple(tuple(span) for span in spans), linked, tuple(statistics),
                   linked.gather_statistics(statistics))

    @property
    def structures(self) -> tuple[TableStructure, ...]:
        return self.linked.structures

    def cell_structure(self) -> TableStructure:
        """The unique cells as a one-dimensional table without relations (labels 'Region=Nr, Size=4')."""
        codes = tuple(self.linked.cell_label(i) for i in range(self.linked.n_cells))
        return TableStructure((Dimension("Cell", codes, np.full(len(codes), -1)),))

    def title(self, table: int) -> str:
        """e.g. 'Region x Size'."""
        return " x ".join(self.spans[table])

    def grid_tables(self, original: np.ndarray, adjusted: np.ndarray, sensitive: np.ndarray) -> list[GridTable]:
        """Each table for a workbook (ctadesk.io.excel.tables), from unique cell values and the
        unique cells that are sensitive."""
        from ctadesk.io.excel.tables import GridTable

        return [GridTable(self.title(t), structure, before, after, self.linked.table_indices(sensitive, t))
                for t, (structure, before, after) in enumerate(zip(self.structures, self.linked.scatter(original),
                                                                   self.linked.scatter(adjusted)))]


def tabulate_linked(microdata: Microdata, spans: Sequence[Sequence[str]], top_k: int = 5,
                    holding_top_k: int | None = None) -> LinkedTabulation:
    """Tabulate each span of ``microdata`` (whose structure holds every variable the spans name)
    and link the tables: the same records make a shared cell in every table, so its statistics
    are taken once.  Two tables spanned alike are refused: they would be one table twice."""
    spans = tuple(tuple(span) for span in spans)
    if not spans:
        raise CTAError("no table: give at least one set of spanning variables")
    seen: dict[frozenset[str], int] = {}
    for t, span in enumerate(spans):
        earlier = seen.setdefault(frozenset(span), t)
        if earlier != t:
            raise CTAError(f"tables {earlier + 1} and {t + 1} are both spanned by {', '.join(span)}")
    tables = [microdata.spanned_by(span) for span in spans]
    return LinkedTabulation.of(spans, [table.structure for table in tables],
                               [tabulate(table, top_k=top_k, holding_top_k=holding_top_k) for table in tables])


@dataclasses.dataclass(frozen=True, eq=False)
class LinkedProtection:
    """Linked tables protected together.

    tabulation  the tables and their unique cells
    rules       the safety rules' verdict on each unique cell (one status per cell)
    problem     the CTA problem over the unique cells (relations of every table, each once)
    protection  the protection run on ``problem``
    """

    tabulation: LinkedTabulation
    rules: RuleResult
    problem: CTAProblem
    protection: Protection

    @property
    def linked(self) -> LinkedTables:
        return self.tabulation.linked

    def original(self) -> list[np.ndarray]:
        """Each table's values as tabulated (weighted where the rules used weights)."""
        return self.linked.scatter(self.problem.values)

    def published(self) -> list[np.ndarray] | None:
        """Each table's values as published (None without a table): a shared cell has one value."""
        values = self.protection.result.values
        return None if values is None else self.linked.scatter(values)

    def sensitive(self, table: int) -> np.ndarray:
        """Positions in ``table`` of its sensitive cells."""
        return self.linked.table_indices(self.problem.sensitive, table)

    def summary(self) -> str:
        """e.g. '2 tables, 60 cells (12 shared), 9 unsafe, 7 changed; optimal'."""
        result = self.protection.result
        return (f"{len(self.linked.structures)} tables, {self.linked.n_cells} cells ({self.linked.n_shared} shared), "
                f"{self.problem.n_sensitive} unsafe, {self.protection.outcome.cells_changed} changed; "
                f"{result.status.value}{'' if result.protected else ' (NOT fully protected)'}")


def manual_cells(tabulation: LinkedTabulation, cells: Sequence[Mapping[str, str]]) -> list[int]:
    """Unique cells declared unsafe by hand, each as {variable: code}; a variable a cell does
    not name is at its total.  The cell is looked up in the first table that spans every variable
    it names."""
    found = []
    for cell in cells:
        for structure, cell_map in zip(tabulation.linked.structures, tabulation.linked.cell_maps):
            names = [dimension.name for dimension in structure.dimensions]
            if set(cell) <= set(names):
                position = [dimension.index(cell[dimension.name]) if dimension.name in cell
                            else int(np.flatnonzero(dimension.parents < 0)[0]) for dimension in structure.dimensions]
                found.append(int(cell_map[np.ravel_multi_index(position, structure.shape)]))
                break
        else:
            named = ", ".join(f"{name}={code}" for name, code in cell.items())
            raise CTAError(f"manual cell {named}: no table spans {', '.join(cell)}")
    return found


def linked_problem(tabulation: LinkedTabulation, rules: SafetyRules, *, manual: Sequence[int] = (),
                   cost: str | np.ndarray = "inverse",
                   nonnegative: bool | None = None) -> tuple[CTAProblem, RuleResult]:
    """The CTA problem over the unique cells and the rules' verdict on them.

    cost   'inverse', 'unit', 'frequency' (COSTS), or each unique cell's cost: a cost variable's
           totals over the cell's records (tau-argus's cost variable), as ``cost_totals`` makes them
    """
    result = apply_rules(tabulation.cells, rules, manual=manual)
    structure = tabulation.cell_structure()
    named = cost if isinstance(cost, str) else "unit"
    if named not in COSTS:
        raise CTAError(f"unknown cell cost '{cost}' (use {', '.join(COSTS)} or a cost variable)")
    problem = to_problem(structure, tabulation.cells, result, rules, nonnegative=nonnegative,
                         weights="unit" if named == "frequency" else named)
    linked = tabulation.linked
    weights = problem.weights
    if named == "frequency":
        weights = tabulation.cells.freq.astype(float)
    elif not isinstance(cost, str):
        weights = np.asarray(cost, float)
    return problem.replace(relations=linked.relations(), rhs=None, weights=weights, cell_label=linked.cell_label,
                           relation_label=linked.relation_label), result


def cost_totals(microdata: Microdata, tabulation: LinkedTabulation, cost: np.ndarray) -> np.ndarray:
    """Each unique cell's total of a cost variable (one number per record of ``microdata``)."""
    cost = np.asarray(cost, float).reshape(-1)
    if cost.size != microdata.n_records:
        raise ProblemError(f"the cost variable has {cost.size} records, the microdata {microdata.n_records}")
    totals = []
    for span in tabulation.spans:
        table = microdata.spanned_by(span)
        totals.append(tabulate(dataclasses.replace(table, response=cost, weight=None, holding=None, request=None),
                               top_k=0).values)
    return tabulation.linked.gather(totals)


def protect_linked(tabulation: LinkedTabulation, rules: SafetyRules, request: ProtectionRequest, *,
                   manual: Sequence[int] = (), cost: str | np.ndarray = "inverse",
                   nonnegative: bool | None = None,
                   on_log: Callable[[str], None] | None = None,
                   on_progress: Callable[[Progress], None] | None = None,
                   stop: threading.Event | None = None) -> LinkedProtection:
    """Protect the linked tables as one problem (module docstring): the rules once per unique
    cell (``manual``: unique cells declared unsafe, see manual_cells), then ``request`` run by
    ctadesk.app.protect over the union of the tables' relations.  ``cost`` as in linked_problem."""
    problem, result = linked_problem(tabulation, rules, manual=manual, cost=cost, nonnegative=nonnegative)
    protection = protect(problem, request, on_log=on_log, on_progress=on_progress, stop=stop)
    return LinkedProtection(tabulation, result, problem, protection)


def linked_project(tabulation: LinkedTabulation, rules: SafetyRules, problem: CTAProblem,
                   result: RuleResult) -> Project:
    """The linked tables as one project over their unique cells (a 'Cell' list, as sheets of one
    workbook are linked): the statistics the rules read, the rules and the cells they flagged,
    and the tables as ``source`` so that a release workbook has a sheet per table."""
    from ctadesk.app.rules import flagged_names, rules_dict

    project = Project.from_problem(problem, tabulation.cell_structure())
    project.statistics = tabulation.cells
    project.rules = rules_dict(rules)
    project.flagged_by = flagged_names(result)
    project.source = tabulation
    titles = "; ".join(tabulation.title(t) for t in range(len(tabulation.spans)))
    project.log = (f"{len(tabulation.spans)} linked tables ({titles}): "
                   f"{tabulation.linked.n_cells} cells, {tabulation.linked.n_shared} shared")
    return project


def read_microdata_tables(path: str | Path, spans: Sequence[Sequence[str]], response: str, weight: str | None = None,
                          holding: str | None = None, hierarchy_files: Mapping[str, str] | None = None) -> Project:
    """The app's tabulation of a microdata file: one table as files.read_microdata_file makes it;
    several read once (every variable of every span), tabulated and linked into one project
    (linked_project), nothing flagged until the rules apply."""
    from ctadesk.app.files import TOP_CONTRIBUTIONS, read_microdata_file
    from ctadesk.app.formats import read_hierarchy, read_microdata
    from ctadesk.io.microdata import MicrodataSpec

    spans = [tuple(span) for span in spans]
    if len(spans) == 1:
        return read_microdata_file(path, spans[0], response, weight, holding, hierarchy_files)
    variables = tuple(dict.fromkeys(name for span in spans for name in span))
    hierarchies = {name: read_hierarchy(file, name) for name, file in (hierarchy_files or {}).items()
                   if file and name in variables}
    spec = MicrodataSpec(spanning=variables, response=response, weight=weight or None, holding=holding or None,
                         hierarchies=hierarchies)
    tabulation = tabulate_linked(read_microdata(path, spec), spans, top_k=TOP_CONTRIBUTIONS,
                                 holding_top_k=TOP_CONTRIBUTIONS)
    rules = SafetyRules()
    problem, result = linked_problem(tabulation, rules)
    return linked_project(tabulation, rules, problem, result)


def export_linked_workbook(path: str | Path, linked: LinkedProtection, *, internal: bool = False,
                           settings: Mapping[str, object] | None = None):
    """A release (or internal) workbook with a sheet per table in the default layout, each
    table's published values read from the one solution, and the Quality, Method and Log
    sheets of the whole run.  A release needs a protected table at its precision."""
    from ctadesk.app.provenance import request_text, version_settings
    from ctadesk.io.excel import ExportReport
    from ctadesk.io.excel.tables import export_tables_workbook

    protection = linked.protection
    result = protection.result
    values = result.values
    if values is None:
        raise CTAError(f"no table to write to {path}: {result.message}")
    if not internal and not result.protected:
        raise CTAError(f"{path} not written: the result is not a protected table")
    if not internal and not protection.precision_met:
        raise CTAError(f"{path} not written: {protection.outcome.published.note}")
    widening = protection.widening
    report = ExportReport.from_result(
        result, protection.required.values, protection.required.sensitive,
        settings={**(settings or {}), "tables": len(linked.linked.structures),
                  "protection levels widened by a secret factor": "yes" if widening else "no", **version_settings()},
        measures=protection.quality,
        internal_settings=(*(widening.settings() if widening else ()),
                           ("request", request_text(protection.request.options()))))
    tables = linked.tabulation.grid_tables(protection.required.values, values, protection.required.sensitive)
    return export_tables_workbook(path, tables, internal=internal, report=report, decimals=protection.decimals)
