"""Reading tau-argus microdata (.asc with their .rda)."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.formats.model import Answers
from ctadesk.engine.table.microdata import Microdata
from ctadesk.io.microdata import MicrodataSpec
from ctadesk.io.tauargus import read_rda
from ctadesk.io.tauargus_microdata import rda_beside, read_asc


def microdata(path: Path, spec: MicrodataSpec, answers: Answers) -> Microdata:
    """tau-argus microdata (.asc, fixed-width or with a <SEPARATOR>) with its .rda
    (answers.metadata, else the .rda beside it): the weight, holding and request variables are
    those the .rda marks."""
    return read_asc(path, answers.metadata).table(spec.spanning, spec.response).microdata


def columns(path: Path) -> list[str]:
    """The variables the .rda beside an .asc file lists."""
    return [variable.name for variable in read_rda(rda_beside(path)).variables]
