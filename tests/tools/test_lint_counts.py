"""The lint ratchet (tools/lint_counts.py): parsing mypy, judging counts, recording lower ones."""

from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "lint_counts.py"
_spec = importlib.util.spec_from_file_location("lint_counts", SCRIPT)
assert _spec is not None and _spec.loader is not None
lint = sys.modules["lint_counts"] = importlib.util.module_from_spec(_spec)  # dataclasses look it up
_spec.loader.exec_module(lint)

MYPY_OUTPUT = """\
ctadesk/engine/problem.py:214: error: Item "None" of "ndarray | None" has no attribute "size"  [union-attr]
ctadesk/engine/problem.py:220:5: error: Value of type "ndarray | None" is not indexable  [index]
ctadesk/gui/app.py:3: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html
ctadesk/gui/app.py:7: error: Name "x" is not defined  [name-defined]
"""


def counts(ruff: int, **mypy: int) -> lint.Counts:
    return lint.Counts(ruff=ruff, mypy_by_module=collections.Counter(
        {name.replace("__", "/") + ".py": count for name, count in mypy.items()}))


def test_mypy_errors_are_counted_per_module_and_notes_are_not() -> None:
    assert lint.mypy_counts(MYPY_OUTPUT) == {"ctadesk/engine/problem.py": 2, "ctadesk/gui/app.py": 1}


def test_packages_add_up_their_modules() -> None:
    found = counts(0, ctadesk__gui__app=3, ctadesk__gui__window=4, ctadesk__engine__problem=2)
    assert found.mypy == 9
    assert found.mypy_by_package() == {"ctadesk/gui": 7, "ctadesk/engine": 2}


def test_counts_at_or_below_the_baseline_hold() -> None:
    baseline = lint.Baseline(ruff=10, mypy=5, clean=("ctadesk/engine/problem.py",))
    assert lint.failures(counts(10, ctadesk__gui__app=5), baseline) == []
    assert lint.failures(counts(3), baseline) == []


def test_a_count_above_the_baseline_fails() -> None:
    baseline = lint.Baseline(ruff=10, mypy=5)
    reasons = lint.failures(counts(11, ctadesk__gui__app=6), baseline)
    assert len(reasons) == 2
    assert "ruff reports 11" in reasons[0] and "mypy reports 6" in reasons[1]


def test_an_error_in_a_clean_module_fails_even_below_the_total() -> None:
    baseline = lint.Baseline(ruff=10, mypy=50, clean=("ctadesk/engine/problem.py",))
    [reason] = lint.failures(counts(0, ctadesk__engine__problem=1), baseline)
    assert reason.startswith("ctadesk/engine/problem.py has 1 mypy errors")


def test_update_records_the_counts_and_moves_fixed_next_modules_to_clean() -> None:
    baseline = lint.Baseline(ruff=10, mypy=9, clean=("ctadesk/a.py",),
                             next=("ctadesk/gui/app.py", "ctadesk/engine/problem.py"))
    now = lint.updated(counts(7, ctadesk__gui__app=4, ctadesk__gui__window=1), baseline)
    assert (now.ruff, now.mypy) == (7, 5)
    assert now.clean == ("ctadesk/a.py", "ctadesk/engine/problem.py")
    assert now.next == ("ctadesk/gui/app.py", "ctadesk/gui/window.py")


paths = st.lists(st.from_regex(r"ctadesk/[a-z_]{1,8}/[a-z_]{1,8}\.py", fullmatch=True), max_size=5, unique=True)


@given(st.integers(0, 10**6), st.integers(0, 10**6), paths, paths)
def test_the_baseline_file_reads_back_what_was_written(ruff: int, mypy: int, clean: list[str],
                                                       next_: list[str]) -> None:
    baseline = lint.Baseline(ruff=ruff, mypy=mypy, clean=tuple(clean), next=tuple(next_))
    assert lint.Baseline.parse(baseline.text()) == baseline


def test_a_broken_baseline_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "lint_baseline.toml"
    path.write_text("[most]\nruff = 3\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"lint_baseline\.toml: not a lint baseline"):
        lint.Baseline.read(path)


def test_the_recorded_baseline_is_readable() -> None:
    baseline = lint.Baseline.read(lint.BASELINE)
    assert baseline.ruff >= 0 and baseline.mypy >= 0
