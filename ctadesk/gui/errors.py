"""Errors in plain language at the GUI's edge: the message names the cell, row or file, never a traceback."""

from __future__ import annotations

import logging

from ctadesk.engine.errors import CTAError

log = logging.getLogger(__name__)


def plain_message(error: BaseException) -> str:
    """One or two sentences a statistician can act on."""
    if isinstance(error, CTAError):
        return str(error)
    if isinstance(error, MemoryError):
        return "There is not enough memory for this table. Close other programs or use a smaller table."
    if isinstance(error, FileNotFoundError):
        return f"The file {error.filename} does not exist."
    if isinstance(error, PermissionError):
        return f"ctadesk may not read or write {error.filename}."
    if isinstance(error, OSError):
        where = f" ({error.filename})" if error.filename else ""
        return f"The file could not be read or written{where}: {error.strerror or error}."
    log.error("unexpected error", exc_info=error)
    return (f"Something unexpected went wrong ({type(error).__name__}: {error}). "
            "Your table and settings are unchanged.")
