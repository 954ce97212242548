"""Errors of the on-line table service, each naming the table, cell or store at fault."""

from __future__ import annotations

from ctadesk.engine.errors import CTAError


class OnlineError(CTAError):
    """A table the service cannot publish (names the table, the variable or the cell)."""


class StoreError(OnlineError):
    """The sense store cannot be used (names the file and what is wrong with it)."""
