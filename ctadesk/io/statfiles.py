"""Microdata from statistical packages: SPSS .sav/.zsav, Stata .dta, SAS .sas7bdat (pyreadstat).

Columns are read as plain arrays (pyreadstat's dict output, no pandas) and go
through ctadesk.io.microdata.microdata_from_columns like CSV and xlsx
microdata.  Value labels become the category labels shown for the codes; with
``codes_from_labels`` the labels themselves are the codes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ctadesk.engine.microdata import Microdata
from ctadesk.io.errors import FileFormatError
from ctadesk.io.microdata import MicrodataSpec, _code_text, microdata_from_columns

READERS = {".sav": "read_sav", ".zsav": "read_sav", ".dta": "read_dta", ".sas7bdat": "read_sas7bdat"}


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


def read_statfile_columns(path: str | Path, usecols: list[str] | None = None) -> StatFileColumns:
    """All (or the named) variables of a .sav/.zsav/.dta/.sas7bdat file."""
    import pyreadstat

    path = Path(path)
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise FileFormatError(f"'{path.suffix}' is not an SPSS, Stata or SAS data file "
                              f"({', '.join(READERS)})", file=path)
    if not path.exists():
        raise FileFormatError("file not found", file=path)
    read = getattr(pyreadstat, reader)
    try:
        try:
            data, meta = read(str(path), usecols=usecols, output_format="dict")
        except UnicodeDecodeError:  # text not in UTF-8: old Stata files are in the Windows encoding
            data, meta = read(str(path), usecols=usecols, output_format="dict", encoding="WINDOWS-1252")
    except pyreadstat.ReadstatError as error:
        raise FileFormatError(f"cannot be read ({error})", file=path) from None
    except pyreadstat.PyreadstatError as error:
        raise FileFormatError(str(error), file=path) from None
    except UnicodeDecodeError:
        raise FileFormatError("cannot be read (its text is neither UTF-8 nor cp1252)", file=path) from None
    value_labels = {}
    for name, labels in (meta.variable_value_labels or {}).items():
        value_labels[name] = {_code_text(_plain(code)): str(label) for code, label in labels.items()}
    variable_labels = dict(zip(meta.column_names, [label or "" for label in meta.column_labels]))
    return StatFileColumns(path, {name: np.asarray(values) for name, values in data.items()},
                           value_labels, variable_labels)


def read_statfile_microdata(path: str | Path, spec: MicrodataSpec,
                            codes_from_labels: bool = False) -> tuple[Microdata, dict[str, dict[str, str]]]:
    """Microdata for the table `spec` describes, and the category labels of its spanning variables."""
    columns = read_statfile_columns(path, usecols=spec.columns)
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
