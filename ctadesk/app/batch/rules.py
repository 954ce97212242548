"""tau-argus's <SAFETYRULE> rules as ctadesk's safety rules (ctadesk.engine.rules.safety).

    P(p[, n])      p% rule with n intruders (default 1): unsafe when X - x_1 - ... - x_(n+1) < p/100 x_1
    P(p, q, n)     (p,q) prior-posterior rule with n intruders
    NK(n, k)       (n,k)-dominance;  NK(0,0) and P(0,...) are rules switched off
    FREQ(n, r)     minimum frequency n, frequency safety range r %
    ZERO(r)        zero cells unsafe, zero safety range r
    REQ(p1, p2, m, r)   request rule; m (its minimum frequency) is not used by ctadesk (noted)
    MAN(r)         manual safety range r % (cells made unsafe by status or a-priori file)
    WGT(0|1)       apply the sampling weights;  MIS(0|1) cells with a missing code always safe

The third and fourth P and NK rules, the second FREQ and REQ rule, are holding-level rules
(tau-argus manual §5.7).  ctadesk's p% and (p,q) rules take one intruder, the second largest
contributor (Hundepool et al. 2012 §4.2.2); a rule with n > 1 intruders -- the n largest
contributors after the first pool their knowledge -- is applied here on top of them
(``coalition_rules``), its level p/100 x_1 - (X - x_1 - ... - x_(n+1)) taken where it is larger.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.rules.safety import ROUNDING_RTOL, Rule as RuleBit, RuleResult, SafetyRules
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.io.tauargus_batch import Rule


@dataclasses.dataclass(frozen=True)
class BatchRules:
    """A table's rules: ctadesk's SafetyRules, the p% rules with more than one intruder
    (p, q, n, holding), and tau-argus's table switches."""

    safety: SafetyRules
    coalitions: tuple[tuple[float, float, int, bool], ...]
    weighted: bool
    missing_safe: bool
    status_only: bool
    notes: tuple[str, ...]

    @property
    def contributions_needed(self) -> int:
        """How many largest contributions per cell the rules read."""
        return max([self.safety.contributions_needed(), self.safety.contributions_needed(holding=True),
                    *(n + 1 for _, _, n, _ in self.coalitions)])


def batch_rules(rules: tuple[Rule, ...]) -> BatchRules:
    """Map a <SAFETYRULE> line's rules (module docstring).  No rule but MAN: the table's own
    statuses are used (tau-argus's "use status only")."""
    settings: dict[str, object] = {}
    lists: dict[str, list] = {key: [] for key in ("dominance", "p_percent", "pq", "holding_dominance",
                                                  "holding_p_percent", "holding_pq")}
    coalitions: list[tuple[float, float, int, bool]] = []
    notes: list[str] = []
    weighted = missing_safe = False
    prefix = lambda rule: "holding_" if rule.holding else ""  # noqa: E731
    for rule in rules:
        numbers = rule.numbers
        if rule.name == "P" and numbers[0] > 0:
            p = numbers[0]
            q = numbers[1] if len(numbers) == 3 else 100.0
            n = int(numbers[-1]) if len(numbers) > 1 else 1
            if n > 1:
                coalitions.append((p, q, n, rule.holding))
            elif q < 100:
                lists[prefix(rule) + "pq"].append((p, q))
            else:
                lists[prefix(rule) + "p_percent"].append(p)
        elif rule.name == "NK" and numbers[0] > 0:
            lists[prefix(rule) + "dominance"].append((numbers[0], numbers[1]))
        elif rule.name == "FREQ" and numbers[0] > 0:
            settings[prefix(rule) + "min_frequency"] = int(numbers[0])
            settings[prefix(rule) + "frequency_safety_range"] = numbers[1]
        elif rule.name == "ZERO":
            settings.update(zero_unsafe=True, zero_safety_range=numbers[0])
        elif rule.name == "REQ" and not rule.holding:
            settings.update(request_percent=(numbers[0], numbers[1]), request_safety_range=numbers[3])
            if numbers[2] > 0:
                notes.append(f"REQ: its minimum frequency {numbers[2]:g} is not used; the request rule applies "
                             "to every cell with contributors")
        elif rule.name == "REQ":
            notes.append("REQ at holding level: ctadesk's request rule reads individual contributions only")
        elif rule.name == "MAN":
            settings["manual_safety_range"] = numbers[0]
        elif rule.name == "WGT":
            weighted = numbers[0] == 1
        elif rule.name == "MIS":
            missing_safe = numbers[0] == 1
    status_only = all(rule.name in ("MAN", "WGT", "MIS") for rule in rules)
    safety = SafetyRules(**settings, **{key: tuple(value) for key, value in lists.items()},  # type: ignore[arg-type]
                         apply_weights=weighted)
    return BatchRules(safety, tuple(coalitions), weighted, missing_safe, status_only, tuple(notes))


def coalition_rules(stats: CellStatistics, rules: BatchRules, result: RuleResult) -> RuleResult:
    """``result`` with the p% and (p,q) rules of n > 1 intruders applied: a cell they flag is
    unsafe by the p% (or (p,q)) rule and gets their level where it is larger than its own."""
    if not rules.coalitions:
        return result
    flags = result.flags.copy()
    upper = result.upper_protection.copy()
    lower = result.lower_protection.copy()
    for p, q, n, holding in rules.coalitions:
        weighted = rules.weighted and not holding and stats.has_weights
        total = stats.rule_total(weighted)
        level = (p / q) * stats.largest(1, weighted, holding) - (total - stats.largest_sum(n + 1, weighted, holding))
        if stats.shadow is not None:
            level = np.where(total > 0, level * np.abs(stats.total(weighted)) / np.where(total > 0, total, 1), 0)
        unsafe = (total > 0) & (level > ROUNDING_RTOL * np.abs(total))
        bit = (RuleBit.HOLDING_PQ if q < 100 else RuleBit.HOLDING_P_PERCENT) if holding else (
            RuleBit.PQ if q < 100 else RuleBit.P_PERCENT)
        flags[unsafe] |= int(bit)
        upper[unsafe] = np.maximum(upper[unsafe], level[unsafe])
        lower[unsafe] = np.maximum(lower[unsafe], rules.safety.lower_ratio * level[unsafe])
    for array in (flags, upper, lower):
        array.flags.writeable = False
    return RuleResult(flags=flags, upper_protection=upper, lower_protection=lower, empty=result.empty)
