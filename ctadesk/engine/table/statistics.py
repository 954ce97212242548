"""Per-cell statistics that safety rules read: value, frequency, top contributions.

A table built from microdata (ctadesk.engine.table.microdata.tabulate) and a table read
from a tau-argus .tab file (which carries frequency and <MAXSCORE> top
contributions per cell) both end up as one ``CellStatistics``; the rules in
ctadesk.engine.rules.safety never look further.

A tau-argus table may name a shadow variable (`<SHADOW>`; tau-argus manual §4.4.4:
"the variable that is used to apply the safety rule"), whose largest contributions
are the ones listed: the dominance and p%/(p,q) rules then compare them with the
shadow's cell total instead of X (``rule_total``).

Sampling weights follow tau-argus (libtauargus CDataCell::ComputeWeightedScoreCell;
Hundepool et al. 2012, *Statistical Disclosure Control*, §4.2): a sample
contribution x_i with weight w_i stands for w_i population units of value x_i, so
the sum of the n largest population contributions is
S(n) = sum_i x_i * clip(n - (w_1 + ... + w_{i-1}), 0, w_i) over the sample
contributions in decreasing order, and it is compared with the weighted cell
total X = sum_i w_i x_i.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.errors import ProblemError


def _column(name: str, value, n: int, dtype) -> np.ndarray:
    array = np.array(value, dtype=dtype, copy=True).reshape(-1)
    if array.shape != (n,):
        raise ProblemError(f"{name} has {array.size} entries, expected {n} (one per cell)")
    array.flags.writeable = False
    return array


def _matrix(name: str, value, n: int) -> np.ndarray:
    array = np.array(value, dtype=float, copy=True)
    if array.ndim == 1:
        array = array.reshape(n, -1) if n else array.reshape(0, 0)
    if array.ndim != 2 or array.shape[0] != n:
        raise ProblemError(f"{name} must have one row per cell ({n}), got shape {array.shape}")
    array.flags.writeable = False
    return array


@dataclasses.dataclass(frozen=True, eq=False)
class CellStatistics:
    """What the safety rules need to know about every cell of a table (C order).

    values              cell totals X (n,), unweighted sums of contributions
    freq                number of contributing records (n,)
    top                 largest contributions, largest first (n, k); NaN where a
                        cell has fewer than k contributors
    weighted_values     sum of w_i x_i per cell, or None without sampling weights
    weight_sums         sum of w_i per cell (the weighted frequency), or None
    top_weights         sampling weight of each entry of ``top`` (n, k), or None
    holding_freq        number of distinct holdings per cell, or None
    holding_top         largest holding contributions (each holding's records in
                        the cell summed first), largest first (n, kh), or None
    request_top         largest contribution of a record that asked for
                        protection, per request code 1 and 2 (n, 2), NaN if none;
                        or None
    shadow              cell totals of the shadow variable (n,), whose largest
                        contributions ``top`` holds; or None (the rules use X)

    Only ``values``, ``freq`` and ``top`` are required; a .tab reader builds
    ``CellStatistics(values, freq, top)`` from its value, frequency and
    <MAXSCORE> columns (top may have zero columns when the file has none).
    """

    values: np.ndarray
    freq: np.ndarray
    top: np.ndarray
    weighted_values: np.ndarray | None = None
    weight_sums: np.ndarray | None = None
    top_weights: np.ndarray | None = None
    holding_freq: np.ndarray | None = None
    holding_top: np.ndarray | None = None
    request_top: np.ndarray | None = None
    shadow: np.ndarray | None = None

    def __post_init__(self) -> None:
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        values = np.array(self.values, dtype=float, copy=True).reshape(-1)
        values.flags.writeable = False
        n = values.size
        set_("values", values)
        freq = _column("freq", self.freq, n, np.int64)
        if np.any(freq < 0):
            raise ProblemError(f"cell {int(np.flatnonzero(freq < 0)[0])}: frequency is negative")
        set_("freq", freq)
        set_("top", _matrix("top", self.top, n))
        for name in ("weighted_values", "weight_sums", "shadow"):
            if getattr(self, name) is not None:
                set_(name, _column(name, getattr(self, name), n, float))
        if self.holding_freq is not None:
            set_("holding_freq", _column("holding_freq", self.holding_freq, n, np.int64))
        for name in ("top_weights", "holding_top", "request_top"):
            if getattr(self, name) is not None:
                set_(name, _matrix(name, getattr(self, name), n))
        if self.top_weights is not None and self.top_weights.shape != self.top.shape:
            raise ProblemError(f"top_weights has shape {self.top_weights.shape}, top has {self.top.shape}")
        if (self.weighted_values is None) != (self.top_weights is None):
            raise ProblemError("weighted_values and top_weights come together (both or neither)")
        if self.shadow is not None and self.has_weights:
            raise ProblemError("a shadow variable and sampling weights cannot be combined")

    # ------------------------------------------------------------ properties
    @property
    def n_cells(self) -> int:
        return int(self.values.size)

    @property
    def has_weights(self) -> bool:
        return self.weighted_values is not None

    @property
    def has_holdings(self) -> bool:
        return self.holding_top is not None

    def total(self, weighted: bool) -> np.ndarray:
        """X per cell: the weighted total when ``weighted`` and weights exist."""
        return self.weighted_values if weighted and self.weighted_values is not None else self.values

    def rule_total(self, weighted: bool) -> np.ndarray:
        """The total the dominance and p%/(p,q) rules compare the top contributions with:
        the shadow variable's when there is one (tau-argus manual §4.4.4), else X."""
        return self.shadow if self.shadow is not None else self.total(weighted)

    def frequency(self, weighted: bool) -> np.ndarray:
        """Records per cell, or the sum of their weights (tau-argus's weighted frequency)."""
        if weighted and self.weight_sums is not None:
            return self.weight_sums
        return self.freq.astype(float)

    def largest_sum(self, n: int, weighted: bool, holding: bool = False) -> np.ndarray:
        """S(n): the sum of the n largest contributions per cell (0 for missing ones).

        With ``weighted`` and sampling weights, the n largest *population*
        contributions as tau-argus estimates them (module docstring).
        Holding-level sums are never weighted (tau-argus does not combine the two).
        """
        top = self.holding_top if holding else self.top
        if top is None:
            raise ProblemError("the table has no holding-level contributions")
        if n > top.shape[1]:
            raise ProblemError(f"a rule needs the {n} largest contributions but the table keeps only {top.shape[1]}")
        contributions = np.nan_to_num(top[:, :n], nan=0.0)
        if holding or not weighted or self.top_weights is None:  # top_weights come with weighted_values
            return contributions.sum(axis=1)
        weights = np.nan_to_num(self.top_weights[:, :n], nan=0.0)
        before = np.cumsum(weights, axis=1) - weights
        return (contributions * np.clip(n - before, 0.0, weights)).sum(axis=1)

    def largest(self, n: int, weighted: bool, holding: bool = False) -> np.ndarray:
        """x_n per cell: S(n) - S(n-1), the n-th largest (population) contribution."""
        previous = self.largest_sum(n - 1, weighted, holding) if n > 1 else 0.0
        return self.largest_sum(n, weighted, holding) - previous
