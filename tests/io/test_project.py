import zipfile

import numpy as np
import pytest

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import verify
from ctadesk.engine.result import CTAResult, Status
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.guess import guess_structure
from ctadesk.io.project import Project, ProjectError, load_project, save_project


def _project():
    structure, problem = cox_table((4, 3), seed=2)
    return Project.from_problem(problem, structure)


def test_a_project_round_trips_table_status_rules_options_result_and_log(tmp_path):
    project = _project()
    project.senses[project.sensitive.nonzero()[0][0]] = -1
    project.fixed[np.flatnonzero(~project.sensitive)[0]] = True
    project.flagged_by[project.sensitive.nonzero()[0][1]] = "p%"
    project.rules = {"p%": {"p": 15}}
    project.options = {"method": "milp", "time_limit": float("inf"), "gap": 1e-4}
    adjusted = project.values + 0.5
    project.result = CTAResult("milp", Status.TIME_LIMIT, "stopped", values=adjusted, senses=np.ones(4, np.int8),
                               objective=12.5, bound=10.0, gap=0.2, log="line 1\nline 2",
                               timings={"solve": 1.5}, verification=verify(project.to_problem(), adjusted))
    project.log = "line 1\nline 2"
    path = tmp_path / "job.ctaproj"
    save_project(path, project)
    again = load_project(path)
    for name in ("values", "lower", "upper", "weights", "sensitive", "lower_protection", "upper_protection",
                 "fixed", "senses", "rhs", "flagged_by"):
        assert np.array_equal(getattr(again, name), getattr(project, name)), name
    assert (again.relations != project.relations).nnz == 0
    assert again.structure.shape == (5, 4) and again.structure.cell_label(7) == project.structure.cell_label(7)
    assert again.rules == {"p%": {"p": 15}} and again.options["time_limit"] == float("inf")
    result = again.result
    assert result.status is Status.TIME_LIMIT and result.bound == 10.0 and result.timings == {"solve": 1.5}
    assert np.array_equal(result.values, adjusted) and result.senses.tolist() == [1, 1, 1, 1]
    assert result.verification == project.result.verification
    assert again.log == "line 1\nline 2"


def test_to_problem_gives_back_the_problem_the_project_was_made_from():
    structure, problem = cox_table((4, 3), seed=2)
    again = Project.from_problem(problem, structure).to_problem()
    assert np.array_equal(again.sensitive, problem.sensitive)
    assert np.array_equal(again.upper_protection, problem.upper_protection)
    assert np.array_equal(again.upper, problem.upper)
    assert again.describe_cell(5) == problem.describe_cell(5)


def test_the_layout_of_a_2d_and_a_3d_table_is_recognised_from_its_relations_alone():
    for shape in ((20, 20), (3, 5), (2, 3, 4)):
        _, problem = cox_table(shape, seed=0)
        bare = CTAProblem(values=problem.values, relations=problem.relations[np.random.default_rng(1).permutation(
            problem.n_relations)] * -1.0)
        assert guess_structure(bare).shape == tuple(s + 1 for s in shape)


def test_a_problem_that_is_no_grid_is_shown_as_a_list_of_cells():
    problem = CTAProblem(values=[1.0, 2.0, 3.0], relations=np.array([[1.0, 1.0, -1.0]]))
    structure = guess_structure(problem)
    assert structure.shape == (3,) and structure.dimensions[0].codes == ("0", "1", "2")


def test_a_file_that_is_not_a_project_is_reported_by_name(tmp_path):
    path = tmp_path / "table.ctaproj"
    path.write_text("value\n1\n")
    with pytest.raises(ProjectError, match=r"table\.ctaproj is not a ctadesk project file"):
        load_project(path)


def test_a_damaged_project_is_reported_not_crashed_on(tmp_path):
    path = tmp_path / "job.ctaproj"
    save_project(path, _project())
    with zipfile.ZipFile(path) as archive:
        meta = archive.read("project.json").replace(b'"n_cells": 20', b'"n_cells": 21')
        arrays = archive.read("arrays.npz")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("project.json", meta)
        archive.writestr("arrays.npz", arrays)
    with pytest.raises(ProjectError, match="do not all have 21 entries"):
        load_project(path)


