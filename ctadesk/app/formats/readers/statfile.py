"""Reading the statistical packages' data files (SPSS, Stata, SAS, SAS transport)."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.formats.model import Answers
from ctadesk.engine.table.microdata import Microdata
from ctadesk.io.microdata import MicrodataSpec
from ctadesk.io.statfiles import read_statfile_microdata


def microdata(path: Path, spec: MicrodataSpec, answers: Answers, package: str) -> Microdata:
    """The microdata of a data file written by ``package`` (the format's option)."""
    return read_statfile_microdata(path, spec, package)[0]
