"""The tables of a batch file built as tau-argus builds them: a table from microdata is tabulated
(ctadesk.engine.table.microdata), a table from a `.tab` read as given (READTABLE 0: its totals must
add up), its totals computed from their parts (1) or its differences kept (2); then the safety rules, or the table's
own statuses when the batch gives none; then its a-priori files.  What comes out is the CTA
problem of the table with what its outputs need."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ctadesk.app.batch.rules import BatchRules, batch_rules
from ctadesk.app.files import TABULATED_WEIGHTS
from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.rules.safety import RuleResult, apply_rules, to_problem
from ctadesk.engine.table.microdata import tabulate
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.apriori import apply_apriori, read_apriori
from ctadesk.io.tauargus import STATUS_EMPTY, STATUS_PROTECTED, STATUS_SAFE, STATUS_UNSAFE, read_tab
from ctadesk.io.tauargus_batch import COST_FUNCTIONS, AprioriCommand, ReadTable, SafetyRule, SpecifyTable
from ctadesk.io.tauargus_microdata import read_asc


@dataclasses.dataclass(frozen=True)
class TableSource:
    """Everything the batch file says of one table (its number counts from 1)."""

    number: int
    specify: SpecifyTable
    data: Path
    metadata: Path
    microdata: bool
    rules: SafetyRule | None = None
    read: ReadTable | None = None
    apriori: tuple[AprioriCommand, ...] = ()

    def title(self) -> str:
        return f"table {self.number} ({' x '.join(self.specify.explanatory)} of {self.specify.response or 'frequency'})"


@dataclasses.dataclass(frozen=True, eq=False)
class BuiltTable:
    """A table ready to protect: its CTA problem, statuses and what its outputs need."""

    source: TableSource
    structure: TableStructure
    statistics: CellStatistics
    problem: CTAProblem
    decimals: int
    notes: tuple[str, ...]

    def status(self) -> np.ndarray:
        """S, U, P or E per cell, as the problem stands."""
        status = np.full(self.problem.n_cells, STATUS_SAFE, dtype="<U1")
        status[self.problem.fixed] = STATUS_PROTECTED
        status[self.statistics.freq == 0] = STATUS_EMPTY
        status[self.problem.sensitive] = STATUS_UNSAFE
        return status


def build_table(source: TableSource) -> BuiltTable:
    """The table ``source`` describes, its rules applied and its a-priori files read."""
    rules = batch_rules(source.rules.rules if source.rules is not None else ())
    notes = list(rules.notes)
    if source.microdata:
        structure, stats, problem, decimals = _from_microdata(source, rules, notes)
    else:
        structure, stats, problem, decimals = _from_tab(source, rules, notes)
    for command in source.apriori:
        apriori = read_apriori(command.path, structure, command.separator, command.ignore_errors)
        if command.expand_trivial:
            notes.append(f"{command.path.name}: ctadesk keeps every level, so no trivial level is expanded")
        problem, applied = apply_apriori(problem, apriori, stats.freq == 0, rules.safety.manual_safety_range,
                                         command.ignore_errors)
        notes += applied
    return BuiltTable(source, structure, stats, problem, decimals, tuple(notes))


def _weights(source: TableSource, problem: CTAProblem, stats: CellStatistics, cost: np.ndarray | None,
             notes: list[str]) -> np.ndarray:
    """The cells' costs: a cost variable's totals, a cost function (-1 frequency, -2 unity,
    -3 distance, taken as unity: CTA moves no cell of a hierarchy more than another by distance),
    else the problem's own; raised to the power lambda when given."""
    specify = source.specify
    weights = problem.weights
    if specify.cost in COST_FUNCTIONS:
        function = COST_FUNCTIONS[specify.cost]
        weights = stats.freq.astype(float) if function == "frequency" else np.ones(problem.n_cells)
        if function == "distance":
            notes.append("cost -3 (distance) is a cost of secondary suppression; CTA takes unit costs")
    elif cost is not None:
        weights = np.abs(cost)
    if specify.cost_lambda is not None:
        weights = weights ** specify.cost_lambda
    return weights


