"""CTA solvers: each takes a CTAProblem (and, for a fixed-sense model, the senses) and returns a
verified CTAResult.  The methods a user chooses, their parameters and their claims are composed
from these in ctadesk.engine.methods; solvers know nothing of how senses are chosen.

solve_milp        exact weighted L1, Castro & González (2011) model (2)      (HiGHS)
solve_lp          fixed-sense L1, Petrenko (2017) model (5.10)               (HiGHS IPM, crossover)
solve_l2          fixed-sense L2 QP, model (5.8)                             (clarabel)
solve_soc         fixed-sense L1 as a second-order cone program, (5.18)      (clarabel)
solve_huber       fixed-sense pseudo-Huber as a cone program, (5.17)         (clarabel)
solve_network_l1  fixed-sense L1 of a 2-D/1H2D table as a network flow LP    (LEMON + sifting)
solve_network_l2  fixed-sense L2 of a 2-D/1H2D table by a dual Newton method
solve_soft_lp     fixed-sense L1 with penalised protection slack (Castro & González 2011, §4)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the public names, re-exported (``import x as x``); loaded by __getattr__ at run time
    from ctadesk.engine.solvers.conic import solve_huber as solve_huber
    from ctadesk.engine.solvers.conic import solve_l2 as solve_l2
    from ctadesk.engine.solvers.conic import solve_soc as solve_soc
    from ctadesk.engine.solvers.finish import cells_changed as cells_changed
    from ctadesk.engine.solvers.lp import solve_lp as solve_lp
    from ctadesk.engine.solvers.milp import solve_milp as solve_milp
    from ctadesk.engine.solvers.network_l1 import solve_network_l1 as solve_network_l1
    from ctadesk.engine.solvers.newton_l2 import solve_network_l2 as solve_network_l2
    from ctadesk.engine.solvers.soft import solve_soft_lp as solve_soft_lp

#: each public name and the module that defines it, imported on first use (PEP 562 module
#: ``__getattr__``): a module of this package loads its own solver's libraries only (HiGHS for
#: the MILP, clarabel for the cone programs)
_HOMES = {
    "cells_changed": "finish", "solve_huber": "conic", "solve_l2": "conic", "solve_soc": "conic",
    "solve_lp": "lp", "solve_milp": "milp", "solve_network_l1": "network_l1", "solve_network_l2": "newton_l2",
    "solve_soft_lp": "soft",
}


def __getattr__(name: str) -> object:
    try:
        home = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = sorted(_HOMES)
