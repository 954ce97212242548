"""Reading a sheet part with expat: the handlers that collect its cells.

Any well-formed part is read this way (ctadesk.io.excel.canonical_rows reads the
common form faster); the handlers pass rows and sheet settings to the
`PartReader` that collects them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ctadesk.io.excel.cell_values import DIGITS, ColumnNumbers, DamagedCell

if TYPE_CHECKING:
    from ctadesk.io.excel.sheet_part import PartReader


def cell_handlers(reader: PartReader, prefix: str) -> tuple[Callable, Callable, Callable]:
    """Start, end and character handlers for a part whose elements carry `prefix` ('' or 'x:').

    Written for speed: a cell costs about five calls, so the state lives in closure
    variables and the common elements are tested first.
    """
    CELL, VALUE, FORMULA, ROW = prefix + "c", prefix + "v", prefix + "f", prefix + "row"
    INLINE, TEXT, PHONETIC = prefix + "is", prefix + "t", prefix + "rPh"
    rows, columns, styles, values = reader.rows, reader.columns, reader.styles, reader.values
    value_of = reader.cell_values.value
    column_numbers = ColumnNumbers()
    row = -1
    row_text = ""
    column = -1
    style = "0"  # a cell's own, set by its start tag
    kind = text = formula = formula_kind = shared_index = None
    collecting = 0  # 1: a value or inline text, 2: a formula
    inline = phonetic = master = False

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal row, row_text, column, style, kind, text, formula, formula_kind, shared_index, collecting
        nonlocal inline, phonetic, master
        if name == CELL:
            reference = attrs.get("r")
            if reference is None:
                column += 1
            else:
                letters = reference.rstrip(DIGITS)
                column = column_numbers[letters]
                digits = reference[len(letters):]
                if digits != row_text:
                    if not digits.isdigit() or int(digits) == 0:
                        raise DamagedCell(f"'{reference}' is no cell")
                    row, row_text = int(digits) - 1, digits
            style = attrs.get("s", "0")
            kind = attrs.get("t")
            text = formula = None
        elif name == VALUE:
            collecting, text = 1, ""
        elif name == FORMULA:
            collecting, formula = 2, ""
            formula_kind, shared_index, master = attrs.get("t"), attrs.get("si"), "ref" in attrs
        elif name == ROW:
            number = attrs.get("r")
            row = reader.add_row(number, attrs.get("hidden"), attrs.get("ht"))
            row_text, column = number if number is not None else str(row + 1), -1
        elif name == INLINE:
            inline, text = True, ""
        elif name == TEXT:
            collecting = 1 if inline and not phonetic else 0
        elif name == PHONETIC:
            phonetic = True
        elif name.startswith(prefix):
            reader.sheet_element(name[len(prefix):], attrs)

    def end(name: str) -> None:
        nonlocal collecting, inline, phonetic
        if name == CELL:
            values.append(value_of(kind, text, style, row, column) if text
                          else (text if kind == "inlineStr" else None))
            rows.append(row)
            columns.append(column)
            styles.append(style)
            if formula is not None:
                reader.add_formula(formula, formula_kind, shared_index, master, row, column)
        elif name in (VALUE, TEXT, FORMULA):
            collecting = 0
        elif name == INLINE:
            inline = False
        elif name == PHONETIC:
            phonetic = False

    def data(content: str) -> None:
        nonlocal text, formula
        if collecting == 1 and text is not None:  # text and formula are "" while collected
            text += content
        elif collecting == 2 and formula is not None:
            formula += content

    return start, end, data


