"""Attacker intervals worked out by hand on the thesis 3 x 4 example and a 3 x 3 table."""

import numpy as np
import pytest

from ctadesk.engine.audit import AttackerKnowledge, Capacity, Release, audit
from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem

from .tables import MANUAL, THESIS, THESIS_L1, manual_problem, missing, thesis_problem


def audit_thesis(**knowledge):
    return audit(thesis_problem(), Release.adjusted(THESIS_L1.reshape(-1)), AttackerKnowledge(**knowledge))


def test_with_only_totals_and_signs_known_each_cell_reaches_its_smaller_margin():
    # (1,1) <= min(row 45, column 28); (3,4) <= min(row 46, column 37); either can be 0
    result = audit_thesis()
    assert result.lower == pytest.approx([0, 0])
    assert result.upper == pytest.approx([28, 37])
    assert result.safe


def test_a_known_capacity_narrows_the_intervals_to_what_the_columns_allow():
    # capacity 5 on the published neighbours: column 1 gives (1,1) = 28 - a21 - a31 with
    # a21 in [5, 15] and a31 in [0, 10], so [3, 23]; column 4 gives (3,4) = 37 - a14 - a24
    # with a14 in [1, 11] and a24 in [8, 18], so [8, 28]; the rows allow more
    result = audit_thesis(capacity=Capacity("abs", 5))
    assert result.lower == pytest.approx([3, 8], abs=1e-6)
    assert result.upper == pytest.approx([23, 28], abs=1e-6)
    assert result.safe   # (3,4)'s lower end 8 is exactly 13 - 5: protected, just


def test_a_known_percentage_singles_out_a_release_at_exactly_the_level():
    # (3,4) = 13 published as 18 = 13 + 5 with a level of 5/13 of its value; a release of whole
    # numbers stands for [17.5, 18.5]: moved up it came from [17.5, 18.5] / (1 + 5/13) =
    # [12.64, 13.36], which holds 13; moved down from at least 17.5 / (1 - 5/13) = 28.4 > 28,
    # outside the interval, so the attacker knows it moved up and came from within 0.36 of 13;
    # (1,1) keeps two candidates, about 13 / 1.3 = 10 and 13 / 0.7 = 18.6, both inside [3, 23]
    result = audit_thesis(capacity=Capacity("abs", 5), percentage_known=True)
    assert result.verdicts.singled_out.tolist() == [False, True]
    assert result.lower == pytest.approx([3, 8], abs=1e-6)
    assert result.upper == pytest.approx([23, 18.5 / (1 + 5 / 13)], abs=1e-6)
    assert result.at_risk.tolist() == [False, True]
    assert result.reasons(1) == ["upper end too close", "original singled out by the known percentage"]


def test_a_capacity_the_release_breaks_is_refused_naming_the_cell():
    with pytest.raises(ProblemError, match=r"R=3, C=1.*moved from 10 to 5"):
        audit_thesis(capacity=Capacity("abs", 4))


def test_publishing_the_original_discloses_a_cell_alone_in_its_row():
    # with no movement allowed, (1,1) is the only unknown of row 1: 45 - 15 - 11 - 9 = 10
    result = audit(thesis_problem(), Release.adjusted(THESIS.reshape(-1)),
                   AttackerKnowledge(capacity=Capacity("abs", 0)))
    assert result.lower == pytest.approx([10, 13]) and result.upper == pytest.approx([10, 13])
    assert result.verdicts.exact.all() and result.verdicts.published_inside.all()
    assert result.n_at_risk == 2


def test_a_single_suppression_in_a_row_is_exact_disclosure():
    result = audit(manual_problem(), Release(MANUAL.reshape(-1), missing((4, 4), (0, 0))))
    assert result.lower == pytest.approx([20]) and result.upper == pytest.approx([20])
    assert result.verdicts.exact.tolist() == [True]
    assert not result.verdicts.published_inside.any()   # not published at all


def test_a_rectangle_of_suppressions_leaves_the_interval_its_corners_allow():
    # (I,A) = a, (I,B) = 70 - a, (II,A) = 28 - a, (II,B) = a - 1, all >= 0: a in [1, 28]
    release = Release(MANUAL.reshape(-1), missing((4, 4), (0, 0), (0, 1), (1, 0), (1, 1)))
    result = audit(manual_problem(levels=5), release)
    assert (result.lower[0], result.upper[0]) == pytest.approx((1, 28))
    assert result.safe
    wider = audit(manual_problem(levels=10), release)   # 28 < 20 + 10
    assert wider.verdicts.upper_short.tolist() == [True] and not wider.verdicts.lower_short.any()


def test_relative_width_and_summary_report_the_narrowest_cell():
    result = audit_thesis(capacity=Capacity("abs", 5))
    assert result.relative_width == pytest.approx([20 / 10, 20 / 13], abs=1e-6)
    assert result.smallest_relative_width() == (pytest.approx(20 / 13, abs=1e-6), 13)
    assert result.summary().startswith("2 sensitive cell(s) audited, 0 at risk; smallest relative interval width 1.538")


def test_a_table_that_does_not_add_up_is_refused_naming_the_relation():
    values = THESIS.reshape(-1).copy()
    values[0] += 1
    problem = thesis_problem(values=values, fixed=None, lower=0.0)
    with pytest.raises(ProblemError, match="does not add up in the original table"):
        audit(problem, Release.adjusted(values))


def test_a_cell_in_no_relation_keeps_its_a_priori_bounds():
    problem = CTAProblem(np.array([1.0, 2.0, 3.0, 7.0]), np.array([[1.0, 1.0, -1.0, 0.0]]), lower=0.0,
                         upper=[10, 10, 10, 50], sensitive=[3], lower_protection=[1], upper_protection=[1])
    result = audit(problem, Release(np.array([1.0, 2.0, 3.0, 0.0]), np.array([False, False, False, True])))
    assert (result.lower[0], result.upper[0]) == (0, 50)
