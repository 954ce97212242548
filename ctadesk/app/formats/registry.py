"""One registry of the files ctadesk reads: which suffix is which format, what it can hold
(a table, microdata, a project), the questions its reader needs answered, and what a table
read from it can be written back as.  The desktop app's file dialogs and dispatch and the
command line's readers all look formats up here, so their lists cannot drift apart.

    fmt = format_of("turnover.sav", holds="microdata")   # FileFormat('statfile', ...)
    open_filter()                                          # the file dialog's filter text
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ctadesk.engine.errors import CTAError
from ctadesk.io.project import PROJECT_SUFFIX
from ctadesk.io.statfiles import READERS as STATFILE_READERS

#: what a file can hold
PROJECT, TABLE, MICRODATA = "project", "table", "microdata"


@dataclasses.dataclass(frozen=True)
class FileFormat:
    """key        the reader's name ('excel', 'csv', 'tab', ...)
    label      the format's name for users
    suffixes   the file name endings it is recognised by (lower case, with the dot)
    holds      what the file can hold: PROJECT, TABLE and/or MICRODATA
    questions  what the user must answer before it is read (sheets and layout, whether a CSV
               is a table or microdata, the microdata variables, whether to recompute totals)
    exports    the export kinds (app.files.EXPORTS) that keep the file's own layout
    """

    key: str
    label: str
    suffixes: tuple[str, ...]
    holds: frozenset[str]
    questions: tuple[str, ...] = ()
    exports: tuple[str, ...] = ()

    def pattern(self) -> str:
        return " ".join(f"*{suffix}" for suffix in self.suffixes)


FORMATS: tuple[FileFormat, ...] = (
    FileFormat("project", "ctadesk projects", (PROJECT_SUFFIX,), frozenset({PROJECT})),
    FileFormat("excel", "Excel workbooks", (".xlsx", ".xlsm"), frozenset({TABLE, MICRODATA}),
               questions=("sheets and layout", "variables"), exports=("release", "internal")),
    FileFormat("csv", "CSV files", (".csv", ".txt"), frozenset({TABLE, MICRODATA}),
               questions=("table or microdata", "variables"), exports=("csv",)),
    FileFormat("tab", "tau-argus tables", (".tab",), frozenset({TABLE}),
               questions=("recompute totals that do not add up",), exports=("tab",)),
    FileFormat("jj", "JJ files", (".jj",), frozenset({TABLE}), exports=("jj", "sol")),
    FileFormat("statfile", "SPSS, Stata, SAS microdata", tuple(STATFILE_READERS), frozenset({MICRODATA}),
               questions=("variables",)),
)


def format_of(path: str | Path, holds: str | None = None) -> FileFormat:
    """The format of ``path`` by its suffix (one that can hold ``holds`` when given); a file
    ctadesk does not read is refused naming it and the formats it does read."""
    path = Path(path)
    suffix = path.suffix.lower()
    for fmt in FORMATS:
        if suffix in fmt.suffixes and (holds is None or holds in fmt.holds):
            return fmt
    readable = formats(holds)
    what = f"{holds} " if holds else ""
    raise CTAError(f"{path.name}: ctadesk does not read '{suffix or 'no suffix'}' {what}files; it reads "
                   + "; ".join(f"{fmt.label} ({', '.join(fmt.suffixes)})" for fmt in readable))


def formats(holds: str | None = None) -> tuple[FileFormat, ...]:
    """The formats that can hold ``holds`` (every format when None)."""
    return tuple(fmt for fmt in FORMATS if holds is None or holds in fmt.holds)


def suffixes(holds: str | None = None) -> tuple[str, ...]:
    return tuple(suffix for fmt in formats(holds) for suffix in fmt.suffixes)


def open_filter(holds: str | None = None) -> str:
    """A file dialog's filter: everything readable first, then each format, then all files."""
    chosen = formats(holds)
    everything = " ".join(fmt.pattern() for fmt in chosen)
    title = {None: "Tables, projects and microdata", TABLE: "Tables", MICRODATA: "Microdata"}.get(holds, "Files")
    return ";;".join([f"{title} ({everything})", *(f"{fmt.label} ({fmt.pattern()})" for fmt in chosen),
                      "All files (*)"])
