"""Writing text into a cell so that Excel shows it as text and never runs it as a formula."""

from __future__ import annotations

from openpyxl.cell.cell import Cell

_FORMULA_STARTS = ("=", "+", "-", "@")


def write_text(cell: Cell, text: str) -> Cell:
    """Put text in a cell so that Excel shows it as text, never runs it as a formula."""
    cell.value = text
    if text.startswith(_FORMULA_STARTS):
        cell.data_type = "s"
        cell.quotePrefix = True
    return cell
