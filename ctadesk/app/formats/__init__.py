"""One registry of the files ctadesk reads and writes (ctadesk.app.formats.registry): which
suffix is which format, what it can hold (a project, a table, microdata, a hierarchy, a
release), the readers that make each, the questions a reader needs answered and what a table
read from it can be written back as.  The desktop app's dialogs and dispatch, the command line
and the audit look formats up here, so their lists cannot drift apart.

    fmt = format_of("turnover.sav", Holds.MICRODATA)     # FileFormat('spss', ...)
    project = read_table("turnover.xlsx", Answers(sheet="2023"))
    open_filter()                                         # the file dialog's filter text
"""

from ctadesk.app.formats.model import Answers, Export, FileFormat, Holds, Layout, Question, Requires, Totals
from ctadesk.app.formats.read import microdata_columns, read_hierarchy, read_microdata, read_release, read_table
from ctadesk.app.formats.registry import (
    FORMATS,
    export_of,
    exports,
    format_of,
    formats,
    open_filter,
    output_format,
    suffix_of,
    suffixes,
    table_writer,
)

__all__ = ["FORMATS", "Answers", "Export", "FileFormat", "Holds", "Layout", "Question", "Requires", "Totals",
           "export_of", "exports", "format_of", "formats", "microdata_columns", "open_filter", "output_format",
           "read_hierarchy", "read_microdata", "read_release", "read_table", "suffix_of", "suffixes", "table_writer"]