def test_per_cell_statistics_and_the_stale_flag_are_saved_with_the_project(tmp_path):
    from ctadesk.engine.table.statistics import CellStatistics

    project = _project()
    n = project.n_cells
    top = np.column_stack([np.arange(n, dtype=float), np.full(n, np.nan)])
    project.statistics = CellStatistics(project.values, np.arange(n) % 4, top,
                                        holding_freq=np.ones(n, np.int64), holding_top=top[:, :1])
    project.result_stale = True
    save_project(tmp_path / "s.ctaproj", project)
    again = load_project(tmp_path / "s.ctaproj")
    assert again.result_stale
    assert np.array_equal(again.statistics.freq, np.arange(n) % 4)
    assert np.array_equal(again.statistics.top, top, equal_nan=True)
    assert again.statistics.has_holdings and not again.statistics.has_weights


def test_a_project_without_statistics_reopens_without_them(tmp_path):
    save_project(tmp_path / "p.ctaproj", _project())
    again = load_project(tmp_path / "p.ctaproj")
    assert again.statistics is None and not again.result_stale


def test_the_response_a_table_was_tabulated_from_is_saved_and_a_table_read_as_one_has_none(tmp_path):
    project = _project()
    save_project(tmp_path / "p.ctaproj", project)
    assert load_project(tmp_path / "p.ctaproj").response is None
    project.response = "turnover"
    save_project(tmp_path / "p.ctaproj", project)
    assert load_project(tmp_path / "p.ctaproj").response == "turnover"


def test_a_project_with_nan_values_is_refused_and_1e20_bounds_are_no_bounds(tmp_path):
    project = _project()
    project.upper = np.full(project.n_cells, 1e20)
    save_project(tmp_path / "bounds.ctaproj", project)
    assert np.all(load_project(tmp_path / "bounds.ctaproj").upper == np.inf)
    project.values[3] = np.nan
    save_project(tmp_path / "nan.ctaproj", project)
    with pytest.raises(ProjectError, match="values of cell 3 is NaN"):
        load_project(tmp_path / "nan.ctaproj")


def test_the_shadow_variable_is_saved_with_the_statistics(tmp_path):
    from ctadesk.engine.table.statistics import CellStatistics

    project = _project()
    n = project.n_cells
    top = np.column_stack([np.arange(n, dtype=float), np.zeros(n)])
    project.statistics = CellStatistics(project.values, np.full(n, 3), top, shadow=project.values * 2)
    save_project(tmp_path / "shadow.ctaproj", project)
    assert np.array_equal(load_project(tmp_path / "shadow.ctaproj").statistics.shadow, project.values * 2)


def test_the_versions_that_computed_the_result_are_saved_with_the_project(tmp_path):
    project = _project()
    project.versions = {"ctadesk": "0.1.0", "highspy": "1.16.0", "clarabel": "0.11.1"}
    save_project(tmp_path / "job.ctaproj", project)
    assert load_project(tmp_path / "job.ctaproj").versions == project.versions
    save_project(tmp_path / "none.ctaproj", _project())
    assert load_project(tmp_path / "none.ctaproj").versions == {}


@pytest.mark.parametrize("shape", [(4, 3), (3, 4, 2), (6, 1)])
def test_relations_are_named_by_the_layout_only_where_they_are_its_relations(shape):
    structure, problem = cox_table(shape, seed=3)
    project = Project.from_problem(problem, structure)
    assert project.to_problem().describe_relation(0) == f"relation 0 ({structure.relation_label(0)})"
    # one relation more than the layout's: named by number alone
    extra = np.zeros((1, problem.n_cells))
    extra[0, :2] = 1.0
    project.relations = type(project.relations)(np.vstack([project.relations.toarray(), extra]))
    project.rhs = np.append(project.rhs, project.values[:2].sum())
    assert project.to_problem().describe_relation(0) == "relation 0"
