"""Primary safety rules, protection levels, and the CTA problem they define.

Rules (Petrenko 2017, Table 3.1; Hundepool et al. 2012 §4.2): a cell is unsafe when
* minimum frequency: 0 < n_records < n (with sampling weights: the sum of the
  weights < n, as tau-argus does);
* (n,k)-dominance: x_1 + ... + x_n > (k/100) X;
* p%-rule: X - x_1 - x_2 < (p/100) x_1;
* (p,q)-rule: X - x_1 - x_2 < (p/q) x_1;
  with n intruders (tau-argus's P(p, n): the n largest contributors after the first pool
  what they know) X - x_1 - ... - x_(n+1) < (p/100) x_1, and likewise for (p,q);
* zero cells (optional): contributors but X = 0;
* request rule (optional): a contributor that asked for protection (request
  code 1 or 2) has a contribution above p_1% (resp. p_2%) of X;
* manual: cells the user names;
and the same frequency/dominance/p%/(p,q) rules at holding level, where the
contributions of one holding are summed first.  Concentration rules apply to
cells with X > 0 (tau-argus divides by X; by S below); they see the weighted
contributions of ctadesk.engine.table.statistics when the table has sampling weights.

With a shadow variable (a tau-argus table's `<SHADOW>`, manual §4.4.4) the
dominance, p% and (p,q) rules, cell and holding level, read the shadow's total
S instead of X (CellStatistics.rule_total).

Upper protection levels (Petrenko 2017, Table 3.2): (n,k): (100/k)(x_1+...+x_n) - X;
p%: (p/100) x_1 - (X - x_1 - x_2); (p,q): (p/q) x_1 - (X - x_1 - x_2) (n intruders:
X - x_1 - ... - x_(n+1) in brackets); with a
shadow these are computed on S and given in terms of the response as tau-argus
does (libtauargus CTable::SetProtectionLevelCell): level * |X| / S.  Frequency,
request and manual cells get their safety range (a percentage of |X|); zero
cells get the zero safety range above and nothing below (as in tau-argus).

A cell several rules flag gets, by default, the level tau-argus gives it
(libtauargus CTable::SetProtectionLevelCell): rules are taken in tau-argus's
order (CTable::ComputeCellSafeCode) -- dominance and p%/(p,q), request,
frequency, zero, manual -- and the first that asks for a level > 0 sets it, so
the frequency safety range counts only where the concentration rules' level is 0.  With
``level_combination="largest"`` the cell gets the largest of all the levels
instead.  Lower levels equal upper ones unless ``lower_ratio`` says otherwise.

The inequalities are strict, as the rules are written: a cell exactly at a rule's threshold in its
decimal data is safe, though the sums in floating point may miss the threshold by a rounding
(ROUNDING_RTOL).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.weights import inverse_weights, unit_weights
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import TableStructure


class Rule(enum.IntFlag):
    """Which rule(s) flagged a cell; a cell's status is a combination of these."""

    FREQUENCY = 1
    DOMINANCE = 2
    P_PERCENT = 4
    PQ = 8
    ZERO = 16
    REQUEST = 32
    MANUAL = 64
    HOLDING_FREQUENCY = 128
    HOLDING_DOMINANCE = 256
    HOLDING_P_PERCENT = 512
    HOLDING_PQ = 1024


RULE_NAMES = {
    Rule.FREQUENCY: "frequency", Rule.DOMINANCE: "dominance", Rule.P_PERCENT: "p%",
    Rule.PQ: "pq", Rule.ZERO: "zero", Rule.REQUEST: "request", Rule.MANUAL: "manual",
    Rule.HOLDING_FREQUENCY: "holding frequency", Rule.HOLDING_DOMINANCE: "holding dominance",
    Rule.HOLDING_P_PERCENT: "holding p%", Rule.HOLDING_PQ: "holding pq",
}


#: a rule's margin below this share of the cell total (of the minimum frequency) is the rounding of
#: its sums, not a breach: contributions 126, 20.8, 9.7, 2.9 leave 9.7 + 2.9 = 10 % of 126 exactly,
#: safe under the 10 % rule, but the sums in floating point left it 3.6e-14 short and flagged the cell
ROUNDING_RTOL = 1e-12

