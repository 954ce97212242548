"""The protection part of the certified lower bound alone, in one pass over the sensitive cells.

Every protected table moves each sensitive cell i by at least its protection level in a
direction its bounds allow (Castro & González 2011, (2e)), so sum_S w_i min-level_i is a lower
bound on every table's weighted-L1 cost.  solvers/lower_bound.py adds the relations' imbalances
and narrows the directions by bound propagation over the relations; on a million-cell table
that costs about half a second, as much as the fixed-sense network method's whole solve, for a
figure that method only reports (its own optimum is proven by its duals for the senses it was
given).  Methods that are not exact on large tables take this bound instead: on the 1000 x 1000
Cox-recipe table it is the whole bound's value (no relation keeps an imbalance once its thousand
cells can move; benchmarks/jj_read.py --solve prints the bound and gap), on small and 3-D tables,
where the imbalances count, it is weaker (a Cox 6 x 7 table: 1189 against 1723), never wrong.
"""

from __future__ import annotations

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.solvers.lower_bound import LowerBound, _own_rooms, _protection_part


def protection_bound(problem: CTAProblem) -> LowerBound:
    """sum w_i times the smallest protecting move of each sensitive cell i, by the cells' own
    bounds (module docstring)."""
    protection = _protection_part(problem, problem.effective_senses, *_own_rooms(problem))
    return LowerBound(protection, protection, 0.0, 0)


__all__ = ["protection_bound"]
