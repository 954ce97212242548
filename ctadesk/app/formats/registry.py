"""The formats ctadesk reads and writes, one entry each: the only place a file suffix is known.
Adding a format is its reader module and one FileFormat here; the desktop app's dialogs and
dispatch, the command line and the audit find it by looking formats up.

The readers named here are the app's (ctadesk.app.formats.readers, a module per format), each a
few lines over the io reader of the format, so that every reader of a kind is called the same
way; a format's module is imported only when a file of that format is read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctadesk.app.formats.model import Export, FileFormat, Holds, Question, Requires, resolve
from ctadesk.engine.errors import CTAError

_READERS = "ctadesk.app.formats.readers"
_FILES = "ctadesk.app.files"


def _statfile(package: str, label: str, suffixes: tuple[str, ...]) -> FileFormat:
    """A statistical package's data files, read by ctadesk.io.statfiles told the package (its key)."""
    return FileFormat(package, label, suffixes, microdata=f"{_READERS}.statfile:microdata",
                      columns="ctadesk.io.statfiles:statfile_columns", questions=(Question.VARIABLES,),
                      options={"package": package})


FORMATS: tuple[FileFormat, ...] = (
    FileFormat("project", "ctadesk projects", (".ctaproj",), table=f"{_READERS}.project:table", project=True),
    FileFormat("excel", "Excel workbooks", (".xlsx", ".xlsm"), table=f"{_READERS}.excel:table",
               microdata=f"{_READERS}.excel:microdata", columns="ctadesk.io.microdata:xlsx_columns",
               release=f"{_READERS}.excel:release",
               questions=(Question.SHEETS, Question.VARIABLES),
               exports=(Export("release", "Release workbook (Excel)…", f"{_FILES}:export_release", Requires.PROTECTED),
                        Export("internal", "Internal workbook with originals (Excel)…", f"{_FILES}:export_internal"))),
    FileFormat("csv", "CSV files", (".csv", ".txt"), table=f"{_READERS}.csv_text:table",
               microdata=f"{_READERS}.csv_text:microdata", columns="ctadesk.io.csv_table:csv_header",
               hierarchy="ctadesk.io.hierarchy:read_level_csv", release=f"{_READERS}.csv_text:release",
               questions=(Question.TABLE_OR_MICRODATA, Question.VARIABLES),
               write=f"{_FILES}:write_table_csv",
               exports=(Export("csv", "Adjusted table as CSV…", f"{_FILES}:export_csv"),)),
    FileFormat("jj", "JJ files", (".jj",), table=f"{_READERS}.jj:table", release=f"{_READERS}.jj:release",
               write=f"{_FILES}:export_jj",
               exports=(Export("jj", "Problem as JJ…", f"{_FILES}:export_jj", Requires.NOTHING),)),
    FileFormat("sol", "RCTA solutions", (".sol",), release=f"{_READERS}.sol:release",
               exports=(Export("sol", "Adjusted values as RCTA .sol…", f"{_FILES}:export_sol"),)),
    FileFormat("tab", "tau-argus tables", (".tab",), table=f"{_READERS}.tab:table", release=f"{_READERS}.tab:release",
               questions=(Question.TOTALS, Question.METADATA),
               exports=(Export("tab", "Release table as tau-argus .tab…", f"{_FILES}:export_tab", Requires.PROTECTED,
                               accepts=f"{_FILES}:tab_exportable"),)),
    FileFormat("hrc", "tau-argus hierarchies", (".hrc",), hierarchy="ctadesk.io.hierarchy:read_hrc"),
    FileFormat("asc", "tau-argus microdata", (".asc",), microdata=f"{_READERS}.asc:microdata",
               columns=f"{_READERS}.asc:columns", questions=(Question.METADATA, Question.VARIABLES)),
    FileFormat("hst", "tau-argus a-priori files", (".hst",), apriori="ctadesk.io.apriori:read_apriori"),
    FileFormat("arb", "tau-argus batch files", (".arb",), batch="ctadesk.app.batch.plan:plan_arb"),
    FileFormat("jobs", "ctadesk job files", (".toml",), batch="ctadesk.app.batch.toml_jobs:plan_toml"),
    _statfile("spss", "SPSS data files", (".sav", ".zsav")),
    _statfile("stata", "Stata data files", (".dta",)),
    _statfile("sas", "SAS data sets", (".sas7bdat",)),
    _statfile("xport", "SAS transport files", (".xpt",)),
    FileFormat("json", "JSON documents", (".json",)),
)

