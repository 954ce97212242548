"""First stage of on-line CTA, part (i) (Castro & González 2011 §4): the parameters of a requested
table's CTA model.  Rules that depend only on a cell's contributors make a cell sensitive in every
table or in none, with the same protection levels (consistency on input); the levels are widened
by the cell's secret factors (ctadesk.engine.online.widening), so they too are the same in every
table, and bounds are the data set's, never the table's."""

from __future__ import annotations

from collections.abc import Sequence

from ctadesk.engine.online.widening import off_rule_shares, rule_shares, widened_for_keys
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.precision import grid_safe
from ctadesk.engine.rules.safety import SafetyRules, apply_rules, to_problem
from ctadesk.engine.table.microdata import Microdata, tabulate


def table_problem(microdata: Microdata, rules: SafetyRules, keys: Sequence[str], secret: str, decimals: int,
                  nonnegative: bool, weights: str = "unit") -> CTAProblem:
    """The CTA problem (Castro & González 2011, model (1)) of the table ``microdata`` spans (its
    cells' keys ``keys``, the same in every table): sensitive cells and levels from ``rules``,
    the levels widened by the ``secret`` factors of each cell's key and moved out to the grid of
    10^-decimals (ctadesk.engine.publish.precision.grid_safe), never at exactly the value times
    1 +/- a rule's share (off_rule_shares); cells bounded below by 0 when ``nonnegative`` (a
    property of the data set, not of the table); ``weights`` as in to_problem."""
    stats = tabulate(microdata, top_k=max(rules.contributions_needed(), 2),
                     holding_top_k=max(rules.contributions_needed(holding=True), 2))
    problem = to_problem(microdata.structure, stats, apply_rules(stats, rules), rules, nonnegative=nonnegative,
                         weights=weights)
    widened = widened_for_keys(problem, [keys[i] for i in problem.sensitive], secret)
    return off_rule_shares(grid_safe(widened, decimals), rule_shares(rules), decimals)
