"""A toy CTA method for the registry tests: it returns the original table unchanged and claims it
optimal at distance 0.  Its claims are not to be believed -- the original table leaves every
sensitive cell at its value -- so it shows that the engine judges a method's answer (solvers/claims.py,
the verification) rather than taking it at its word.

It is registered by one Method entry (``TOY``, by the ``toy_method`` fixture) and run by one
function (``solve_toy``); nothing else in ctadesk is told about it."""

from __future__ import annotations

import pytest

from ctadesk.engine.methods import METHODS, Method
from ctadesk.engine.methods.registry import FIXED_L1
from ctadesk.engine.methods.spec import Runner
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status

TOY = Method("toy", "Toy (the original table)", FIXED_L1,
             "returns the table it is given, claiming it optimal: a test of the registry and the claims",
             Runner("tests.engine.methods.toy_method:solve_toy"))


def solve_toy(problem: CTAProblem, options: SolveOptions) -> CTAResult:
    """The original table, claimed optimal at distance 0."""
    return CTAResult(method="toy", status=Status.OPTIMAL, message="the original table", values=problem.values.copy(),
                     objective=0.0)


@pytest.fixture
def toy_method(monkeypatch: pytest.MonkeyPatch) -> Method:
    """The toy method, registered for one test: one entry in the registry."""
    monkeypatch.setitem(METHODS, TOY.name, TOY)
    return TOY
