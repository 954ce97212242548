"""What a protection run reports beyond its table, as typed fields every front end reads: the
published precision reached, how many cells changed, where the lower bound came from and the
quality terms' values on the published table.

The engine keeps its own diagnostics in ``CTAResult.info``; the app layer turns the few that a
front end shows into an ``Outcome`` once, when the run ends (ctadesk.app.job.protect), so that no
front end reads an ``info`` key.  A project keeps the outcome beside its result
(``Outcome.as_dict()`` / ``Outcome.from_dict()``), so a saved project is released at the
precision it was protected at.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from ctadesk.engine.result import CTAResult

#: what the bound of a result comes from when the engine names no other source
SOLVER_BOUND = "the solver"


@dataclasses.dataclass(frozen=True)
class Publication:
    """The published precision a run reached (engine/publish/precision.py).

    asked      the request's precision: 'auto', 'full' or a number of decimals
    decimals   the decimals the table is at (None: unrounded)
    note       how the table was put at that precision, or why it could not be
    base       the rounding base asked for (ProtectionRequest.rounding_base): every cell a multiple
               of it once rounded (None: the grid of the decimals)
    """

    asked: str | int = "full"
    decimals: int | None = None
    note: str = ""
    base: int | None = None

    @property
    def rounded(self) -> bool:
        """The table was put at a number of decimals."""
        return self.decimals is not None

    @property
    def met(self) -> bool:
        """The table is at the precision asked for (always true for 'full')."""
        return self.asked == "full" or self.decimals is not None

    def as_dict(self) -> dict[str, Any]:
        fields = {"asked": self.asked, "decimals": self.decimals, "rounded": self.rounded, "met": self.met,
                  "note": self.note}
        return fields if self.base is None else {**fields, "base": self.base}

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any]) -> Publication:
        decimals, base = fields.get("decimals"), fields.get("base")
        return cls(asked=fields.get("asked", "full"), decimals=None if decimals is None else int(decimals),
                   note=str(fields.get("note", "")), base=None if base is None else int(base))


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A protection run's outcome beside its table.

    published      the precision reached (Publication)
    cells_changed  cells the published table changes (engine/solvers/finish.py: a change below 1e-9
                   of the cell's magnitude is no change)
    bound_from     where the result's lower bound came from: SOLVER_BOUND, or the engine's other
                   source (the protection levels and relation imbalances); None without a bound
    terms          the quality terms' report on the published table (TermsReport.as_dict(); None
                   without terms)
    """

    published: Publication = Publication()
    cells_changed: int = 0
    bound_from: str | None = None
    terms: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"published": self.published.as_dict(), "cells_changed": self.cells_changed,
                "bound_from": self.bound_from, "quality_terms": None if self.terms is None else dict(self.terms)}

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any]) -> Outcome:
        """The outcome a project kept (as_dict); keys missing take the defaults."""
        terms = fields.get("quality_terms")
        return cls(published=Publication.from_dict(fields.get("published") or {}),
                   cells_changed=int(fields.get("cells_changed", 0)), bound_from=fields.get("bound_from"),
                   terms=None if terms is None else dict(terms))


def result_record(result: CTAResult, seconds: float, quality: Mapping[str, Any] | None = None,
                  decimals: int | None = None) -> dict[str, Any]:
    """The JSON record of one table's result: status and claims, the values in cell order (None
    without a table), the ``decimals`` they are published at, the senses as up/down, the timings, the
    verification and ``quality`` (QualityReport.as_dict(), per cell group); non-finite numbers as None."""
    return {
        "status": result.status.value, "verified": result.verified, "protected": result.protected,
        "method": result.method, "message": result.message, "objective": json_number(result.objective),
        "model_objective": json_number(result.model_objective), "bound": json_number(result.bound),
        "gap": json_number(result.gap), "values": None if result.values is None else result.values.tolist(),
        "decimals": decimals,
        "senses": None if result.senses is None else ["up" if s > 0 else "down" for s in result.senses],
        "seconds": seconds, "timings": {key: float(value) for key, value in result.timings.items()},
        "verification": None if result.verification is None else result.verification.summary(),
        "quality": None if quality is None else dict(quality),
    }


def json_number(value: float | None) -> float | None:
    """``value`` as JSON holds it: a float, or None for none, NaN or infinity."""
    return None if value is None or not math.isfinite(value) else float(value)