#: how the levels of the rules that flag one cell combine: tau-argus's order, or the largest
LEVEL_COMBINATIONS = ("tau-argus", "largest")


def _pairs(name: str, value: Sequence) -> tuple[tuple[float, float], ...]:
    pairs = tuple((float(a), float(b)) for a, b in value)
    if len(pairs) > 2:
        raise ProblemError(f"at most two {name} rules at once, got {len(pairs)}")
    return pairs


@dataclasses.dataclass(frozen=True)
class SafetyRules:
    """An office's primary safety rules (all off by default).

    min_frequency            cell unsafe when 0 < contributors < this (0: off)
    frequency_safety_range   protection of frequency-unsafe cells, % of |X|
    dominance                up to two (n, k) pairs, k in percent
    p_percent                up to two p values (percent)
    pq                       up to two (p, q) pairs
    intruders                the p% and (p,q) rules' intruders: the largest contributors after
                             the first who pool their knowledge (1: the second largest alone)
    holding_*                the same rules on holding-level contributions
    zero_unsafe              cells with contributors and X = 0 are unsafe
    zero_safety_range        their upper protection (absolute; lower is 0)
    request_percent          (p1, p2): request rule for request codes 1 and 2 (None: off)
    request_safety_range     protection of request-unsafe cells, % of |X|
    manual_safety_range      protection of manually unsafe cells, % of |X|
    apply_weights            use sampling weights in the rules when the table has them
    lower_ratio              lower protection = lower_ratio * upper (1: symmetric)
    level_combination        a cell several rules flag: "tau-argus" (the first rule in
                             tau-argus's order with a level > 0) or "largest" (module docstring)
    """

    min_frequency: int = 0
    frequency_safety_range: float = 0.0
    dominance: tuple[tuple[float, float], ...] = ()
    p_percent: tuple[float, ...] = ()
    pq: tuple[tuple[float, float], ...] = ()
    holding_min_frequency: int = 0
    holding_frequency_safety_range: float = 0.0
    holding_dominance: tuple[tuple[float, float], ...] = ()
    holding_p_percent: tuple[float, ...] = ()
    holding_pq: tuple[tuple[float, float], ...] = ()
    intruders: int = 1
    holding_intruders: int = 1
    zero_unsafe: bool = False
    zero_safety_range: float = 0.0
    request_percent: tuple[float, float] | None = None
    request_safety_range: float = 0.0
    manual_safety_range: float = 0.0
    apply_weights: bool = True
    lower_ratio: float = 1.0
    level_combination: str = "tau-argus"

    def __post_init__(self) -> None:
        for name in ("dominance", "pq", "holding_dominance", "holding_pq"):
            object.__setattr__(self, name, _pairs(name, getattr(self, name)))
        for name in ("p_percent", "holding_p_percent"):
            values = tuple(float(p) for p in getattr(self, name))
            if len(values) > 2:
                raise ProblemError(f"at most two {name} rules at once, got {len(values)}")
            if any(p <= 0 for p in values):
                raise ProblemError(f"{name}: p must be > 0")
            object.__setattr__(self, name, values)
        for n, k in self.dominance + self.holding_dominance:
            if n < 1 or n != int(n) or not 0 < k <= 100:
                raise ProblemError(f"dominance rule ({n:g}, {k:g}): n must be a whole number >= 1 and 0 < k <= 100")
        for name in ("intruders", "holding_intruders"):
            if getattr(self, name) < 1 or getattr(self, name) != int(getattr(self, name)):
                raise ProblemError(f"{name} {getattr(self, name)}: it must be a whole number >= 1")
        for p, q in self.pq + self.holding_pq:
            if not 0 < p < q <= 100:
                raise ProblemError(f"(p,q)-rule ({p:g}, {q:g}): need 0 < p < q <= 100")
        for name in ("frequency_safety_range", "holding_frequency_safety_range", "zero_safety_range",
                     "request_safety_range", "manual_safety_range", "lower_ratio"):
            if getattr(self, name) < 0:
                raise ProblemError(f"{name} must be >= 0")
        if self.level_combination not in LEVEL_COMBINATIONS:
            raise ProblemError(f"unknown level combination '{self.level_combination}' "
                               f"(use {' or '.join(LEVEL_COMBINATIONS)})")

    def contributions_needed(self, holding: bool = False) -> int:
        """How many largest contributions per cell the rules read (the k of tabulate)."""
        dominance = self.holding_dominance if holding else self.dominance
        needs = [int(n) for n, _ in dominance]
        if (self.holding_p_percent or self.holding_pq) if holding else (self.p_percent or self.pq):
            needs.append((self.holding_intruders if holding else self.intruders) + 1)
        return max(needs, default=0)


