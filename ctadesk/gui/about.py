"""Help > About: the version, what ctadesk does, its licence and what it runs on."""

from __future__ import annotations

import platform

import clarabel
import highspy
from PySide6.QtCore import qVersion

from ctadesk import __version__


def about_text() -> str:
    """The About box's text (HTML): version, purpose, licence, the solvers', Qt's and Python's versions."""
    return (f"<h3>ctadesk {__version__}</h3>"
            "<p>Protects the statistical tables an office publishes: safety rules find the sensitive "
            "cells, controlled tabular adjustment moves them to safe values while every total still "
            "adds up, and an independent verifier checks every answer.</p>"
            "<p>Licence: EUPL-1.2.</p>"
            f"<p>HiGHS {highspy.HIGHS_VERSION_MAJOR}.{highspy.HIGHS_VERSION_MINOR}.{highspy.HIGHS_VERSION_PATCH}, "
            f"Clarabel {clarabel.__version__}, Qt {qVersion()}, "
            f"Python {platform.python_version()}</p>")
