"""Exceptions of the engine; messages name the cell, relation or option at fault."""


class CTAError(Exception):
    """Base class of every error ctadesk reports to the user."""


class ProblemError(CTAError, ValueError):
    """A CTA problem description is inconsistent (names the cell or relation)."""


class SolverError(CTAError, RuntimeError):
    """A solver failed in a way that is not a property of the problem."""


class MethodError(CTAError, ValueError):
    """A CTA method or one of its parameters is unknown or out of range (names it)."""
