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
(tau-argus manual §5.7).  The intruders n of the p% and (p,q) rules are the engine's
(SafetyRules.intruders), one number per level: when two P rules of one level name different n,
the larger is taken for both and the log says so.
"""

from __future__ import annotations

import dataclasses

from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.io.tauargus_batch import Rule


@dataclasses.dataclass(frozen=True)
class BatchRules:
    """A table's rules: ctadesk's SafetyRules and tau-argus's table switches."""

    safety: SafetyRules
    weighted: bool
    missing_safe: bool
    status_only: bool
    notes: tuple[str, ...]

    @property
    def contributions_needed(self) -> int:
        """How many largest contributions per cell the rules read."""
        return max(self.safety.contributions_needed(), self.safety.contributions_needed(holding=True))


def batch_rules(rules: tuple[Rule, ...]) -> BatchRules:
    """Map a <SAFETYRULE> line's rules (module docstring).  No rule but MAN: the table's own
    statuses are used (tau-argus's "use status only")."""
    settings: dict[str, object] = {}
    lists: dict[str, list] = {key: [] for key in ("dominance", "p_percent", "pq", "holding_dominance",
                                                  "holding_p_percent", "holding_pq")}
    intruders: dict[str, set[int]] = {"": set(), "holding_": set()}
    notes: list[str] = []
    weighted = missing_safe = False
    prefix = lambda rule: "holding_" if rule.holding else ""  # noqa: E731
    for rule in rules:
        numbers = rule.numbers
        if rule.name == "P" and numbers[0] > 0:
            p = numbers[0]
            q = numbers[1] if len(numbers) == 3 else 100.0
            intruders[prefix(rule)].add(int(numbers[-1]) if len(numbers) > 1 else 1)
            if q < 100:
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
    for level, found in intruders.items():
        settings[level + "intruders"] = max(found, default=1)
        if len(found) > 1:
            notes.append(f"P rules{' at holding level' if level else ''} with {' and '.join(map(str, sorted(found)))} "
                         f"intruders: ctadesk takes one number per level, {max(found)}, for all of them")
    status_only = all(rule.name in ("MAN", "WGT", "MIS") for rule in rules)
    safety = SafetyRules(**settings, **{key: tuple(value) for key, value in lists.items()},  # type: ignore[arg-type]
                         apply_weights=weighted)
    return BatchRules(safety, weighted, missing_safe, status_only, tuple(notes))

