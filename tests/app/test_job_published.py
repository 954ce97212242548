"""Differential test of the whole protection job: what each front end publishes, with the
defaults a statistician leaves, checked by the independent checker of published numbers
(tests/crosscheck/published.py) against the ORIGINAL protection levels.

Front ends: the Python API (ctadesk.app.protect), the Session (protect, then the release
workbook read back) and the command line in-process (`ctadesk solve FILE --json`).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest, protect
from ctadesk.engine.errors import CTAError
from ctadesk.engine.precision import published_decimals
from ctadesk.engine.result import Status
from tests.crosscheck.checker import table_senses, weighted_l1
from tests.crosscheck.published import grid_units, l2_fixed, office_table, published_faults

GAP = 1e-4
#: the sheets a release has beside its table (what was done, never a value of the table)
SIDE_SHEETS = ("Quality", "Method", "Log", "Notes", "About")


def tables():
    """Office tables (tests/crosscheck/published.office_table) drawn by seed."""
    return st.integers(0, 2**32 - 1).map(lambda seed: office_table(np.random.default_rng(seed)))


def _check_claims(problem: CTAProblem, protection, request: ProtectionRequest) -> None:
    """The published table against the checker; the model's table on the grid; no claim stronger
    than proven."""
    result = protection.result
    if not result.protected:
        return
    x = result.values
    faults = published_faults(problem, x, protection.decimals)
    assert not faults, faults
    if request.precision != "full":
        # published at a precision, or said in one line why not (and then not releasable)
        assert protection.decimals is not None or any("not rounded" in line for line in protection.notes)
    if protection.decimals is not None and request.precision != "auto":
        assert protection.decimals == int(request.precision)
    if request.distance == "l2" and request.senses == "fixed" and protection.decimals is not None:
        solved = protection.solved
        reference = l2_fixed(solved, table_senses(solved, x))
        if reference is not None:
            step = 10.0 ** -protection.decimals
            far = np.abs(x - reference) - step
            assert np.all(far <= 1e-6 * np.maximum(1.0, np.abs(reference))), \
                f"published L2 table {far.max():.3g} past one grid step from the L2 optimum"
    if result.status is Status.OPTIMAL and request.distance in ("l1", "soc") and result.bound is not None:
        # the bound proves the published table within the gap
        assert weighted_l1(protection.required, x) * (1 - GAP) <= result.bound * (1 + 1e-6) + 1e-9 * abs(result.bound) \
            or math.isclose(result.gap or 0.0, 0.0, abs_tol=GAP)


requests = st.builds(
    ProtectionRequest,
    distance=st.sampled_from(["l1", "l2", "huber", "soc"]),
    senses=st.sampled_from(["optimal", "fixed", "heuristic"]),
    weights=st.sampled_from(["table", "unit", "inverse"]),
    widen=st.booleans(),
    seed=st.just(5),
    precision=st.sampled_from(["auto", "auto", 0, 2, "full"]),
    time_limit=st.just(10.0),
)


def _runnable(request: ProtectionRequest) -> bool:
    """Models the registry has (exact and heuristic senses are L1's)."""
    return request.senses == "fixed" or request.distance in ("l1", "soc")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), request=requests)
def test_what_the_api_publishes_is_right_at_its_precision_and_the_model_asked(table, request):
    if not _runnable(request):
        return
    _, problem = table
    protection = protect(problem, request)
    _check_claims(problem, protection, request)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), request=requests)
def test_what_the_session_releases_is_the_checked_table_at_its_precision(tmp_path_factory, table, request):
    from openpyxl import load_workbook

    from ctadesk.app.session import Session
    from ctadesk.io.project import Project

    if not _runnable(request):
        return
    structure, problem = table
    session = Session(Project.from_problem(problem, structure))
    protection = session.protect(request)
    _check_claims(problem, protection, request)
    path = tmp_path_factory.mktemp("release") / "release.xlsx"
    if not protection.result.protected:
        return
    if request.precision != "full" and protection.decimals is None:
        with pytest.raises(CTAError, match="precision"):
            session.export("release", path)
        return
    session.export("release", path)
    if protection.decimals is None:
        return
    shown = [cell for sheet in load_workbook(path, read_only=True).worksheets if sheet.title not in SIDE_SHEETS
             for row in sheet.iter_rows() for cell in row if isinstance(cell.value, (int, float))]
    assert shown, "no number in the release"
    assert all(grid_units(np.array([cell.value], float), protection.decimals) is not None for cell in shown)
    formats = {cell.number_format for cell in shown}
    wanted = "#,##0" + ("." + "0" * protection.decimals if protection.decimals else "")
    assert wanted in formats


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), request=requests)
def test_what_the_command_line_publishes_is_right_at_its_precision(tmp_path_factory, table, request):
    from ctadesk.cli import main
    from ctadesk.io.jj import write_jj

    if not _runnable(request):
        return
    _, problem = table
    folder = tmp_path_factory.mktemp("cli")
    write_jj(folder / "t.jj", problem)
    argv = ["solve", str(folder / "t.jj"), "--json", str(folder / "out.json"), "--distance", request.distance,
            "--senses-by", request.senses, "--weights", request.weights if request.weights != "table" else "unit",
            "--precision", str(request.precision), "--time-limit", "10", "--seed", "5"]
    argv += [] if request.widen else ["--no-widen"]
    try:
        code = main(argv)
    except CTAError as refused:      # a precision asked by number that no table meets: said, nothing published
        assert "precision" in str(refused)
        return
    document = json.loads((folder / "out.json").read_text())
    if not document["protected"]:
        assert code != 0
        return
    x = np.asarray(document["values"], float)
    decimals = (published_decimals(problem.values) if request.precision == "auto" else
                None if request.precision == "full" else int(request.precision))
    if decimals is not None and grid_units(x, decimals) is None:
        decimals = next((d for d in range(decimals, 7) if grid_units(x, d) is not None), None)
    assert not published_faults(problem, x, decimals), published_faults(problem, x, decimals)