#: a file dialog's title for the formats that hold each
_TITLES = {None: "Tables, projects and microdata", Holds.TABLE: "Tables", Holds.MICRODATA: "Microdata",
           Holds.HIERARCHY: "Hierarchies", Holds.RELEASE: "Releases", Holds.BATCH: "Batch and job files",
           Holds.APRIORI: "A-priori files"}


def format_of(path: str | Path, *holds: Holds) -> FileFormat:
    """The format of ``path`` by its suffix (one that can hold one of ``holds`` when given); a
    file ctadesk does not read is refused naming it and the formats it does read."""
    path = Path(path)
    suffix = path.suffix.lower()
    for fmt in formats(*holds):
        if suffix in fmt.suffixes:
            return fmt
    what = " or ".join(h.value for h in holds) + " " if holds else ""
    raise CTAError(f"{path.name}: ctadesk does not read '{suffix or 'no suffix'}' {what}files; it reads "
                   + "; ".join(f"{fmt.label} ({', '.join(fmt.suffixes)})" for fmt in formats(*holds)))


def output_format(path: str | Path | None) -> FileFormat:
    """The format an output file is written in, by its suffix: the format whose suffix it has,
    else CSV (no file: standard output; a suffix no format has) -- the command line's -o writes
    cell records as CSV, a JSON document to a .json file, a workbook to an Excel one."""
    suffix = Path(path).suffix.lower() if path else ""
    return next((fmt for fmt in FORMATS if suffix in fmt.suffixes), _format("csv"))


def suffix_of(key: str) -> str:
    """The suffix ctadesk gives a file of the format ``key`` it writes (the format's first)."""
    return _format(key).suffixes[0]


def _format(key: str) -> FileFormat:
    return next(fmt for fmt in FORMATS if fmt.key == key)


def formats(*holds: Holds) -> tuple[FileFormat, ...]:
    """The formats that can hold one of ``holds`` (every format when none is given)."""
    return tuple(fmt for fmt in FORMATS if not holds or fmt.holds & set(holds))


def suffixes(*holds: Holds) -> tuple[str, ...]:
    return tuple(suffix for fmt in formats(*holds) for suffix in fmt.suffixes)


def open_filter(holds: Holds | None = None) -> str:
    """A file dialog's filter: everything readable first, then each format, then all files.
    Without ``holds``: what File > Open reads (projects, tables, microdata)."""
    chosen = formats(holds) if holds else formats(Holds.PROJECT, Holds.TABLE, Holds.MICRODATA)
    everything = " ".join(fmt.pattern() for fmt in chosen)
    return ";;".join([f"{_TITLES[holds]} ({everything})", *(f"{fmt.label} ({fmt.pattern()})" for fmt in chosen),
                      "All files (*)"])


def exports() -> dict[str, Export]:
    """Every export kind, by its name, in the registry's order."""
    return {export.kind: export for fmt in FORMATS for export in fmt.exports}


def export_of(kind: str) -> Export:
    """The export ``kind``; an unknown kind is refused naming those there are."""
    known = exports()
    if kind not in known:
        raise CTAError(f"unknown export '{kind}'; choose one of {', '.join(known)}")
    return known[kind]


def table_writer(path: str | Path) -> Callable[[Path, Any], Any]:
    """The writer of a project's table, as it stands, to ``path`` by its suffix; a file ctadesk
    cannot write a table to is refused naming those it can."""
    path = Path(path)
    writable = [fmt for fmt in FORMATS if fmt.write is not None]
    for fmt in writable:
        if fmt.write is not None and path.suffix.lower() in fmt.suffixes:
            return resolve(fmt.write)
    raise CTAError(f"{path.name}: ctadesk does not write tables to '{path.suffix.lower() or 'no suffix'}' files; "
                   "it writes " + "; ".join(f"{fmt.label} ({fmt.suffixes[0]})" for fmt in writable))
