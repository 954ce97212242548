"""A toy table format for the registry tests: a file of lines 'code value', a star before the value
marking a sensitive cell (protected by 20% of its value either way); the total is the sum.

    north 120
    south *15
    east 40

It is registered by one FileFormat entry (``registered``) and read by one function (``read_toy``);
nothing else in ctadesk is told about it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ctadesk.app.formats import Answers, FileFormat, registry
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.project import Project

TOY = FileFormat("toy", "Toy tables", (".toy",), table="tests.app.toy_format:read_toy")


def read_toy(path: Path, answers: Answers) -> Project:
    """The table of a toy file: its cells, then their total."""
    codes, values, sensitive = [], [], []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        code, value = line.split()
        sensitive.append(value.startswith("*"))
        codes.append(code)
        values.append(float(value.lstrip("*")))
    parents = np.array([len(codes)] * len(codes) + [-1])
    structure = TableStructure((Dimension("Region", (*codes, "Total"), parents),))
    cells = np.array([*values, sum(values)])
    flagged = np.flatnonzero(sensitive)
    problem = CTAProblem(cells, structure.relations(), sensitive=flagged, lower=0.0,
                         lower_protection=0.2 * cells[flagged], upper_protection=0.2 * cells[flagged])
    return Project.from_problem(problem, structure)


@pytest.fixture
def toy_format(monkeypatch: pytest.MonkeyPatch) -> FileFormat:
    """The toy format, registered for one test: one entry in the registry."""
    monkeypatch.setattr(registry, "FORMATS", (*registry.FORMATS, TOY))
    return TOY


def write_toy(path: Path) -> Path:
    path.write_text("north 120\nsouth *15\neast 40\nwest 75\n", encoding="utf-8")
    return path
