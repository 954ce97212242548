"""What the registry says about a CTA method: the model it solves, its parameters, a label for
users and what it reports (issue 12; docs/developer-guide.md, adding a method).

A Method runs its ``function(problem, options, **parameters)`` on the problem restated in table
units, and its answer is judged by solvers/claims.py against the method's model, so every
method says only what it can stand by.

This module imports no numerical library: the registry names each method's function by a
Runner, imported at the method's first run, so that listing the methods (a command's --help,
the desktop app's menus) loads no solver.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import time
import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ctadesk.engine.errors import MethodError
from ctadesk.engine.model import Model

if TYPE_CHECKING:
    from ctadesk.engine.problem import CTAProblem
    from ctadesk.engine.result import CTAResult, SolveOptions

ParameterValue = bool | int | float
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A parameter of a method: a keyword argument of its function, with its default and range.

    The type is the default's (bool, int or float).  ``minimum``/``maximum`` bound it (the minimum
    excluded when ``above`` is set); ``length`` marks a length in the table's own units, which is
    restated with the table (the pseudo-Huber delta).
    """

    name: str
    label: str
    default: ParameterValue
    minimum: float | None = None
    maximum: float | None = None
    above: bool = False
    length: bool = False

    @property
    def kind(self) -> type:
        return type(self.default)

    def checked(self, value: object, method: str) -> ParameterValue:
        """``value`` (or its text) as this parameter's type, within its range; MethodError naming
        the method, the parameter and the range otherwise."""
        def refuse() -> MethodError:
            return MethodError(f"method '{method}': parameter '{self.name}' must be {self.describe_range()}, "
                               f"not {value!r}")

        if isinstance(value, str):
            value = self._parsed(value.strip(), refuse)
        if self.kind is bool:
            if not isinstance(value, bool):
                raise refuse()
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise refuse()
        if self.kind is int:
            if value != int(value):
                raise refuse()
            value = int(value)
        else:
            value = float(value)
        too_low = self.minimum is not None and (value <= self.minimum if self.above else value < self.minimum)
        if too_low or (self.maximum is not None and value > self.maximum):
            raise refuse()
        return value

    def _parsed(self, text: str, refuse: Callable[[], MethodError]) -> ParameterValue:
        if self.kind is bool:
            if text.lower() in _TRUE | _FALSE:
                return text.lower() in _TRUE
            raise refuse()
        try:
            return int(text) if self.kind is int else float(text)
        except ValueError:
            raise refuse() from None

    def describe_range(self) -> str:
        """The values this parameter takes, in words ("a whole number >= 1", "a number > 0")."""
        if self.kind is bool:
            return "true or false"
        words = ["a whole number" if self.kind is int else "a number"]
        if self.minimum is not None:
            words.append(f"{'>' if self.above else '>='} {self.minimum:g}")
        if self.maximum is not None:
            words.append(f"{'and ' if self.minimum is not None else ''}<= {self.maximum:g}")
        return " ".join(words)


@dataclasses.dataclass(frozen=True)
class Reports:
    """What a method reports besides its table.  Every method's result carries the certified lower
    bound of solvers/lower_bound.py and the gap to it (solvers/claims.py); a method with a
    ``solver_bound`` also has its solver's own bound on the optimum over all senses (the MILP's
    dual bound), during the solve and in the result.  ``progress_plot``: its progress reports
    carry incumbents (and, with a solver bound, bounds) worth a live plot."""

    solver_bound: bool = False
    progress_plot: bool = False


@dataclasses.dataclass(frozen=True)
class Runner:
    """A method's function named, not imported: ``path`` is 'module:function', imported when the
    runner is first called (methods/runners.py, loaded):

    fixed_senses  the function takes senses=...: the problem's free senses are completed first by
                  the ordering heuristic (runners.with_senses)
    exact         an exact method: a run without a verified table is rescued by the fixed-sense
                  LP (runners.exact)
    keywords      keyword arguments bound to the function, as pairs; a Runner among the values
                  stands for the function it names (the MILP's starts, the portfolio's heuristic)

    A runner pickles as its names, so it can be handed to a second process (senses/portfolio.py).
    """

    path: str
    fixed_senses: bool = False
    exact: bool = False
    keywords: tuple[tuple[str, Any], ...] = ()

    def load(self) -> Callable[..., Any]:
        """The function this runner names, imported and composed (once: runners.loaded)."""
        return importlib.import_module("ctadesk.engine.methods.runners").loaded(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)


@dataclasses.dataclass(frozen=True)
class Method:
    """A CTA method as the front ends offer it.

    name        the key users and project files know it by
    label       what a statistician reads in a list of methods
    model       the distance and the way of taking the senses (ctadesk.engine.model)
    summary     one sentence on how it solves the model, citing the paper
    function    function(problem, options, **parameters) -> CTAResult, in table units (in the
                registry a Runner: imported at the first run)
    parameters  its parameters, each a keyword argument of ``function``
    reports     what it reports besides its table
    """

    name: str
    label: str
    model: Model
    summary: str
    function: Callable[..., CTAResult]
    parameters: tuple[Parameter, ...] = ()
    reports: Reports = Reports()

    def parameter(self, name: str) -> Parameter:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        known = ", ".join(p.name for p in self.parameters) or "none"
        raise MethodError(f"method '{self.name}' has no parameter '{name}' (its parameters: {known})")

    def validated(self, values: Mapping[str, object]) -> Mapping[str, ParameterValue]:
        """Every parameter of this method: ``values`` checked, the defaults for the others."""
        for name in values:
            self.parameter(name)
        return types.MappingProxyType({p.name: p.checked(values[p.name], self.name) if p.name in values else p.default
                                       for p in self.parameters})

    def solve(self, problem: CTAProblem, options: SolveOptions | None = None) -> CTAResult:
        """Protect ``problem``: options.parameters checked and completed, the function run in table
        units, the answer's claims judged against this method's model (solvers/claims.py).

        timings["total"] is the whole call's wall-clock time, and timings["solve"] all of it that
        is not building or verifying: a method that falls back to another (network-l2 to
        clarabel, say) would otherwise report only the second solver's seconds."""
        # numpy and the solvers load with a method's first run
        from ctadesk.engine.result import SolveOptions
        from ctadesk.engine.solvers.claims import in_table_units

        started = time.perf_counter()
        options = SolveOptions() if options is None else options
        parameters = self.validated(options.parameters)
        if not (isinstance(options.parameters, types.MappingProxyType) and parameters == options.parameters):
            options = dataclasses.replace(options, parameters=parameters)   # (a copy: 4 of 400 us solved again)
        lengths = frozenset(p.name for p in self.parameters if p.length)
        result = in_table_units(self.model, self._run, lengths)(problem, options)
        total = time.perf_counter() - started
        timings = {**result.timings, "total": total}
        timings["solve"] = max(total - timings.get("build", 0.0) - timings.get("verify", 0.0), 0.0)
        return result.replace(method=self.name, timings=timings)

    def _run(self, problem: CTAProblem, options: SolveOptions) -> CTAResult:
        return self.function(problem, options, **options.parameters)


__all__ = ["Method", "Parameter", "ParameterValue", "Reports", "Runner"]
