"""The application layer: one protection job that the desktop app, the command line, the
Python API and a table server share.

    from ctadesk.app import ProtectionRequest, protect
    protection = protect(problem, ProtectionRequest(method="lp", precision=0))

Imports flow one way: ctadesk.engine <- ctadesk.io <- ctadesk.app <- ctadesk.gui, ctadesk.cli.

The names below are imported on first use (PEP 562 module ``__getattr__``), so a module that
needs one of them, or a submodule such as ctadesk.app.formats, does not load the job and the
solvers behind it: a command's ``--help`` stays quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the public names, re-exported (``import x as x``); loaded by __getattr__ at run time
    from ctadesk.app.job import Protection as Protection
    from ctadesk.app.job import protect as protect
    from ctadesk.app.job import weighted as weighted
    from ctadesk.app.outcome import Outcome as Outcome
    from ctadesk.app.outcome import Publication as Publication
    from ctadesk.app.request import PRESERVABLE as PRESERVABLE
    from ctadesk.app.request import WEIGHT_CHOICES as WEIGHT_CHOICES
    from ctadesk.app.request import WIDENING_SEED as WIDENING_SEED
    from ctadesk.app.request import ProtectionRequest as ProtectionRequest
    from ctadesk.app.request import RequestError as RequestError

#: each public name and the module that defines it
_HOMES = {
    "Protection": "job", "protect": "job", "weighted": "job",
    "Outcome": "outcome", "Publication": "outcome",
    "PRESERVABLE": "request", "WEIGHT_CHOICES": "request", "WIDENING_SEED": "request",
    "ProtectionRequest": "request", "RequestError": "request",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> object:
    try:
        home = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