@dataclasses.dataclass(frozen=True, eq=False)
class RuleResult:
    """Per cell: the rules that flagged it (Rule bits, 0 = safe) and its protection levels."""

    flags: np.ndarray
    upper_protection: np.ndarray
    lower_protection: np.ndarray
    empty: np.ndarray

    @property
    def sensitive(self) -> np.ndarray:
        return np.flatnonzero(self.flags != 0)

    def rule_names(self, i: int) -> list[str]:
        flags = Rule(int(self.flags[i]))
        return [name for rule, name in RULE_NAMES.items() if rule in flags]

    def status(self, i: int) -> str:
        """'empty', 'safe' or the rules that flagged the cell, e.g. 'unsafe: dominance, p%'."""
        if self.flags[i]:
            return "unsafe: " + ", ".join(self.rule_names(i))
        return "empty" if self.empty[i] else "safe"


@dataclasses.dataclass(frozen=True, eq=False)
class _Group:
    """What one group of rules asks of every cell: the Rule bits that flagged it and the
    largest upper level among them (0 where none flagged it)."""

    flags: np.ndarray
    upper: np.ndarray

    @classmethod
    def none(cls, n: int) -> _Group:
        return cls(np.zeros(n, np.int64), np.zeros(n))

    def flag(self, unsafe: np.ndarray, bit: Rule, level: np.ndarray | float) -> None:
        """Flag the `unsafe` cells with `bit`; each keeps the larger of its level and `level`."""
        self.flags[unsafe] |= int(bit)
        self.upper[unsafe] = np.maximum(self.upper[unsafe], np.broadcast_to(level, self.upper.shape)[unsafe])


class _Groups(NamedTuple):
    """The groups of rules in tau-argus's order (libtauargus CTable::ComputeCellSafeCode)."""

    concentration: _Group
    request: _Group
    frequency: _Group
    zero: _Group
    manual: _Group


def _concentration(stats: CellStatistics, rules: SafetyRules, holding: bool, group: _Group) -> None:
    """Dominance, p% and (p,q) rules (Tables 3.1-3.2) on the rule total (X, or the shadow's
    total S), their levels in rule-total terms, into `group`."""
    weighted = rules.apply_weights and not holding
    total = stats.rule_total(weighted)
    positive = total > 0
    dominance = rules.holding_dominance if holding else rules.dominance
    percents = rules.holding_p_percent if holding else rules.p_percent
    pqs = rules.holding_pq if holding else rules.pq
    bits = ((Rule.HOLDING_DOMINANCE, Rule.HOLDING_P_PERCENT, Rule.HOLDING_PQ) if holding
            else (Rule.DOMINANCE, Rule.P_PERCENT, Rule.PQ))
    noise = ROUNDING_RTOL * np.abs(total)
    for n, k in dominance:
        largest = stats.largest_sum(int(n), weighted, holding)
        level = (100.0 / k) * largest - total
        group.flag(positive & (largest - (k / 100.0) * total > noise), bits[0], level)
    if percents or pqs:
        x1 = stats.largest(1, weighted, holding)
        intruders = rules.holding_intruders if holding else rules.intruders
        remainder = total - stats.largest_sum(intruders + 1, weighted, holding)
        for ratio, bit in [(p / 100.0, bits[1]) for p in percents] + [(p / q, bits[2]) for p, q in pqs]:
            level = ratio * x1 - remainder
            group.flag(positive & (level > noise), bit, level)


