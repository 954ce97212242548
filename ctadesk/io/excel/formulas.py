"""Formulas whose result the workbook did not store, computed where they only add and subtract.

A cell shows the result its formula had when the workbook was last saved.
Files written by programs (openpyxl, many report generators) store formulas
without results; ctadesk computes those that add and subtract: SUM of cells
and ranges, and + and - of cells and numbers ('=SUM(B5:B9)', '=B5+B6-B7').
Any other formula without a stored result is kept as unreadable, with the
reason, so that a table using that cell is refused naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from openpyxl.utils import column_index_from_string

from ctadesk.io.excel.cell_values import coordinate
from ctadesk.io.numbers import ZERO_MARKS

_TOKEN = re.compile(r"\s*(?:(?P<sum>SUM\s*\()|(?P<range>\$?[A-Z]{1,3}\$?\d+:\$?[A-Z]{1,3}\$?\d+)"
                    r"|(?P<cell>\$?[A-Z]{1,3}\$?\d+)|(?P<number>\d+(?:\.\d*)?(?:E[+-]?\d+)?)|(?P<op>[-+(),]))",
                    re.IGNORECASE)


class _CannotCompute(Exception):
    """A formula ctadesk does not compute; the message says why."""


def compute_formulas(values: list[list[object]], formulas: Mapping[tuple[int, int], str]) -> dict[tuple[int, int], str]:
    """Put the results of `formulas` (cells without stored results) into `values`, in place.
    Returns (row, column) -> why for the formulas that cannot be computed."""
    results: dict[tuple[int, int], float] = {}
    unreadable: dict[tuple[int, int], str] = {}
    for cell in formulas:  # in sheet order: what a formula refers to above or left of it is done first
        try:
            values[cell[0]][cell[1]] = _result(cell, values, formulas, results, set())
        except RecursionError:
            unreadable[cell] = (f"the formula ={formulas[cell]} has no stored result and refers to a chain of "
                                "formulas too long to compute; open and save the workbook in Excel or "
                                "LibreOffice so that it stores the results")
        except _CannotCompute as why:
            unreadable[cell] = (f"the formula ={formulas[cell]} has no stored result and ctadesk cannot compute "
                                f"it ({why}); open and save the workbook in Excel or LibreOffice so that it "
                                "stores the results, or write the number")
    return unreadable


def _result(cell: tuple[int, int], values: list[list[object]], formulas: Mapping[tuple[int, int], str],
            results: dict[tuple[int, int], float], active: set[tuple[int, int]]) -> float:
    """The result of the formula in cell (its references computed first)."""
    if cell in results:
        return results[cell]
    if cell in active:
        raise _CannotCompute(f"it refers to itself through {coordinate(*cell)}")
    active.add(cell)

    def value(r: int, c: int) -> float:
        if (r, c) in formulas:
            return _result((r, c), values, formulas, results, active)
        held = values[r][c] if r < len(values) and c < len(values[r]) else None
        if held is None or (isinstance(held, str) and (not held.strip() or held.strip() in ZERO_MARKS)):
            return 0.0
        if isinstance(held, (int, float)) and not isinstance(held, bool):
            return float(held)
        raise _CannotCompute(f"{coordinate(r, c)} holds '{held}', not a number")

    results[cell] = _evaluate(formulas[cell], value, (len(values), max(map(len, values))))
    active.discard(cell)
    return results[cell]


def _tokens(formula: str) -> list[tuple[str, str]]:
    """The (kind, text) tokens of a formula: sum, range, cell, number or op."""
    tokens, at = [], 0
    while at < len(formula.rstrip()):
        match = _TOKEN.match(formula, at)
        if match is None or match.lastgroup is None:
            raise _CannotCompute("only SUM and + and - of cells and numbers are computed")
        tokens.append((match.lastgroup, match[match.lastgroup].strip()))
        at = match.end()
    return tokens


def _evaluate(formula: str, value, extent: tuple[int, int]) -> float:
    """formula (without '=') of SUM, +, -, parentheses, cells, ranges and numbers; value(r, c)
    gives a referenced cell's number; ranges are cut to the sheet's extent (rows, columns),
    beyond which every cell is empty."""
    tokens = _tokens(formula)
    at = 0

    def take(kind: str, text: str | None = None) -> bool:
        nonlocal at
        if at < len(tokens) and tokens[at][0] == kind and (text is None or tokens[at][1] == text):
            at += 1
            return True
        return False

    def term() -> float:
        if take("op", "-"):
            return -term()
        if take("op", "+"):
            return term()
        if take("number"):
            return float(tokens[at - 1][1])
        if take("cell"):
            return value(*_position(tokens[at - 1][1]))
        if take("op", "("):
            result = expression()
            if not take("op", ")"):
                raise _CannotCompute("a parenthesis is not closed")
            return result
        if take("sum"):
            return arguments()
        raise _CannotCompute("only SUM and + and - of cells and numbers are computed")

    def arguments() -> float:
        total = 0.0
        while True:
            if take("range"):
                (r0, c0), (r1, c1) = map(_position, tokens[at - 1][1].split(":"))
                total += sum(value(r, c) for r in range(min(r0, r1), min(max(r0, r1) + 1, extent[0]))
                             for c in range(min(c0, c1), min(max(c0, c1) + 1, extent[1])))
            else:
                total += expression()
            if take("op", ")"):
                return total
            if not take("op", ","):
                raise _CannotCompute("only SUM and + and - of cells and numbers are computed")

    def expression() -> float:
        result = term()
        while True:
            if take("op", "+"):
                result += term()
            elif take("op", "-"):
                result -= term()
            else:
                return result

    result = expression()
    if at != len(tokens):
        raise _CannotCompute("only SUM and + and - of cells and numbers are computed")
    return result


def _position(reference: str) -> tuple[int, int]:
    """0-based (row, column) of a reference such as 'B7' or '$B$7'."""
    match = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?(\d+)", reference)
    if match is None or int(match[2]) == 0:
        raise _CannotCompute(f"'{reference}' is no cell")
    return int(match[2]) - 1, column_index_from_string(match[1].upper()) - 1
