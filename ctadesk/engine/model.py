"""The CTA model a method solves, in the terms a statistician chooses it by: a distance and a way of
taking the senses (issue 12, "model, not algorithm, in front of the user").

Distance (Petrenko 2017, chapter 5): the weighted L1 distance sum w_i |x_i - a_i|
((5.10), Castro & González 2011 (2a)), least squares sum w_i (x_i - a_i)^2 (5.8), pseudo-Huber
sum w_i (sqrt((x_i - a_i)^2 + delta^2) - delta) (5.17), or L1 written as a second-order cone
program (5.18), whose optimum is the L1 optimum.

Senses (which side of its protection interval each sensitive cell takes): optimal (the exact MILP
chooses them, Castro & González 2011, model (2)), fixed before the solve (given, or the ordering heuristic's,
Cox 2005a, §5), searched by a heuristic (Cox 2005b), or fixed with soft protection (Castro & González 2011, §4).
"""

from __future__ import annotations

import dataclasses
import enum


class Distance(str, enum.Enum):
    """How the distance between the original and the adjusted table is measured."""

    L1 = "l1"
    L2 = "l2"
    HUBER = "huber"
    SOC = "soc"

    @property
    def objective_name(self) -> str:
        """What the model's objective measures, as a result's figures name it."""
        return {Distance.L2: "weighted sum of squares", Distance.HUBER: "pseudo-Huber distance"}.get(
            self, "weighted absolute change")


class Senses(str, enum.Enum):
    """How the senses of the sensitive cells are decided."""

    OPTIMAL = "optimal"        # chosen by the exact MILP with the table: proven optimal
    FIXED = "fixed"            # fixed before the solve: given, else the ordering heuristic's
    HEURISTIC = "heuristic"    # searched by a heuristic, each candidate a fixed-sense solve
    SOFT = "soft"              # fixed, with protection levels that may be missed at a price


@dataclasses.dataclass(frozen=True)
class Model:
    """A distance and a way of taking the senses."""

    distance: Distance
    senses: Senses

    @property
    def exact(self) -> bool:
        """Whether the method proves optimality (and infeasibility) over all senses."""
        return self.senses is Senses.OPTIMAL

    @property
    def l1_objective(self) -> bool:
        """Whether the model's own objective is the weighted L1 distance (SOC is L1 in cone form)."""
        return self.distance in (Distance.L1, Distance.SOC)

    @property
    def quadratic(self) -> bool:
        """Whether the model's objective is quadratic in the table's unit."""
        return self.distance is Distance.L2


__all__ = ["Distance", "Model", "Senses"]