def _concentration_group(stats: CellStatistics, rules: SafetyRules, magnitude: np.ndarray) -> _Group:
    """Cell and holding concentration rules; with a shadow variable the levels, computed on
    S, are turned into the response's terms as tau-argus does: level * |X| / S
    (libtauargus CTable::SetProtectionLevelCell)."""
    group = _Group.none(stats.n_cells)
    _concentration(stats, rules, False, group)
    if stats.has_holdings:
        _concentration(stats, rules, True, group)
    elif rules.contributions_needed(holding=True):
        raise ProblemError("holding rules are set but the table has no holdings")
    if stats.shadow is None:
        return group
    flagged = group.flags != 0  # the shadow's total is > 0 there
    upper = np.zeros(stats.n_cells)
    upper[flagged] = group.upper[flagged] * magnitude[flagged] / stats.shadow[flagged]
    return _Group(group.flags, upper)


def _frequency_group(stats: CellStatistics, rules: SafetyRules, weighted: bool, magnitude: np.ndarray) -> _Group:
    """Minimum frequency of records (or of their weights) and of holdings; safety ranges in % of |X|."""
    group = _Group.none(stats.n_cells)
    if rules.min_frequency > 0:
        frequency = stats.frequency(weighted)
        short = rules.min_frequency - frequency > ROUNDING_RTOL * rules.min_frequency
        group.flag((stats.freq > 0) & short, Rule.FREQUENCY,
                   magnitude * rules.frequency_safety_range / 100.0)
    if rules.holding_min_frequency > 0:
        if not stats.has_holdings or stats.holding_freq is None:
            raise ProblemError("holding rules are set but the table has no holdings")
        unsafe = (stats.holding_freq > 0) & (stats.holding_freq < rules.holding_min_frequency)
        group.flag(unsafe, Rule.HOLDING_FREQUENCY, magnitude * rules.holding_frequency_safety_range / 100.0)
    return group


def _request_group(stats: CellStatistics, rules: SafetyRules, total: np.ndarray, magnitude: np.ndarray) -> _Group:
    """Request rule: a contributor that asked for protection holds more than p_1% (p_2%) of X."""
    group = _Group.none(stats.n_cells)
    if rules.request_percent is None:
        return group
    if stats.request_top is None:
        raise ProblemError("the request rule is set but the table has no request flags")
    shares = np.asarray(rules.request_percent, float) / 100.0
    excess = np.nan_to_num(stats.request_top, nan=-np.inf) - shares[None, :] * total[:, None]
    over = excess > ROUNDING_RTOL * np.abs(total)[:, None]
    group.flag((stats.freq > 0) & (total > 0) & over.any(axis=1), Rule.REQUEST,
               magnitude * rules.request_safety_range / 100.0)
    return group


def _zero_group(stats: CellStatistics, rules: SafetyRules, total: np.ndarray) -> _Group:
    """Zero rule: contributors but X = 0; the zero safety range above (and nothing below)."""
    group = _Group.none(stats.n_cells)
    if rules.zero_unsafe:
        group.flag((stats.freq > 0) & (total == 0), Rule.ZERO, rules.zero_safety_range)
    return group


def _manual_group(manual: Sequence[int] | np.ndarray, rules: SafetyRules, magnitude: np.ndarray) -> _Group:
    """Cells the user declares unsafe; the manual safety range in % of |X|."""
    n = magnitude.size
    group = _Group.none(n)
    manual = np.asarray(manual, dtype=np.int64).reshape(-1)
    outside = manual[(manual < 0) | (manual >= n)]
    if outside.size:
        raise ProblemError(f"manually unsafe cell {int(outside[0])} does not exist (cells 0..{n - 1})")
    chosen = np.zeros(n, bool)
    chosen[manual] = True
    group.flag(chosen, Rule.MANUAL, magnitude * rules.manual_safety_range / 100.0)
    return group


