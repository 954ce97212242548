"""The result of an audit: per audited cell, the attacker's interval and the verdicts; a summary."""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.audit.knowledge import AttackerKnowledge
from ctadesk.engine.audit.verdicts import Verdicts

#: the ways a cell can fail, as Verdicts fields and as words for reports
FAILURES = {
    "exact": "exact disclosure",
    "lower_short": "lower end too close",
    "upper_short": "upper end too close",
    "published_inside": "published value inside the protection interval",
    "singled_out": "original singled out by the known percentage",
}


@dataclasses.dataclass(frozen=True, eq=False)
class AuditResult:
    """The audit of one release (arrays per audited cell, in the order of ``cells``).

    cells        the audited (sensitive) cells, ascending
    original     their values a;  published  their released values (NaN: suppressed)
    lower_protection, upper_protection   the levels required
    verdicts     the interval judged ([lower, upper]) and each way it fails
    tolerance    in the table's units: widths and distances this small count as zero
    seconds      wall time;  lps  LPs solved (ends not settled by a known table)
    flows        batches of ends tried by max flow (flows.py)
    """

    cells: np.ndarray
    original: np.ndarray
    published: np.ndarray
    lower_protection: np.ndarray
    upper_protection: np.ndarray
    verdicts: Verdicts
    knowledge: AttackerKnowledge
    tolerance: float
    seconds: float
    lps: int
    flows: int = 0

    @property
    def lower(self) -> np.ndarray:
        return self.verdicts.lower

    @property
    def upper(self) -> np.ndarray:
        return self.verdicts.upper

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower

    @property
    def relative_width(self) -> np.ndarray:
        """width / |a|; for a = 0: 0 for an exact cell, else inf."""
        magnitude = np.abs(self.original)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(magnitude > 0, self.width / magnitude, np.where(self.verdicts.exact, 0.0, np.inf))

    @property
    def at_risk(self) -> np.ndarray:
        v = self.verdicts
        return v.exact | v.lower_short | v.upper_short | v.published_inside | v.singled_out

    @property
    def n_audited(self) -> int:
        return int(self.cells.size)

    @property
    def n_at_risk(self) -> int:
        return int(self.at_risk.sum())

    @property
    def safe(self) -> bool:
        return self.n_at_risk == 0

    def counts(self) -> dict[str, int]:
        """Cells failing each way (a cell may fail several ways)."""
        return {name: int(getattr(self.verdicts, name).sum()) for name in FAILURES}

    def smallest_relative_width(self) -> tuple[float, int | None]:
        """The smallest relative width and its cell (nan, None when nothing was audited)."""
        if not self.n_audited:
            return float("nan"), None
        relative_width = self.relative_width
        k = int(np.argmin(relative_width))
        return float(relative_width[k]), int(self.cells[k])

    def reasons(self, k: int) -> list[str]:
        """Why audited cell number k (position in ``cells``) is at risk, in words."""
        return [word for name, word in FAILURES.items() if getattr(self.verdicts, name)[k]]

    def summary(self) -> str:
        """One paragraph: cells audited, at risk (by reason), smallest relative width, time."""
        width, _ = self.smallest_relative_width()
        failing = ", ".join(f"{count} {FAILURES[name]}" for name, count in self.counts().items() if count)
        return (f"{self.n_audited} sensitive cell(s) audited, {self.n_at_risk} at risk"
                + (f" ({failing})" if failing else "")
                + f"; smallest relative interval width {width:.4g}; {self.seconds:.2f} s, {self.lps} LP(s)"
                + (f", {self.flows} max flow(s)" if self.flows else ""))
