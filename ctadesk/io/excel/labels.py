"""From the labels people write beside and above numbers to a `Dimension`.

Each table row (or column) gets a label path, outermost first: from several
label columns, from indentation, or from several header rows (merged cells
span their group).  A total row stands for its group: its node is the path of
its group (the grand total's node is the empty path).  The parent of a node is
the longest proper prefix of its path that is itself a row, so totals first,
totals last, subtotals with or without group headings all give the same tree.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ctadesk.engine.table.structure import Dimension
from ctadesk.io.errors import FileFormatError


def dimension_from_paths(name: str, paths: Sequence[tuple[str, ...]], totals: Sequence[bool],
                         where: Sequence[str], error=FileFormatError) -> Dimension:
    """The dimension whose codes are the rows given by label paths, in display order.

    paths[i]   labels of entry i, outermost first (its own label last)
    totals[i]  entry i is the total of its group (its own label is dropped)
    where[i]   how to name entry i in messages (e.g. 'row 7')
    Codes are the entry's own node label, or the whole path joined by ' / ' where
    the short label would be ambiguous; the grand total keeps its own label.
    """
    paths = [tuple(label for k, label in enumerate(path) if k == 0 or label != path[k - 1])
             for path in paths]  # a label merged across levels counts once
    nodes = [path[:-1] if total else path for path, total in zip(paths, totals)]
    position: dict[tuple[str, ...], int] = {}
    for i, node in enumerate(nodes):
        if node in position:
            j = position[node]
            shown = " / ".join(node) or "the grand total"
            raise error(f"{where[j]} and {where[i]} both stand for '{shown}'; "
                        "mark one of them as a total or correct the labels")
        position[node] = i
    parents = np.full(len(nodes), -1, np.int64)
    for i, node in enumerate(nodes):
        for cut in range(len(node) - 1, -1, -1):
            parent = position.get(node[:cut])
            if parent is not None:
                parents[i] = parent
                break
    short = [node[-1] if node else (paths[i][-1] if paths[i] else "Total") for i, node in enumerate(nodes)]
    counts: dict[str, int] = {}
    for code in short:
        counts[code] = counts.get(code, 0) + 1
    codes = [code if counts[code] == 1 or not node else " / ".join(node)
             for code, node in zip(short, nodes)]
    return Dimension(name, tuple(codes), parents)


def row_paths(labels: Sequence[Sequence[tuple[int, str]]], heading: Sequence[bool],
              totals: Sequence[bool]) -> list[tuple[str, ...]]:
    """Label paths of body rows from their labels and levels.

    labels[i]  the (level, text) pairs written on body row i, left to right; the
               level is the label column's rank times 1000 plus the indentation
    heading[i] row i is a group heading (no cell of its own, but its label nests)
    Returns the path of every row (headings included), labels of enclosing
    groups first, total rows' labels kept (they are dropped as nodes later).
    """
    stack: list[tuple[int, str, bool]] = []
    paths = []
    for row_labels, total in zip(labels, totals):
        if not row_labels:
            paths.append(tuple(text for _, text, _ in stack))
            continue
        first_level = row_labels[0][0]
        while stack and stack[-1][0] >= first_level:
            stack.pop()
        prefix = [text for _, text, is_total in stack if not is_total]
        own = [text for _, text in row_labels]
        paths.append(tuple(prefix + own))
        for k, (level, text) in enumerate(row_labels):
            stack.append((level, text, total and k == len(row_labels) - 1))
    return paths


def column_paths(header: Sequence[Sequence[str | None]], totals: Sequence[bool]) -> list[tuple[str, ...]]:
    """Label paths of data columns from their header cells (outer header row first).

    header[j][h]  label in header row h above column j, merged ranges filled (None: empty)
    An empty outer cell above a labelled inner cell carries the outer label
    from the left (people often write a group name once), until a total column
    closes a group that already had other columns.
    """
    n_levels = len(header[0]) if header else 0
    carry: list[str | None] = [None] * n_levels
    group_size = [0] * n_levels
    paths = []
    for labels, total in zip(header, totals):
        labels = list(labels)
        deepest = max((h for h, text in enumerate(labels) if text), default=-1)
        for h in range(n_levels):
            if labels[h]:
                if labels[h] != carry[h]:
                    group_size[h] = 0
                    carry[h + 1:] = [None] * (n_levels - h - 1)
                carry[h] = labels[h]
            elif h < deepest and carry[h] is not None:
                labels[h] = carry[h]
        for h in range(max(deepest, 0)):
            group_size[h] += 1
            if total and group_size[h] > 1:
                carry[h] = None
        paths.append(tuple(text for text in labels if text))
    return paths
