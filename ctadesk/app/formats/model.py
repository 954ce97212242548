"""What the format registry says about a file format, as data: what it can hold, the readers
that make a project, microdata, a hierarchy or a release of it, the exports that write it,
and the questions a front end must have answered before it is read.

Readers and writers are named "module:function" and imported when first used
(``resolve``), so the registry is light to import (``ctadesk --help`` imports no reader).
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


class Holds(enum.Enum):
    """What a file of a format can hold (a format's capabilities)."""

    PROJECT = "project"        # a saved ctadesk project: opened as the document and saved back to
    TABLE = "table"            # a table with its relations (and perhaps sensitive cells)
    MICRODATA = "microdata"    # one record per respondent, tabulated after the variables are chosen
    HIERARCHY = "hierarchy"    # the codes of one spanning variable and their parents
    RELEASE = "release"        # a published table read back for an audit
    BATCH = "batch"            # jobs to run one after another or side by side (ctadesk batch)
    APRIORI = "apriori"        # what is known of a table's cells beforehand: statuses, bounds, costs


class Question(enum.Enum):
    """What a front end must have answered before a file is read; each names the Answers field
    (or, for VARIABLES, the MicrodataSpec) its answer goes to."""

    SHEETS = "which sheet, in which layout"                            # sheet, include_hidden
    TABLE_OR_MICRODATA = "a table (one line per cell, or wide) or microdata"   # layout
    VARIABLES = "the spanning, response, weight and holding variables"  # a MicrodataSpec
    TOTALS = "recompute totals that differ from their parts, or keep them"     # totals
    METADATA = "the metadata file that describes it"                    # metadata


class Layout(enum.Enum):
    """How a text table is laid out (the answer to TABLE_OR_MICRODATA for a table)."""

    LONG = "long"              # one line per cell: the codes, then the value
    WIDE = "wide"              # row labels down the left, column labels on top, as a sheet


class Totals(enum.Enum):
    """What to do with totals that differ from the sum of their parts (the answer to TOTALS)."""

    REFUSE = "refuse"          # refuse the file, naming the relations (what every reader does unasked)
    RECOMPUTE = "recompute"    # set each total to the sum of its parts
    KEEP = "keep"              # keep the file's values (protection then has to keep the differences)


@dataclasses.dataclass(frozen=True)
class Answers:
    """The answers a reader takes; the defaults are what a reader does when nobody is asked.

    sheet           the sheet to read (None: the first visible one)
    include_hidden  read hidden rows and columns of a sheet as part of the table
    decimal_comma   numbers written as text use a decimal comma (None: detected)
    layout          a text table's layout (None: guessed from the file)
    no_totals       a long table that lists no total code has none (else it is refused)
    metadata        the file that describes it (None: beside it, by its own name)
    totals          what to do with totals that do not add up
    """

    sheet: str | None = None
    include_hidden: bool = False
    decimal_comma: bool | None = None
    layout: Layout | None = None
    no_totals: bool = False
    metadata: Path | None = None
    totals: Totals = Totals.REFUSE


class Requires(enum.Enum):
    """What a project must hold before an export can be written."""

    NOTHING = "nothing"        # the problem as it stands
    RESULT = "result"          # adjusted values, protected or not
    PROTECTED = "protected"    # a protected table, which may be released


@dataclasses.dataclass(frozen=True)
class Export:
    """One thing File > Export (and ``ctadesk export``) writes.

    kind      its name on the command line ('release', 'csv', ...)
    menu      its menu text
    write     "module:function", called as write(path, project)
    requires  what the project must hold
    accepts   "module:function" telling whether a project's table can be written this way (an
              export in the layout of the file the table came from), or None for any table
    suffix, filter   the file name ending and the file dialog's filter, set by the format that
              lists the export (FileFormat)
    """

    kind: str
    menu: str
    write: str
    requires: Requires = Requires.RESULT
    accepts: str | None = None
    suffix: str = ""
    filter: str = ""

    def writer(self) -> Callable[..., Any]:
        return resolve(self.write)

    def available(self, project: Any) -> bool:
        """Whether ``project`` (a ctadesk.io.project.Project) holds what this export needs."""
        result = project.result
        if self.requires is Requires.RESULT and (result is None or result.values is None):
            return False
        if self.requires is Requires.PROTECTED and (result is None or result.values is None or not result.protected):
            return False
        return self.accepts is None or bool(resolve(self.accepts)(project))


@dataclasses.dataclass(frozen=True)
class FileFormat:
    """One format ctadesk reads (and perhaps writes).

    key        its name ('excel', 'csv', 'tab', ...)
    label      its name for users (a file dialog's filter)
    suffixes   the file name endings it is recognised by (lower case, with the dot; the first is
               the one its exports write)
    table      "module:function" -> Project, called as table(path, answers); a project file's
               opens the project (then ``project`` is True)
    microdata  "module:function" -> Microdata, called as microdata(path, spec, answers)
    columns    "module:function" -> the variable names, called as columns(path)
    hierarchy  "module:function" -> Dimension, called as hierarchy(path, variable, lead)
    release    "module:function" -> ReleasedTable, called as release(path, structure, answers)
    write      "module:function" writing a project's table as it stands (its original values and
               statuses, no result needed), called as write(path, project)
    batch      "module:function" -> the jobs of a batch (ctadesk.app.batch.BatchPlan), called as
               batch(path, request, as_cta)
    apriori    "module:function" -> an a-priori file's lines, called as apriori(path, structure)
    options    keywords every reader of the format is called with (which package wrote the file)
    questions  what a front end must have answered before the file is read
    exports    what a table read from it can be written back as, in its own layout
    project    the file is a saved project (the document itself, not an import)
    """

    key: str
    label: str
    suffixes: tuple[str, ...]
    table: str | None = None
    microdata: str | None = None
    columns: str | None = None
    hierarchy: str | None = None
    release: str | None = None
    write: str | None = None
    batch: str | None = None
    apriori: str | None = None
    options: Mapping[str, str] = dataclasses.field(default_factory=dict)
    questions: tuple[Question, ...] = ()
    exports: tuple[Export, ...] = ()
    project: bool = False

    def __post_init__(self) -> None:
        if not self.suffixes or any(s != s.lower() or not s.startswith(".") for s in self.suffixes):
            raise ValueError(f"format {self.key}: suffixes must be lower case and start with a dot")
        if self.microdata is not None and self.columns is None:
            raise ValueError(f"format {self.key}: a microdata reader needs a reader of the variable names")
        written = f"{self.label} (*{self.suffixes[0]})"
        object.__setattr__(self, "exports", tuple(dataclasses.replace(e, suffix=self.suffixes[0], filter=written)
                                                  for e in self.exports))

    @property
    def holds(self) -> frozenset[Holds]:
        """What a file of this format can hold: what its readers make."""
        readers = {Holds.PROJECT if self.project else Holds.TABLE: self.table, Holds.MICRODATA: self.microdata,
                   Holds.HIERARCHY: self.hierarchy, Holds.RELEASE: self.release, Holds.BATCH: self.batch,
                   Holds.APRIORI: self.apriori}
        return frozenset(holds for holds, reader in readers.items() if reader is not None)

    def pattern(self) -> str:
        return " ".join(f"*{suffix}" for suffix in self.suffixes)

    def reader(self, holds: Holds) -> Callable[..., Any]:
        """The reader that makes ``holds`` from a file of this format, with the format's options."""
        name = {Holds.PROJECT: self.table, Holds.TABLE: self.table, Holds.MICRODATA: self.microdata,
                Holds.HIERARCHY: self.hierarchy, Holds.RELEASE: self.release, Holds.BATCH: self.batch,
                Holds.APRIORI: self.apriori}[holds]
        if name is None or holds not in self.holds:
            raise ValueError(f"{self.label} hold no {holds.value}")
        return self._bound(name)

    def columns_reader(self) -> Callable[..., Any]:
        """The reader of the variable names of a microdata file of this format."""
        if self.columns is None:
            raise ValueError(f"{self.label} hold no microdata")
        return self._bound(self.columns)

    def _bound(self, name: str) -> Callable[..., Any]:
        function = resolve(name)
        if not self.options:
            return function
        return lambda *args: function(*args, **self.options)


def resolve(name: str) -> Any:
    """The object a "module:attribute" name stands for (the module imported on first use)."""
    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module), attribute)
