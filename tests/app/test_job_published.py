"""Differential test of the whole protection job: what each front end publishes, with the
defaults a statistician leaves, checked by the independent checker of published numbers
(tests/crosscheck/published.py) against the ORIGINAL protection levels.

Front ends: the Python API (ctadesk.app.protect, also on linked tables), the Session (protect,
then the release workbook read back; also on a table imported from an Excel workbook) and the
command line in-process (`ctadesk solve FILE --json`); the app's worker in
tests/gui/test_job_published_gui.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest, protect
from ctadesk.engine.errors import CTAError
from ctadesk.engine.publish.precision import published_decimals
from tests.crosscheck.published import (
    check_claims,
    grid_units,
    l2_off_grid,
    linked_faults,
    linked_office_table,
    office_table,
    published_faults,
    requests,
    runnable,
    tables,
)

#: the sheets a release has beside its table (what was done, never a value of the table)
SIDE_SHEETS = ("Quality", "Method", "Log", "Notes", "About")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), request=requests())
def test_what_the_api_publishes_is_right_at_its_precision_and_the_model_asked(table, request):
    if not runnable(request):
        return
    structure, problem = table
    protection = protect(problem, request)
    check_claims(problem, protection, request, structure.inner_mask())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), distance=st.sampled_from(["l2", "huber"]), weights=st.sampled_from(["table", "inverse"]))
def test_the_model_asked_is_the_model_published(table, distance, weights):
    """Issue 29: fixed-sense L2 and pseudo-Huber were published as the L1 table on the grid (on
    these tables 45 of 59 L2 runs before); the published L2 table is the L2 table on the grid."""
    structure, problem = table
    request = ProtectionRequest(distance=distance, senses="fixed", weights=weights, seed=5, time_limit=10.0)
    protection = protect(problem, request)
    check_claims(problem, protection, request, structure.inner_mask())
    if distance == "huber" and protection.decimals is not None:
        assert protection.result.info["precision_from"].startswith(("a controlled rounding of the huber table",
                                                                    "no rounding of the huber table",
                                                                    "the table was on the grid"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), request=requests())
def test_linked_tables_publish_one_value_per_shared_cell_and_each_table_adds_up(seed, request):
    """Region x Size and Region x Sector protected together (one CTA over the union of their
    relations): each table, rebuilt from the published cells, adds up by its own relations, so
    their shared Region margin has one value; the published numbers pass the checker."""
    if not runnable(request):
        return
    structures, problem = linked_office_table(np.random.default_rng(seed))
    protection = protect(problem, request)
    check_claims(problem, protection, request)
    if protection.result.protected:
        assert not linked_faults(structures, problem, protection.result.values)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), request=requests())
def test_what_the_session_releases_is_the_checked_table_at_its_precision(tmp_path_factory, table, request):
    from openpyxl import load_workbook

    from ctadesk.app.session import Session
    from ctadesk.io.project import Project

    if not runnable(request):
        return
    structure, problem = table
    session = Session(Project.from_problem(problem, structure))
    protection = session.protect(request)
    check_claims(problem, protection, request)
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
@given(table=tables(), request=requests())
def test_what_the_command_line_publishes_is_right_at_its_precision(tmp_path_factory, table, request):
    from ctadesk.cli import main
    from ctadesk.io.jj import write_jj

    if not runnable(request):
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


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), request=requests())
def test_a_table_read_from_excel_is_read_right_or_refused_and_published_right(tmp_path_factory, seed, request):
    """The Excel source as a statistician's workbook: the table written as a grid sheet, imported
    (layout detected), marked sensitive in the Session and protected.  It is read as written --
    values and relations -- or refused naming the file and sheet; its release, in the source's
    layout, holds the checked table."""
    from openpyxl import load_workbook

    from ctadesk.app.files import project_from_excel
    from ctadesk.app.session import Session
    from ctadesk.io.excel import export_table_workbook
    from ctadesk.io.excel.table import import_table

    structure, problem = office_table(np.random.default_rng(seed))
    if len(structure.shape) != 2 or not runnable(request):
        return
    folder = tmp_path_factory.mktemp("excel")
    export_table_workbook(folder / "table.xlsx", structure, problem.values, problem.values, np.zeros(0, int))
    try:
        project = project_from_excel([import_table(folder / "table.xlsx")])
    except CTAError as refused:
        assert "table.xlsx" in str(refused) and "sheet" in str(refused)
        return
    assert project.values.shape == problem.values.shape and np.allclose(project.values, problem.values)
    assert project.relations.shape == problem.relations.shape
    session = Session(project)
    cells = problem.sensitive
    session.edit({"sensitive": (cells, True), "lower_protection": (cells, problem.lower_protection),
                  "upper_protection": (cells, problem.upper_protection)}, "mark the sensitive cells")
    protection = session.protect(request)
    check_claims(problem, protection, request)
    if not protection.result.protected or protection.decimals is None:
        return
    session.export("release", folder / "release.xlsx")
    shown = [cell.value for sheet in load_workbook(folder / "release.xlsx", read_only=True).worksheets
             if sheet.title not in SIDE_SHEETS for row in sheet.iter_rows() for cell in row
             if isinstance(cell.value, (int, float))]
    assert sorted(shown) == pytest.approx(sorted(protection.result.values.tolist()))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_l2_table_of_large_totals_is_rounded_not_replaced(seed):
    """The Newton method stopped at a relative residual of 1e-10 of a relation's scale: a total of
    4e8 off by 0.03, three steps of the 2-decimal grid, and no rounding of the L2 table added up;
    the grid table nearest it in absolute change cost 400 times the L2 optimum (jobcheck seed 3,
    table 2, 3 x 4 x 4).  Now the L2 table is rounded, each cell within a step of its optimum."""
    _, problem = office_table(np.random.default_rng([3, 2]))
    request = ProtectionRequest(distance="l2", senses="fixed", weights="inverse", precision=2, seed=seed)
    protection = protect(problem, request)
    assert protection.result.protected and protection.decimals == 2
    assert "a controlled rounding of the l2 table" in protection.result.message
    assert l2_off_grid(protection, protection.result.values) == 0.0