def _from_microdata(source: TableSource, rules: BatchRules, notes: list[str]):
    specify = source.specify
    data = read_asc(source.data, source.metadata)
    table = data.table(list(specify.explanatory), specify.response, specify.shadow,
                       specify.cost if specify.cost not in COST_FUNCTIONS else None, weighted=rules.weighted)
    notes += table.notes
    k = max(rules.contributions_needed, 1)
    stats = tabulate(table.microdata, top_k=k, holding_top_k=k)
    if table.shadow is not None:
        shadow = tabulate(dataclasses.replace(table.microdata, response=table.shadow), top_k=k, holding_top_k=k)
        stats = dataclasses.replace(stats, top=shadow.top, top_weights=shadow.top_weights,
                                    holding_top=shadow.holding_top, shadow=shadow.values)
    cost = None
    if table.cost is not None:
        cost = tabulate(dataclasses.replace(table.microdata, response=table.cost, weight=None, holding=None,
                                            request=None), top_k=0).values
    result = apply_rules(stats, rules.safety)
    if rules.missing_safe:
        result = _safe_where(result, table.missing_cells())
    problem = to_problem(table.structure, stats, result, rules.safety, weights=TABULATED_WEIGHTS)
    problem = problem.replace(weights=_weights(source, problem, stats, cost, notes))
    decimals = int(data.variable(specify.response).option("DECIMALS", "0")) if specify.response else 0
    return table.structure, stats, problem, decimals


def _safe_where(result: RuleResult, mask: np.ndarray) -> RuleResult:
    """``result`` with the cells of ``mask`` safe (MIS(1): cells with a missing code)."""
    flags = np.where(mask, 0, result.flags)
    upper = np.where(mask, 0.0, result.upper_protection)
    lower = np.where(mask, 0.0, result.lower_protection)
    return RuleResult(flags=flags, upper_protection=upper, lower_protection=lower, empty=result.empty)


def _from_tab(source: TableSource, rules: BatchRules, notes: list[str]):
    specify = source.specify
    table = read_tab(source.data, source.metadata)
    names = [d.name for d in table.structure.dimensions]
    if [n.lower() for n in specify.explanatory] != [n.lower() for n in names]:
        raise CTAError(f"{source.title()}: a table read from {source.data.name} spans its metadata's variables "
                       f"{', '.join(names)}, in that order")
    notes += table.messages
    totals = source.read.totals if source.read is not None else 0
    if totals == 1:
        table, changed = table.make_additive()
        notes.append(f"READTABLE 1: {changed.size} total(s) computed from their parts")
    broken = table.non_additive()
    if broken and totals == 0:
        raise CTAError(f"{source.data.name}: the totals do not add up ({broken[0].label}: off by "
                       f"{broken[0].difference:g}); READTABLE 1 computes them from their parts")
    stats = table.statistics
    variable = next((v for v in table.metadata.variables if v.name.lower() == (specify.response or "").lower()), None)
    if variable is None or not variable.has("NUMERIC"):
        raise CTAError(f"{source.title()}: '{specify.response}' is not a numeric variable of "
                       f"{table.metadata.path.name}")
    cost_column = None
    if specify.cost and specify.cost not in COST_FUNCTIONS:
        column = {v.name.lower(): v.name for v in table.metadata.variables}.get(specify.cost.lower())
        if column is None:
            raise CTAError(f"{source.title()}: no cost variable '{specify.cost}' in {table.metadata.path.name}")
        cost_column = table.values if column == variable.name else _column(table, column)
    if rules.status_only:
        problem = table.problem(use_cost=False)
        bare = (problem.lower_protection <= 0) & (problem.upper_protection <= 0)
        if bare.any():
            level = np.abs(problem.values[problem.sensitive]) * rules.safety.manual_safety_range / 100.0
            problem = problem.replace(lower_protection=np.where(bare, level, problem.lower_protection),
                                      upper_protection=np.where(bare, level, problem.upper_protection))
        notes.append(f"statuses of {source.data.name} used: {problem.n_sensitive} unsafe cell(s)")
    else:
        result = apply_rules(stats, rules.safety)
        problem = to_problem(table.structure, stats, result, rules.safety, weights=TABULATED_WEIGHTS)
        problem = problem.replace(fixed=problem.fixed | (table.status == STATUS_PROTECTED))
    problem = problem.replace(weights=_weights(source, problem, stats, cost_column, notes))
    if broken:
        notes.append(f"READTABLE 2: {len(broken)} relation(s) that do not add up kept as they are")
        problem = problem.replace(rhs=problem.relations @ problem.values)
    return table.structure, stats, problem, int(variable.option("DECIMALS", "0"))


def _column(table, name: str) -> np.ndarray:
    """A numeric column of a .tab by its variable's name (the shadow, cost and level columns)."""
    for keyword, column in (("SHADOW", table.shadow), ("COSTVAR", table.cost)):
        variable = next((v for v in table.metadata.variables if v.has(keyword)), None)
        if variable is not None and variable.name == name and column is not None:
            return column
    raise CTAError(f"{table.path.name}: '{name}' is not a cost or shadow column ctadesk reads as a cost")
