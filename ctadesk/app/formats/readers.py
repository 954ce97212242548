"""The readers the format registry names: each a few lines over its io reader, so that every
reader of a kind is called the same way -- a table as (path, answers) -> Project, microdata as
(path, spec, answers) -> Microdata, a release as (path, structure, answers) -> ReleasedTable.
Imported on first use (ctadesk.app.formats.model.resolve), never by the registry itself.
"""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.files import project_from_excel, project_from_tab, read_csv_table
from ctadesk.app.formats.model import Answers, Layout, Totals
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.microdata import MicrodataSpec, read_csv_microdata, read_xlsx_microdata
from ctadesk.io.project import Project, load_project
from ctadesk.io.released import ReleasedTable, released_csv, released_jj, released_sol, released_tab, released_xlsx


# ------------------------------------------------------------------ tables
def project(path: Path, answers: Answers) -> Project:
    """A saved project, as it was saved (it asks nothing)."""
    return load_project(path)


def excel_table(path: Path, answers: Answers) -> Project:
    """One sheet (answers.sheet, else the first visible one) in the layout detected."""
    from ctadesk.io.excel import import_table

    table = import_table(path, answers.sheet, decimal_comma=answers.decimal_comma,
                         include_hidden=answers.include_hidden)
    return project_from_excel([table], keep_non_additive=answers.totals is Totals.KEEP)


def csv_table(path: Path, answers: Answers) -> Project:
    """A long or wide CSV table (answers.layout, else as ctadesk.io.csv_table.guess_csv_kind guesses)."""
    from ctadesk.io.csv_table import guess_csv_kind

    layout = answers.layout or Layout(guess_csv_kind(path))
    return read_csv_table(path, layout.value, no_totals=answers.no_totals, decimal_comma=answers.decimal_comma,
                          keep_non_additive=answers.totals is Totals.KEEP)


def jj_table(path: Path, answers: Answers) -> Project:
    """A JJ instance with its sensitive cells, protection levels and costs."""
    from ctadesk.io.jj import read_jj

    return Project.from_problem(read_jj(path, additive=answers.totals is not Totals.KEEP).problem)


def tab_table(path: Path, answers: Answers) -> Project:
    """A tau-argus table with its metadata (answers.metadata, else the .rda beside it): its unsafe
    cells sensitive, its statistics kept for the rules; totals that do not add up refused,
    recomputed or kept as answers.totals says."""
    from ctadesk.io.tauargus import read_tab

    table = read_tab(path, answers.metadata)
    recomputed = ""
    if answers.totals is Totals.RECOMPUTE and table.non_additive():
        table, changed = table.make_additive()
        recomputed = f"\n{len(changed)} total(s) recomputed from their parts"
    project = project_from_tab(table, keep_non_additive=answers.totals is Totals.KEEP)
    project.log += recomputed
    return project


# --------------------------------------------------------------- microdata
def excel_microdata(path: Path, spec: MicrodataSpec, answers: Answers) -> Microdata:
    return read_xlsx_microdata(path, spec, sheet=answers.sheet)


def csv_microdata(path: Path, spec: MicrodataSpec, answers: Answers) -> Microdata:
    return read_csv_microdata(path, spec)


def asc_microdata(path: Path, spec: MicrodataSpec, answers: Answers) -> Microdata:
    """tau-argus microdata (.asc, fixed-width or with a <SEPARATOR>) with its .rda
    (answers.metadata, else the .rda beside it): the weight, holding and request variables are
    those the .rda marks."""
    from ctadesk.io.tauargus_microdata import read_asc

    return read_asc(path, answers.metadata).table(spec.spanning, spec.response).microdata


def asc_columns(path: Path) -> list[str]:
    """The variables the .rda beside an .asc file lists."""
    from ctadesk.io.tauargus import read_rda
    from ctadesk.io.tauargus_microdata import rda_beside

    return [variable.name for variable in read_rda(rda_beside(path)).variables]


def statfile_microdata(path: Path, spec: MicrodataSpec, answers: Answers, package: str) -> Microdata:
    from ctadesk.io.statfiles import read_statfile_microdata

    return read_statfile_microdata(path, spec, package)[0]


# ---------------------------------------------------------------- releases
def csv_release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_csv(path, structure)


def tab_release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_tab(path, structure, answers.metadata)


def jj_release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_jj(path, structure)


def sol_release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_sol(path, structure)


def excel_release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_xlsx(path, structure)
