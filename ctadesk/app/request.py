"""What a protection run is asked to do: one frozen request that the desktop app, the command
line, the Python API and a table server all build, and a project file stores.

A request names the model and the publishing choices, never a table: the table is the
session's (or the caller's) CTAProblem.  `options()` / `from_options()` give the plain
dictionary kept in project files and shown, without its secret part, in workbooks.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from ctadesk.engine.errors import CTAError
from ctadesk.engine.methods import AUTO
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.quality.terms import QualityTerm
from ctadesk.engine.settings import MAX_DECIMALS

#: cell weights a request can name: the table's own, 1 (total absolute change) or 1/|a| (relative change)
WEIGHT_CHOICES = ("table", "unit", "inverse")
#: measures the quality-preserving relations of Cox (2005) §3 keep exactly
PRESERVABLE = ("mean", "variance")
#: the key under which the secret widening seed is kept in a project's options
WIDENING_SEED = "widening_seed"


class RequestError(CTAError):
    """A request that cannot be run (names the setting at fault)."""


@dataclasses.dataclass(frozen=True)
class ProtectionRequest:
    """One protection run's settings.

    distance     the model's distance: l1, l2, huber (pseudo-Huber) or soc (engine/model.py)
    senses       how senses are taken: optimal (exact), fixed, heuristic or soft (engine/model.py)
    method       AUTO: the engine chooses the algorithm for the model and says why; else a method of
                 the registry (ctadesk.engine.methods), the expert's override
    parameters   the method's parameters by name (the registry's Method.parameters), as pairs
    weights      'table', 'unit' or 'inverse' (Cox 2005b, eq. (1))
    preserve     measures kept exactly: 'mean', 'variance' (Cox 2005a, §3), over the inner cells
    quality      quality terms, each hard, bounded or weighted, on any group of cells
                 (ctadesk.engine.quality.terms: mean, L(y), correlation; Cox 2005a, §3)
    quality_price  also solve once without each quality term, to report its price
    time_limit   seconds (inf: none);  gap: relative MIP gap;  threads: solver threads (None: default)
    widen        widen every protection level by a secret factor (engine/publish/widening.py)
    seed         the widening seed (None: a fresh secret one, drawn when the run starts)
    widen_cost   also solve at the required levels, to report what widening costs
    precision    'auto' (the data's decimals), 'full' (no rounding) or a number of decimals
    rounding_base  publish every cell as a multiple of this whole number instead (None: the
                 precision's grid): controlled rounding to a base, tau-argus's RND(table, base),
                 additive and protected (engine/publish/precision.py: at_step); precision stays 'auto'
    """

    distance: str = Distance.L1.value
    senses: str = Senses.OPTIMAL.value
    method: str = AUTO
    parameters: tuple[tuple[str, Any], ...] = ()
    weights: str = "table"
    preserve: frozenset[str] = frozenset()
    quality: tuple[QualityTerm, ...] = ()
    quality_price: bool = False
    time_limit: float = math.inf
    gap: float = 1e-4
    threads: int | None = None
    widen: bool = True
    seed: int | None = None
    widen_cost: bool = False
    precision: str | int = "auto"
    rounding_base: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "preserve", frozenset(self.preserve))
        object.__setattr__(self, "parameters", tuple(sorted(dict(self.parameters).items())))
        object.__setattr__(self, "quality", tuple(self.quality))
        for number, term in enumerate(self.quality, 1):
            if not isinstance(term, QualityTerm):
                raise RequestError(f"quality term {number} ({term!r}) is not a QualityTerm")
        if self.distance not in {d.value for d in Distance}:
            raise RequestError(f"distance '{self.distance}': choose one of {', '.join(d.value for d in Distance)}")
        if self.senses not in {s.value for s in Senses}:
            raise RequestError(f"senses '{self.senses}': choose one of {', '.join(s.value for s in Senses)}")
        if self.weights not in WEIGHT_CHOICES:
            raise RequestError(f"weights '{self.weights}': choose one of {', '.join(WEIGHT_CHOICES)}")
        unknown = self.preserve - set(PRESERVABLE)
        if unknown:
            raise RequestError(f"preserve: unknown measure '{sorted(unknown)[0]}'; "
                               f"choose from {', '.join(PRESERVABLE)}")
        if not self.time_limit > 0:
            raise RequestError(f"time limit {self.time_limit}: it must be positive (inf: none)")
        if not 0 <= self.gap < 1:
            raise RequestError(f"gap {self.gap}: it must be in [0, 1)")
        if self.precision not in ("auto", "full") and not (
                isinstance(self.precision, int) and 0 <= self.precision <= MAX_DECIMALS):
            raise RequestError(f"precision '{self.precision}': choose auto, full or 0..{MAX_DECIMALS} decimals")
        if self.rounding_base is not None:
            self._check_rounding_base()

    def _check_rounding_base(self) -> None:
        base = self.rounding_base
        if isinstance(base, bool) or not isinstance(base, int) or base < 1:
            raise RequestError(f"rounding base {base!r}: it must be a whole number from 1")
        if self.precision != "auto":
            raise RequestError(f"rounding base {base} with precision '{self.precision}': a rounding base sets the "
                               "published grid itself; leave precision auto")
        if self.terms():
            raise RequestError(f"rounding base {base} with quality terms: the terms are kept at a number of "
                               "decimals only; drop the terms or the rounding base")

    def replace(self, **changes: Any) -> ProtectionRequest:
        return dataclasses.replace(self, **changes)

    # ---------------------------------------------------------- project files
    def options(self) -> dict[str, Any]:
        """The plain dictionary a project file keeps (the seed under WIDENING_SEED when set)."""
        options = {"distance": self.distance, "senses": self.senses, "method": self.method,
                   "parameters": dict(self.parameters), "weights": self.weights, "preserve": sorted(self.preserve),
                   "time_limit": self.time_limit, "gap": self.gap, "widen": self.widen,
                   "precision": self.precision}
        if self.seed is not None:
            options[WIDENING_SEED] = self.seed
        if self.quality:
            options["quality"] = [term.as_dict() for term in self.quality]
        if self.quality_price:
            options["quality_price"] = True
        if self.rounding_base is not None:
            options["rounding_base"] = self.rounding_base
        return options

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> ProtectionRequest:
        """The request a project's options stand for (keys missing: the defaults)."""
        known = {"distance", "senses", "method", "parameters", "weights", "preserve", "time_limit", "gap", "widen",
                 "precision", "threads", "quality", "quality_price", "rounding_base"}
        settings = {key: value for key, value in options.items() if key in known and value is not None}
        if WIDENING_SEED in options and options[WIDENING_SEED] is not None:
            settings["seed"] = int(options[WIDENING_SEED])
        if "preserve" in settings:
            settings["preserve"] = frozenset(settings["preserve"])
        if "parameters" in settings:
            settings["parameters"] = tuple(dict(settings["parameters"]).items())
        if "time_limit" in settings:
            settings["time_limit"] = float(settings["time_limit"])
        if "quality" in settings:
            settings["quality"] = tuple(_quality_term(number, fields)
                                        for number, fields in enumerate(settings["quality"], 1))
        return cls(**settings)

    def terms(self) -> tuple[QualityTerm, ...]:
        """Every quality term of the run: ``preserve`` as hard terms over the inner cells (mean, then
        the variance term L(y)), then ``quality`` (a term named twice is kept once)."""
        preserved = tuple(QualityTerm(measure) for word, measure in (("mean", "mean"), ("variance", "L"))
                          if word in self.preserve)
        return tuple(dict.fromkeys(preserved + self.quality))

    def public_settings(self) -> dict[str, str]:
        """The settings a release workbook may name (never the seed)."""
        settings = {"weights": self.weights, "preserve": ", ".join(sorted(self.preserve)) or "nothing",
                    "protection levels widened by a secret factor": "yes" if self.widen else "no"}
        if self.quality:
            settings["quality terms"] = "; ".join(term.name for term in self.quality)
        if self.rounding_base is not None:
            settings["rounded to multiples of"] = str(self.rounding_base)
        return settings


def _quality_term(number: int, fields: Any) -> QualityTerm:
    """Quality term ``number`` of a project's options (RequestError naming it)."""
    if isinstance(fields, QualityTerm):
        return fields
    if not isinstance(fields, Mapping):
        raise RequestError(f"quality term {number}: {fields!r} is not a term's settings")
    try:
        return QualityTerm.from_dict(fields)
    except (CTAError, TypeError, ValueError) as error:
        raise RequestError(f"quality term {number}: {error}") from None
