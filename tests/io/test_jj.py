from pathlib import Path

import numpy as np
import pytest

from ctadesk.engine.table.generate import cox_table
from ctadesk.io.jj import JJFormatError, read_jj, read_sol, write_jj, write_sol

EXAMPLE = Path(__file__).resolve().parents[3] / "shared" / "formats" / "manual_audit_example.jj"
if not EXAMPLE.exists():
    EXAMPLE = Path("/work/shared/formats/manual_audit_example.jj")


def test_reads_the_manual_audit_example():
    instance = read_jj(EXAMPLE)
    problem = instance.problem
    assert problem.n_cells == 12 and problem.n_relations == 7
    assert problem.sensitive.tolist() == [4, 5, 7, 8]
    assert np.allclose(problem.relations @ problem.values, 0)
    assert problem.upper[0] == 100 and problem.lower_protection.tolist() == [1, 1, 1, 1]
    # cell 7 is 0 with lower bound 0: only the upward safe value fits
    assert problem.effective_senses.tolist() == [0, 0, 1, 0]


def write(tmp_path, text):
    path = tmp_path / "t.jj"
    path.write_text(text)
    return path


SDC_STYLE = """0
3
0 5 1 s 0 100 0 0 0
1 2 1 u 0 100 1 1 0
2 3 1 z 0 100 0 0 0
1
0.0 4 : 0 ( -1 ) 1 ( 1 ) 2 ( 0.5 ) 2 ( 0.5 )
"""


def test_spaced_coefficients_and_duplicate_cells_are_merged(tmp_path):
    problem = read_jj(write(tmp_path, SDC_STYLE)).problem
    assert problem.relations.toarray().tolist() == [[-1.0, 1.0, 1.0]]
    assert problem.fixed.tolist() == [False, False, True]
    assert problem.lower[2] == problem.upper[2] == 3


def test_nonzero_rhs_is_kept(tmp_path):
    text = SDC_STYLE.replace("0.0 4 :", "2 4 :").replace("0 5 1 s", "0 3 1 s")
    assert read_jj(write(tmp_path, text)).problem.rhs.tolist() == [2.0]


def test_relation_to_missing_cell_names_the_line(tmp_path):
    text = SDC_STYLE.replace("2 ( 0.5 ) 2 ( 0.5 )", "2 ( 0.5 ) 7 ( 0.5 )")
    with pytest.raises(JJFormatError, match=r"line 7: relation 0 refers to cell 7"):
        read_jj(write(tmp_path, text))


def test_bad_status_names_the_line(tmp_path):
    with pytest.raises(JJFormatError, match=r"line 4: cell 1 has status 'q'"):
        read_jj(write(tmp_path, SDC_STYLE.replace("1 2 1 u", "1 2 1 q")))


def test_truncated_file_is_reported(tmp_path):
    with pytest.raises(JJFormatError, match="ends"):
        read_jj(write(tmp_path, "\n".join(SDC_STYLE.splitlines()[:4])))


def test_write_then_read_round_trips(tmp_path):
    _, problem = cox_table((4, 5), seed=3)
    path = tmp_path / "cox.jj"
    write_jj(path, problem)
    again = read_jj(path).problem
    assert np.allclose(again.values, problem.values)
    assert np.array_equal(again.sensitive, problem.sensitive)
    assert np.allclose(again.upper_protection, problem.upper_protection)
    assert (again.relations != problem.relations).nnz == 0


def test_sol_round_trips(tmp_path):
    problem = read_jj(EXAMPLE).problem
    adjusted = problem.values + 0.5
    write_sol(tmp_path / "x.sol", problem, adjusted)
    lines = (tmp_path / "x.sol").read_text().splitlines()
    assert lines[4] == "4 6 6.5 1"
    assert np.allclose(read_sol(tmp_path / "x.sol", 12), adjusted)
