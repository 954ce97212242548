"""An outsider's attack on the tables a server published, written for the tests and the benchmark
with numpy alone: the true tables are recomputed from the records (checker.full_original), the
published ones are what the service returned.

  * non-additive: a published table whose values do not add up along its hierarchies;
  * both sides: a sensitive cell published above its true value in one table, below in another;
  * arithmetic: a sensitive cell whose published value divided by (1 + p) or (1 - p), p the
    rules' percentage (the protection level of a p % or frequency rule), is a number of the data's
    decimals and its true value -- the outsider's test of issue 30: flag any value whose quotient
    has no more decimals than the data, and take the quotient;
  * differencing: a cell published with two values (two tables then tell the change apart);
  * decimals: the share of sensitive cells among values with more decimals than the data have,
    against their share among all values (a test that separates them better than chance).
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np

from tests.app.online.checker import cell_names, full_original, problems


@dataclasses.dataclass
class Findings:
    """Counts over every table published (module docstring)."""

    tables: int = 0
    withheld: int = 0
    non_additive: int = 0
    sensitive_values: int = 0
    recovered: int = 0
    values: int = 0
    finer_than_data: int = 0
    sensitive_finer: int = 0
    sensitive_total: int = 0
    sides: dict = dataclasses.field(default_factory=lambda: collections.defaultdict(set))
    published: dict = dataclasses.field(default_factory=lambda: collections.defaultdict(set))

    @property
    def both_sides(self) -> int:
        return sum(1 for sides in self.sides.values() if sides == {1, -1})

    @property
    def differenced(self) -> int:
        return sum(1 for values in self.published.values() if len(values) > 1)

    def lines(self, decimals: int) -> list[str]:
        base = self.sensitive_total / max(self.values, 1)
        finer = self.sensitive_finer / self.finer_than_data if self.finer_than_data else float("nan")
        return [f"tables published {self.tables}, withheld {self.withheld}",
                f"non-additive responses {self.non_additive}",
                f"sensitive cells on both sides {self.both_sides}",
                f"sensitive values recovered exactly by arithmetic {self.recovered} of {self.sensitive_values}",
                f"cells published with two values (differencing) {self.differenced}",
                f"values with more than {decimals} decimals: {self.finer_than_data}; sensitive among them "
                f"{100 * finer:.1f} % (base rate {100 * base:.1f} %)"]


def decimals_of(values: np.ndarray, decimals: int) -> np.ndarray:
    """Whether each value needs more than ``decimals`` decimals."""
    scaled = np.asarray(values, float) * 10.0 ** decimals
    return np.abs(scaled - np.round(scaled)) > 1e-6 * np.maximum(1.0, np.abs(scaled)) * 1e-3 + 1e-6


def observe(findings: Findings, microdata, spanning, structure, values, sensitive, levels, senses,
            shares: tuple[float, ...], decimals: int) -> None:
    """Add one published table (``values``; the office's ``sensitive`` cells, their levels and
    senses, for the counts only) to ``findings``."""
    original, _ = full_original(microdata, spanning, structure)
    truth = original.reshape(-1)
    lower, upper = levels
    found = problems(structure, original, values, sensitive, lower, upper, senses)
    findings.tables += 1
    findings.non_additive += any(not line.startswith("sensitive cell") for line in found)
    names = cell_names(structure)
    for i, name in enumerate(names):
        findings.published[name].add(round(float(values[i]), 9))
    is_sensitive = np.zeros(truth.size, bool)
    is_sensitive[sensitive] = True
    finer = decimals_of(values, decimals)
    findings.values += truth.size
    findings.finer_than_data += int(finer.sum())
    findings.sensitive_finer += int((finer & is_sensitive).sum())
    findings.sensitive_total += int(is_sensitive.sum())
    step = 10.0 ** -decimals
    for i in sensitive:
        findings.sensitive_values += 1
        move = values[i] - truth[i]
        if abs(move) > 1e-9 * max(1.0, abs(truth[i])):
            findings.sides[names[i]].add(1 if move > 0 else -1)
        guesses = np.array([values[i] / (1 + p) for p in shares] + [values[i] / (1 - p) for p in shares])
        plausible = guesses[~decimals_of(guesses, decimals)]
        findings.recovered += bool(np.any(np.abs(plausible - truth[i]) < step * 1e-6))


def attack(service, microdata, tables, shares: tuple[float, ...]) -> Findings:
    """Publish ``tables`` (spanning tuples) in order through ``service`` and observe each published
    table (a withheld one is counted); the service's own problem supplies the office's view of
    which cells are sensitive, for the counts only."""
    from ctadesk.app.online import cell_keys
    from ctadesk.app.online.service import TableWithheld

    findings = Findings()
    for spanning in tables:
        structure, problem = service.problem(spanning)
        try:
            table = service.publish(spanning)
        except TableWithheld:
            findings.withheld += 1
            continue
        keys = cell_keys(structure)
        stored = service.store.senses(service.measure, [keys[i] for i in problem.sensitive])
        senses = np.array([stored[keys[i]] for i in problem.sensitive])
        observe(findings, microdata, spanning, structure, table.values, problem.sensitive,
                (problem.lower_protection, problem.upper_protection), senses, shares, service.decimals)
    return findings
