"""The CTA methods ctadesk offers: one registry above the solvers and the sense heuristics.

    from ctadesk.engine.methods import METHODS, solve
    result = solve(problem, "bcd", SolveOptions(time_limit=60, parameters={"block_size": 80}))

METHODS maps each name to its Method (methods/spec.py): label, model (distance and senses,
ctadesk.engine.model), parameters with defaults and ranges, and what it reports.
choose_method (methods/choose.py) names the method for a model, says why and gives its parameters.

The registry, the Method and the functions below load no numerical library; choose_method and
Choice are imported on first use (PEP 562 module ``__getattr__``), and each method's solvers at
its first run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ctadesk.engine.errors import MethodError
from ctadesk.engine.methods.registry import AUTO, METHODS
from ctadesk.engine.methods.spec import Method, Parameter, ParameterValue, Reports

if TYPE_CHECKING:
    from ctadesk.engine.methods.choose import Choice, choose_method
    from ctadesk.engine.problem import CTAProblem
    from ctadesk.engine.result import CTAResult, SolveOptions


def __getattr__(name: str) -> object:
    if name not in ("Choice", "choose_method"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.choose"), name)
    globals()[name] = value
    return value


def method(name: str) -> Method:
    """The registry entry of ``name``; MethodError naming the known methods otherwise."""
    try:
        return METHODS[name]
    except KeyError:
        raise MethodError(f"unknown method '{name}'; choose one of {', '.join(METHODS)}") from None


def solve(problem: CTAProblem, name: str = "milp", options: SolveOptions | None = None) -> CTAResult:
    """Protect ``problem`` with the method ``name``; options.parameters are its parameters (None:
    the defaults)."""
    return method(name).solve(problem, options)


__all__ = ["AUTO", "METHODS", "Choice", "Method", "Parameter", "ParameterValue", "Reports", "choose_method", "method",
           "solve"]
