"""Microdata from statistical packages: SPSS, Stata, SAS and SAS transport files (pyreadstat);
the caller names the package (ctadesk.app.formats knows which files are whose).

Columns are read as plain arrays (pyreadstat's dict output, no pandas) and go
through ctadesk.io.microdata.microdata_from_columns like CSV and xlsx
microdata.  Value labels become the category labels shown for the codes; with
``codes_from_labels`` the labels themselves are the codes.

Files are untrusted input: at most MAX_VALUES values (records x variables read)
are read -- refused from the record count the file declares before reading, and
a file that declares none (or too few) is cut there -- so a compressed .zsav or
.sas7bdat cannot unpack without bound; text that is not in the file's declared
encoding is read as cp1252 (old SPSS and Stata files are in the Windows
encoding); a damaged file is one line naming it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ctadesk.engine.table.microdata import Microdata
from ctadesk.io.errors import FileFormatError
from ctadesk.io.microdata import MicrodataSpec, _code_text, microdata_from_columns

#: pyreadstat's reader of each package's files (which files are whose: ctadesk.app.formats)
PACKAGES = {"spss": "read_sav", "stata": "read_dta", "sas": "read_sas7bdat", "xport": "read_xport"}
#: the most values (records x variables read) read from one file
MAX_VALUES = 20_000_000


@dataclasses.dataclass(frozen=True)
class StatFileColumns:
    """The variables of a statistical-package file.

    columns          name -> values (numbers as floats with NaN missing, strings as str)
    value_labels     name -> {code (as text): label}
    variable_labels  name -> its descriptive label ('' if none)
    """

    path: Path
    columns: Mapping[str, np.ndarray]
    value_labels: Mapping[str, Mapping[str, str]]
    variable_labels: Mapping[str, str]


def read_statfile_columns(path: str | Path, package: str, usecols: list[str] | None = None) -> StatFileColumns:
    """All (or the named) variables of a file of ``package`` (a key of PACKAGES)."""
    path = Path(path)
    reader = _reader(package)
    if not path.exists():
        raise FileFormatError("file not found", file=path)
    _, meta = _read(reader, path, metadataonly=True, output_format="dict")
    records = MAX_VALUES // max(len(usecols) if usecols else meta.number_columns or 1, 1)
    if (meta.number_rows or 0) > records:
        raise _too_large(path, records)
    data, meta = _read(reader, path, usecols=usecols, output_format="dict", row_limit=records + 1)
    if any(len(values) > records for values in data.values()):
        raise _too_large(path, records)
    value_labels = {}
    for name, labels in (meta.variable_value_labels or {}).items():
        value_labels[name] = {_code_text(_plain(code)): str(label) for code, label in labels.items()}
    variable_labels = dict(zip(meta.column_names, [label or "" for label in meta.column_labels]))
    return StatFileColumns(path, {name: np.asarray(values) for name, values in data.items()},
                           value_labels, variable_labels)


def statfile_columns(path: str | Path, package: str) -> list[str]:
    """The variable names of a file of ``package`` (its metadata only)."""
    path = Path(path)
    _, meta = _read(_reader(package), path, metadataonly=True, output_format="dict")
    return list(meta.column_names)


def _reader(package: str) -> str:
    if package not in PACKAGES:
        raise ValueError(f"unknown statistical package '{package}'; ctadesk reads {', '.join(PACKAGES)}")
    return PACKAGES[package]


def _read(reader: str, path: Path, **options: object) -> tuple[Any, Any]:
    """pyreadstat's reader on path: (data, metadata); text that does not decode in the file's
    encoding is read again as cp1252; every failure a FileFormatError naming the file."""
    import pyreadstat

    read = getattr(pyreadstat, reader)
    try:
        try:
            return read(str(path), **options)
        except (UnicodeDecodeError, pyreadstat.ReadstatError) as error:
            if not isinstance(error, UnicodeDecodeError) and "encoding" not in str(error):
                raise
            return read(str(path), encoding="WINDOWS-1252", **options)
    except pyreadstat.ReadstatError as error:
        raise FileFormatError(f"cannot be read ({error})", file=path) from None
    except (pyreadstat.PyreadstatError, OSError) as error:
        raise FileFormatError(str(error), file=path) from None
    except UnicodeDecodeError:
        raise FileFormatError("cannot be read (its text is neither UTF-8 nor cp1252)", file=path) from None


def _too_large(path: Path, records: int) -> FileFormatError:
    return FileFormatError(f"more than {records:,} records of the variables read, beyond the {MAX_VALUES:,} "
                           "values ctadesk reads", file=path)


def read_statfile_microdata(path: str | Path, spec: MicrodataSpec, package: str,
                            codes_from_labels: bool = False) -> tuple[Microdata, dict[str, dict[str, str]]]:
    """Microdata for the table `spec` describes from a file of ``package``, and the category labels
    of its spanning variables."""
    columns = read_statfile_columns(path, package, usecols=spec.columns)
    data: dict[str, list] = {}
    for name, values in columns.columns.items():
        items = [None if _missing(v) else _plain(v) for v in values.tolist()]
        if name in spec.spanning:
            labels = columns.value_labels.get(name, {})
            codes = [None if v is None else _code_text(v) for v in items]
            items = [labels.get(c, c) if codes_from_labels and c is not None else c for c in codes]
        data[name] = items
    category_labels = {name: dict(columns.value_labels.get(name, {})) for name in spec.spanning}
    if codes_from_labels:
        category_labels = {name: {label: label for label in labels.values()}
                           for name, labels in category_labels.items()}
    microdata = microdata_from_columns(data, spec, source=path, first_row=1, row_word="record")
    return microdata, category_labels


def _plain(value):
    """Integral floats as ints (SPSS stores codes 1, 2 as 1.0, 2.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value == ""