def _tau_argus_levels(groups: _Groups) -> tuple[np.ndarray, np.ndarray]:
    """(upper level, no lower level?) per cell: the first group in tau-argus's order that
    asks for a level > 0 sets it (libtauargus CTable::SetProtectionLevelCell)."""
    upper = np.zeros(groups.concentration.upper.size)
    lower_free = np.zeros(upper.size, bool)
    open_ = np.ones(upper.size, bool)
    for group in groups:
        decides = open_ & (group.upper > 0)
        upper[decides] = group.upper[decides]
        lower_free[decides] = group is groups.zero
        open_ &= ~decides
    return upper, lower_free


def _largest_levels(groups: _Groups) -> tuple[np.ndarray, np.ndarray]:
    """(upper level, no lower level?) per cell: the largest level of every rule that flags it;
    zero cells have no lower level unless the user flagged them too."""
    upper = np.max([group.upper for group in groups], axis=0)
    return upper, (groups.zero.flags != 0) & (groups.manual.flags == 0)


def apply_rules(stats: CellStatistics, rules: SafetyRules,
                manual: Sequence[int] | np.ndarray = ()) -> RuleResult:
    """Flag every cell of ``stats`` by ``rules`` and give it protection levels.

    ``manual`` lists cells the user declares unsafe.  Empty cells (no
    contributors) are never flagged except manually.
    """
    weighted = rules.apply_weights and stats.has_weights
    total = stats.total(weighted)
    magnitude = np.abs(total)
    groups = _Groups(_concentration_group(stats, rules, magnitude), _request_group(stats, rules, total, magnitude),
                     _frequency_group(stats, rules, weighted, magnitude), _zero_group(stats, rules, total),
                     _manual_group(manual, rules, magnitude))
    flags = np.bitwise_or.reduce([group.flags for group in groups])
    levels = _largest_levels if rules.level_combination == "largest" else _tau_argus_levels
    upper, lower_free = levels(groups)
    lower = np.where(lower_free, 0.0, rules.lower_ratio * upper)
    empty = stats.freq == 0
    for array in (flags, upper, lower, empty):
        array.flags.writeable = False
    return RuleResult(flags=flags, upper_protection=upper, lower_protection=lower, empty=empty)


def to_problem(structure: TableStructure, stats: CellStatistics, result: RuleResult,
               rules: SafetyRules | None = None, nonnegative: bool | None = None,
               weights: str = "unit", fix_empty: bool = True) -> CTAProblem:
    """The CTA problem (Castro & González 2011, model (1)) of a table and its rule results.

    Values are the published totals (weighted when the rules used weights);
    relations are the table's additivity relations; sensitive cells carry their
    protection levels.  ``nonnegative`` (default: when no cell is negative)
    bounds every cell below by 0; ``weights`` is "unit" or "inverse"
    (ctadesk.engine.quality.weights); empty cells stay 0 when ``fix_empty``.
    """
    if structure.n_cells != stats.n_cells:
        raise ProblemError(f"the table has {structure.n_cells} cells but the statistics {stats.n_cells}")
    weighted = rules is None or rules.apply_weights
    values = stats.total(weighted)
    if nonnegative is None:
        nonnegative = bool(np.all(values >= 0))
    weight_functions = {"unit": unit_weights, "inverse": inverse_weights}
    if weights not in weight_functions:
        raise ProblemError(f"unknown cell weights '{weights}' (use {', '.join(weight_functions)})")
    sensitive = result.sensitive
    fixed = result.empty.copy() if fix_empty else np.zeros(stats.n_cells, bool)
    fixed[sensitive] = False
    return CTAProblem(
        values=values,
        relations=structure.relations(),
        lower=0.0 if nonnegative else None,
        weights=weight_functions[weights](values),
        sensitive=sensitive,
        lower_protection=result.lower_protection[sensitive],
        upper_protection=result.upper_protection[sensitive],
        fixed=fixed,
        cell_label=structure.cell_label,
        relation_label=structure.relation_label,
    )
