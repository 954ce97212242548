"""The application layer: one protection job that the desktop app, the command line, the
Python API and a table server share.

    from ctadesk.app import ProtectionRequest, protect
    protection = protect(problem, ProtectionRequest(method="lp", precision=0))

Imports flow one way: ctadesk.engine <- ctadesk.io <- ctadesk.app <- ctadesk.gui, ctadesk.cli.
"""

from ctadesk.app.job import Protection, cells_changed, protect, weighted
from ctadesk.app.request import PRESERVABLE, WEIGHT_CHOICES, WIDENING_SEED, ProtectionRequest, RequestError

__all__ = ["PRESERVABLE", "WEIGHT_CHOICES", "WIDENING_SEED", "Protection", "ProtectionRequest", "RequestError",
           "cells_changed", "protect", "weighted"]
