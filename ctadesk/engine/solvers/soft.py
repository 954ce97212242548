"""Fixed-sense L1 CTA with soft relations and soft protection (Castro & González 2011, §4, "reliability").

The two-stage method for on-line tables fixes the senses first; some sense
choices leave no table, so the second stage lets relations and, ultimately,
protection levels be violated at a price: A (z+ - z-) + r+ - r- = d with
penalty RELATION_PENALTY x max w on r (by default), and z+_i + p_i >= upl_i (up) or
z-_i + p_i >= lpl_i (down) with PROTECTION_PENALTY x max w on p.  Cells stay
within their bounds and never cross to the other side of their sense (the
columns are clipped to their bounds: the interior point method's tolerance
once put an up cell 1.4e-5 below its value).  A table always comes back;
when a slack is used the verifier says which relation or cell is off and the
status is NOT_PROTECTED.

The priced slack is the last resort, not the first: the fixed-sense L1 LP of the
same senses (5.10) is solved first, within half of the time, and its table is the
answer wherever those senses admit one (the penalised LP, solved by the interior
point method, had returned slack of the solver's tolerance, a failed solve or a
costlier table on such tables).
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.settings import PROTECTION_PENALTY, RELATION_PENALTY
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.solvers.highs import ColumnMatrix, LinearModel, solve_model
from ctadesk.engine.solvers.lp import deviation_bounds, fixed_senses, solve_lp

METHOD = "soft-lp"


def solve_soft_lp(problem: CTAProblem, options: SolveOptions = SolveOptions(), senses: np.ndarray | None = None,
                  relation_penalty: float = RELATION_PENALTY,
                  protection_penalty: float = PROTECTION_PENALTY) -> CTAResult:
    """The closest table for fixed senses, violating relations or protection only when it must;
    a unit of relation (protection) slack costs ``relation_penalty`` (``protection_penalty``) times
    the largest weight."""
    started = time.perf_counter()
    options = options.begun()
    senses, origin = fixed_senses(problem, senses)
    exact = solve_lp(problem, options.within(options.started_budget.child(fraction=0.5)), senses, explain=False)
    if exact.protected:
        return exact.replace(method=METHOD, info={**exact.info, "relation_slack": 0.0, "protection_slack": 0.0,
                                                  "exact": "its senses admit a table: no slack used"})
    n, m, s = problem.n_cells, problem.n_relations, problem.n_sensitive
    lower_z, upper_z = deviation_bounds(problem)
    A = sp.csc_array(problem.relations)
    identity = sp.identity(m, format="csc")
    up = senses == SENSE_UP
    k = np.arange(s)
    cells = problem.sensitive
    # protection rows: z+_i + p_k >= upl_k (up) or z-_i + p_k >= lpl_k (down)
    protect = sp.csc_array((np.ones(2 * s), (np.concatenate([k, k]),
                            np.concatenate([np.where(up, cells, n + cells), 2 * n + 2 * m + k]))),
                           shape=(s, 2 * n + 2 * m + s))
    relations = sp.hstack([A, -A, identity, -identity, sp.csc_array((m, s))], format="csc")
    matrix = sp.csc_array(sp.vstack([relations, protect], format="csc"))
    matrix.sort_indices()
    col_upper = np.concatenate([upper_z, -lower_z, np.full(2 * m, np.inf), np.full(s, np.inf)])
    col_upper[cells[up] + n] = 0.0                  # an up cell does not go down, and vice versa
    col_upper[cells[~up]] = 0.0
    scale = max(float(problem.weights.max(initial=1.0)), 1.0)
    cost = np.concatenate([problem.weights, problem.weights, np.full(2 * m, relation_penalty * scale),
                           np.full(s, protection_penalty * scale)])
    rhs = problem.deviation_rhs
    level = np.where(up, problem.upper_protection, problem.lower_protection)
    model = LinearModel(cost, np.zeros(cost.size), col_upper,
                        ColumnMatrix.from_csc(matrix),
                        np.concatenate([rhs, level]), np.concatenate([rhs, np.full(s, np.inf)]))
    build_seconds = time.perf_counter() - started
    outcome = solve_model(model, options, {"solver": "ipm"})
    values = None
    info: dict = {"senses_from": origin}
    message = ""
    if outcome.values is not None:
        x = np.clip(outcome.values, 0.0, col_upper)     # within the bounds exactly: the solver's tolerance
        values = np.clip(problem.values + x[:n] - x[n:2 * n], problem.lower, problem.upper)  # crosses no sense
        relation_slack = x[2 * n:2 * n + m] + x[2 * n + m:2 * n + 2 * m]
        protection_slack = x[2 * n + 2 * m:]
        info.update(relation_slack=float(relation_slack.sum()), protection_slack=float(protection_slack.sum()))
        tolerance = 1e-7 * max(1.0, float(np.abs(problem.values).max(initial=1.0)))
        if relation_slack.max(initial=0.0) > tolerance or protection_slack.max(initial=0.0) > tolerance:
            message = (f"senses admit no exact table: {int((relation_slack > tolerance).sum())} relations and "
                       f"{int((protection_slack > tolerance).sum())} protection levels relaxed")
    return finish(problem, METHOD, outcome.status, values, started=started, build_seconds=build_seconds,
                  solve_seconds=outcome.seconds, senses=senses, message=message,
                  model_objective=outcome.objective, log=outcome.log, info=info)
