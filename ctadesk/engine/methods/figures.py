"""The figures a result claims, each named for what it measures.

A method whose model measures change otherwise than by the weighted absolute change (least
squares (5.8), pseudo-Huber (5.17); Petrenko 2017) is "optimal" for its own
objective, while a result's bound and gap are always on the weighted absolute change
(solvers/claims.py).  Printed side by side unnamed -- "l2: optimal, objective 20.6857, bound 8
(gap 61.3 %)" -- the two claims read as one that contradicts itself; here the model's objective
is named and the bound and gap are attached to the absolute change they are about.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctadesk.engine.methods.registry import METHODS

if TYPE_CHECKING:
    from ctadesk.engine.result import CTAResult


def _plain(value: float) -> str:
    return f"{value:.6g}"


def figures(result: CTAResult, number: Callable[[float], str] = _plain) -> str:
    """"objective 20, bound 20 (gap 0 %)" for the weighted-L1 models; "weighted sum of squares
    59.7 (the model's objective), absolute change 20.7 (bound 8, gap 61.3 %)" for the others (without
    the model's objective where the result has none: a table rounded after the solve)."""
    gap = None if result.gap is None else f"gap {100 * result.gap:.3g} %"
    bound = None if result.bound is None else f"bound {number(result.bound)}"
    method = METHODS.get(result.method)
    if method is None or method.model.l1_objective:
        return f"objective {number(result.objective)}" + (f", {bound}" if bound else "") + (f" ({gap})" if gap else "")
    on_change = ", ".join(part for part in (bound, gap) if part)
    change = f"absolute change {number(result.objective)}" + (f" ({on_change})" if on_change else "")
    if not math.isfinite(result.model_objective):       # e.g. a table rounded after the solve
        return change
    return f"{method.model.distance.objective_name} {number(result.model_objective)} (the model's objective), {change}"


__all__ = ["figures"]
