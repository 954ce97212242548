"""From a cell's XML to what the cell holds: its column from the letters of its reference, its
value from its type and text; and back from a cell's position to its reference (`coordinate`).

Values are what Excel shows: numbers as int or float (as openpyxl reads them),
numbers in a date or duration format as datetime or timedelta, booleans,
shared and inline strings, error values ('#N/A') as str.
"""

from __future__ import annotations

from openpyxl.utils import column_index_from_string, get_column_letter
from openpyxl.utils.datetime import from_excel, from_ISO8601

from ctadesk.io.excel.package import WorkbookFile

#: how XML writes true
TRUE = ("1", "true")
#: the digits of a cell reference ('B12'), after its column letters
DIGITS = "0123456789"


class DamagedCell(ValueError):
    """A cell whose content cannot be read (the message names it)."""


def coordinate(row: int, column: int) -> str:
    """Excel name of the 0-based (row, column), e.g. (6, 2) -> 'C7'."""
    return f"{get_column_letter(column + 1)}{row + 1}"


class ColumnNumbers(dict):
    """Column letters -> 0-based column number, computed once per letters."""

    def __missing__(self, letters: str) -> int:
        if not letters.isalpha() or not letters.isupper() or len(letters) > 3:
            raise DamagedCell(f"'{letters}' is no column")
        self[letters] = column_index_from_string(letters) - 1
        return self[letters]


class CellValues:
    """Cell text to value, as Excel shows it (see the module docstring)."""

    def __init__(self, workbook: WorkbookFile) -> None:
        self.strings = workbook.strings
        self.epoch = workbook.epoch
        self.dates = {str(style): kind for style, kind in workbook.formats.dates.items()}

    def value(self, kind: str | None, text: str, style: str, row: int, column: int) -> object:
        """The value of a cell of type `kind` holding `text` (not empty) in style `style`."""
        try:
            if kind is None or kind == "n":
                number = float(text) if "." in text or "e" in text or "E" in text else int(text)
                if style in self.dates:
                    return _date(number, self.dates[style], self.epoch)
                return number
            if kind == "s":
                return self.strings[int(text)]
            if kind == "b":
                return text.strip() in TRUE
            if kind == "d":
                return from_ISO8601(text)
        except (ValueError, IndexError, OverflowError):
            raise DamagedCell(f"cell {coordinate(row, column)} holds '{text[:40]}', which its type "
                              f"'{kind or 'n'}' does not allow") from None
        return text  # str, inlineStr, e: texts and error values


def _date(number: float, kind: str, epoch) -> object:
    """A number in a date or duration format as Excel shows it (the number when out of range)."""
    try:
        return from_excel(number, epoch, timedelta=kind == "timedelta")
    except (ValueError, OverflowError):
        return number
