"""Reading any file by its format: the reader the registry names for what the caller wants.

    project = read_table("turnover.xlsx", Answers(sheet="2023"))
    micro = read_microdata("survey.sav", MicrodataSpec(("region", "size"), "turnover"))
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ctadesk.app.formats.model import Answers, Holds
from ctadesk.app.formats.registry import format_of
from ctadesk.engine.errors import CTAError

if TYPE_CHECKING:
    from ctadesk.engine.table.microdata import Microdata
    from ctadesk.engine.table.structure import Dimension, TableStructure
    from ctadesk.io.microdata import MicrodataSpec
    from ctadesk.io.project import Project
    from ctadesk.io.released import ReleasedTable


def read_table(path: str | Path, answers: Answers = Answers()) -> Project:
    """The project a project or table file stands for (a table has nothing flagged but the
    sensitive cells its file gives)."""
    path = _existing(path)
    fmt = format_of(path, Holds.PROJECT, Holds.TABLE)
    return fmt.reader(Holds.PROJECT if fmt.project else Holds.TABLE)(path, answers)


def read_microdata(path: str | Path, spec: MicrodataSpec, answers: Answers = Answers()) -> Microdata:
    """The microdata ``spec`` describes, from a file of any format that holds microdata."""
    path = _existing(path)
    return format_of(path, Holds.MICRODATA).reader(Holds.MICRODATA)(path, spec, answers)


def microdata_columns(path: str | Path) -> list[str]:
    """The variable names of a microdata file (a header line, a first row, a package's metadata)."""
    path = _existing(path)
    return format_of(path, Holds.MICRODATA).columns_reader()(path)


def read_hierarchy(path: str | Path, variable: str, lead: str = "@") -> Dimension:
    """The hierarchy of ``variable`` from a hierarchy file (a tau-argus .hrc, a level CSV)."""
    path = _existing(path)
    return format_of(path, Holds.HIERARCHY).reader(Holds.HIERARCHY)(path, variable, lead)


def read_release(path: str | Path, structure: TableStructure, answers: Answers = Answers()) -> ReleasedTable:
    """A published table over the cells of ``structure`` (the original's), read back for an audit."""
    path = _existing(path)
    return format_of(path, Holds.RELEASE).reader(Holds.RELEASE)(path, structure, answers)


def _existing(path: str | Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise CTAError(f"The file {path} does not exist.")
    return path
