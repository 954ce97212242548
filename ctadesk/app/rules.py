"""Safety-rule results as a project keeps and shows them: the names of the rules that flagged
each cell, how many cells each rule flagged, and the rules' settings for the project file."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ctadesk.engine.rules.safety import RULE_NAMES, RuleResult, SafetyRules


def rule_counts(result: RuleResult) -> dict[str, int]:
    """Cells flagged by each rule (a cell flagged by two rules counts for both), rules that flagged any."""
    flags = np.asarray(result.flags)
    counts = {name: int(np.count_nonzero(flags & int(rule))) for rule, name in RULE_NAMES.items()}
    return {name: count for name, count in counts.items() if count}


def flagged_names(result: RuleResult) -> np.ndarray:
    """Per cell, the names of the rules that flagged it ('dominance, p%'), '' where safe (object array)."""
    flags = np.asarray(result.flags)
    names = np.full(flags.size, "", dtype=object)
    for combination in np.unique(flags[flags != 0]):
        names[flags == combination] = ", ".join(name for rule, name in RULE_NAMES.items()
                                                if int(combination) & int(rule))
    return names


def rules_dict(rules: SafetyRules) -> dict[str, Any]:
    """SafetyRules as the project file keeps them."""
    return dataclasses.asdict(rules)
