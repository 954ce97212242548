"""A protected table written as tau-argus writes its outputs (`<WRITETABLE>` output types, manual
§4.6.2 "Save table" and §5.7): 1 CSV (the table as rows and columns), 2 CSV for pivot tables and
3 code-value (one line per cell), 4 SBS (one line per cell with its status, as Eurostat's
structural business statistics take it); type 6, JJ, is ctadesk.io.jj's writer.

Cells come in tau-argus's order: in each dimension a code before its sub-codes, the total first.
Options: AS adds the original value and the status (S safe, U unsafe -- protected by the
adjustment --, P protected as given, E empty), SE leaves empty cells out, FL names the variables
on a first line, QU puts codes in quotes, HL adds each code's level in its hierarchy (SBS).  The
adjusted value's column is called ``<response>_CTA`` and the original ``<response>_Orig``, as
tau-argus names them for a table protected by CTA.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import numpy as np

from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.numbers import finite_values


@dataclasses.dataclass(frozen=True, eq=False)
class OutputTable:
    """What an output shows of one table (arrays per cell, C order of structure)."""

    structure: TableStructure
    response: str
    original: np.ndarray
    published: np.ndarray
    status: np.ndarray
    decimals: int
    protected: bool = True


def preorder(dimension: Dimension) -> list[int]:
    """The dimension's code positions, each code before its sub-codes (the total first)."""
    children: dict[int, list[int]] = {}
    for i, parent in enumerate(dimension.parents.tolist()):
        children.setdefault(parent, []).append(i)
    order: list[int] = []
    stack = list(reversed(children.get(-1, [])))
    while stack:
        code = stack.pop()
        order.append(code)
        stack.extend(reversed(children.get(code, [])))
    return order


def _cells(structure: TableStructure) -> list[tuple[int, tuple[int, ...]]]:
    """(cell, code positions) in tau-argus's order."""
    orders = [preorder(d) for d in structure.dimensions]
    return [(int(np.ravel_multi_index(codes, structure.shape)), codes) for codes in itertools.product(*orders)]


def _number(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


def write_output(path: str | Path, table: OutputTable, kind: int, options: dict[str, bool]) -> Path:
    """Write ``table`` as output type ``kind`` (1-4) with tau-argus's ``options``."""
    path = Path(path)
    finite_values(table.published, "values", path)
    quote = '"' if options.get("QU", True) else ""
    dims = table.structure.dimensions
    name = f"{table.response}_CTA" if table.protected else table.response

    def code(d: int, k: int) -> str:
        return f"{quote}{dims[d].codes[k]}{quote}"

    lines: list[str] = []
    if kind == 1:
        lines = _grid(table, code, quote, name, options)
    else:
        if kind in (2, 3) and options.get("FL", kind == 2):
            header = [f"{quote}{d.name}{quote}" for d in dims] + [f"{quote}{name}{quote}"]
            if options.get("AS") and table.protected:
                header += [f"{quote}{table.response}_Orig{quote}"]
            if options.get("AS"):
                header += [f"{quote}Status{quote}"]
            lines.append(",".join(header))
        for cell, codes in _cells(table.structure):
            if (options.get("SE") or kind == 4) and table.status[cell] == "E":
                continue
            fields = [code(d, k) for d, k in enumerate(codes)]
            if kind == 4 and options.get("HL"):
                fields += [str(int(dims[d].depth[k])) for d, k in enumerate(codes)]
            fields.append(_number(table.published[cell], table.decimals))
            if kind == 4:
                fields.append(table.status[cell])
            elif options.get("AS"):
                if table.protected:
                    fields.append(_number(table.original[cell], table.decimals))
                fields.append(table.status[cell])
            lines.append(",".join(fields))
    if kind not in (1, 2, 3, 4):
        raise FileFormatError(f"output type {kind} is not written here (1 to 4)", file=path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _grid(table: OutputTable, code, quote: str, name: str, options: dict[str, bool]) -> list[str]:
    """Type 1: the last dimension across, the others down (one row per combination of their codes);
    with AS the status follows each value."""
    structure = table.structure
    dims = structure.dimensions
    across = preorder(dims[-1])
    lines = [",".join([f"{quote}{d.name}{quote}" for d in dims[:-1]] + [code(len(dims) - 1, k) for k in across])]
    if len(dims) == 1:
        lines = [f"{quote}{dims[0].name}{quote},{quote}{name}{quote}"]
        for k in across:
            lines.append(f"{code(0, k)},{_number(table.published[k], table.decimals)}"
                         + (f",{table.status[k]}" if options.get("AS") else ""))
        return lines
    for codes in itertools.product(*(preorder(d) for d in dims[:-1])):
        fields = [code(d, k) for d, k in enumerate(codes)]
        for k in across:
            cell = int(np.ravel_multi_index((*codes, k), structure.shape))
            fields.append(_number(table.published[cell], table.decimals))
            if options.get("AS"):
                fields.append(table.status[cell])
        lines.append(",".join(fields))
    return lines
