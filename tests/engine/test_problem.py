import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure


def small(**changes):
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[1, 2, 0], [3, 4, 0], [0, 0, 0]]))
    base = {"values": values, "relations": structure.relations(), "lower": 0, "sensitive": [0],
            "lower_protection": [1], "upper_protection": [1], "cell_label": structure.cell_label}
    base.update(changes)
    return CTAProblem(**base)


def test_problem_is_immutable():
    problem = small()
    with pytest.raises(ValueError):
        problem.values[0] = 5
    with pytest.raises(AttributeError):
        problem.values = np.zeros(9)


def test_negative_protection_level_names_the_cell():
    with pytest.raises(ProblemError, match=r"cell 0 \(R=1, C=1\): lower protection level -1"):
        small(lower_protection=[-1])


def test_bounds_that_exclude_the_value_are_rejected():
    with pytest.raises(ProblemError, match=r"cell 4 .*exclude its value 4"):
        small(upper=np.r_[np.full(4, 100), 3, np.full(4, 100)])


def test_both_safe_values_outside_bounds_is_rejected():
    with pytest.raises(ProblemError, match="both safe values 0 and 2 lie outside"):
        small(lower=np.r_[0.5, np.zeros(8)], upper=np.r_[1.5, np.full(8, 100)])


def test_bound_forces_the_sense():
    problem = small(lower_protection=[2])  # 1 - 2 < 0 = lower bound
    assert problem.forced_senses.tolist() == [1]
    assert problem.effective_senses.tolist() == [1]


def test_given_sense_against_bounds_is_rejected():
    with pytest.raises(ProblemError, match="sense 'down'"):
        small(lower_protection=[2], senses=[-1])


def test_relations_must_cover_every_cell():
    with pytest.raises(ProblemError, match="refer to 5 cells but the table has 9"):
        small(relations=np.ones((1, 5)))


def test_nan_value_is_rejected():
    values = small().values.copy()
    values[3] = np.nan
    with pytest.raises(ProblemError, match="cell 3: value is NaN"):
        small(values=values)


def test_duplicate_relation_entries_are_merged():
    problem = small(relations=np.zeros((0, 9)))
    import scipy.sparse as sp
    A = sp.csr_array((np.array([1.0, 1.0, -1.0]), (np.array([0, 0, 0]), np.array([0, 0, 2]))), shape=(1, 9))
    merged = problem.replace(relations=A, rhs=None).relations
    assert merged[0, 0] == 2.0 and merged.nnz == 2


def test_sensitive_fixed_cell_is_rejected():
    fixed = np.zeros(9, bool)
    fixed[0] = True
    with pytest.raises(ProblemError, match="is sensitive but may not change"):
        small(fixed=fixed)


# ------------------------------------------------- replace against the whole validation
FIELDS = ("values", "relations", "rhs", "lower", "upper", "weights", "sensitive", "lower_protection",
          "upper_protection", "fixed", "senses")
ENTRIES = [-2.0, 0.0, 0.5, 1.0, 3.0]
ODD = [np.nan, np.inf, -np.inf, -1e20, 1e20, -1.0]


@st.composite
def valid_problems(draw):
    """A valid problem of up to 6 cells: bounds, levels, fixed cells and senses where they fit,
    else the same table with none of them."""
    n = draw(st.integers(1, 6))
    m = draw(st.integers(0, 3))
    values = np.array(draw(st.lists(st.sampled_from(ENTRIES), min_size=n, max_size=n)))
    relations = np.array(draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=m * n, max_size=m * n)))
    relations = relations.reshape(m, n)
    rooms = st.lists(st.sampled_from([0.0, 1.0, np.inf]), min_size=n, max_size=n)
    sensitive = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    s = len(sensitive)
    levels = st.lists(st.sampled_from([0.0, 0.5, 2.0] if draw(st.booleans()) else [0.0]), min_size=s, max_size=s)
    fixed = np.zeros(n, bool)
    fixed[draw(st.lists(st.integers(0, n - 1), max_size=2))] = True
    if draw(st.booleans()):
        fixed[sensitive] = False
    fields = {"rhs": relations @ values, "lower": values - draw(rooms), "upper": values + draw(rooms),
              "weights": draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=n, max_size=n)),
              "sensitive": sensitive, "lower_protection": draw(levels), "upper_protection": draw(levels),
              "fixed": fixed, "senses": draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=s, max_size=s))}
    for dropped in ((), ("lower", "upper", "senses"), ("lower", "upper", "senses", "fixed"), tuple(fields)[1:]):
        try:
            return CTAProblem(values, relations, **{k: v for k, v in fields.items() if k not in dropped})
        except ProblemError:
            continue
    raise AssertionError("a table of no bounds and no sensitive cell is valid")


def vectors(length, entries, dtype=float):
    """An array of ``length`` (sometimes one more or less), None, or a scalar."""
    sized = st.integers(max(length - 1, 0), length + 1).flatmap(
        lambda k: st.lists(st.sampled_from(entries), min_size=k, max_size=k))
    return st.one_of(st.none(), st.sampled_from(entries),
                     st.lists(st.sampled_from(entries), min_size=length, max_size=length),
                     sized).map(lambda v: v if v is None else np.array(v, dtype=dtype))


@st.composite
def changes_of(draw, problem):
    """Some fields of ``problem`` changed, to values valid or not."""
    n, m, s = problem.n_cells, problem.n_relations, problem.n_sensitive
    near = [*ENTRIES, *ODD]
    options = {
        "values": st.one_of(st.just(problem.values * 2), vectors(n, near).filter(lambda v: v is not None)),
        "relations": st.integers(0, 3).flatmap(lambda rows: st.lists(
            st.sampled_from([-1.0, 0.0, 1.0, np.nan]), min_size=rows * n, max_size=rows * n).map(
            lambda v: np.array(v).reshape(-1, n))),
        "rhs": vectors(m, [0.0, 1.0, np.nan]),
        "lower": st.one_of(st.just(problem.lower - 1), vectors(n, near)),
        "upper": st.one_of(st.just(problem.upper + 1), vectors(n, near)),
        "weights": vectors(n, [0.0, 1.0, -1.0, np.nan, np.inf]),
        "sensitive": st.lists(st.integers(-1, n), max_size=n + 1),
        "lower_protection": st.one_of(st.just(problem.lower_protection + 1),
                                      vectors(s, [0.0, 0.5, 2.0, 10.0, -1.0, np.nan])),
        "upper_protection": st.one_of(st.just(problem.upper_protection + 1),
                                      vectors(s, [0.0, 0.5, 2.0, 10.0, -1.0, np.nan])),
        "fixed": vectors(n, [False, True], dtype=bool),
        "senses": vectors(s, [-1, 0, 1, 2], dtype=np.int8),
    }
    names = draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3, unique=True))
    return {name: draw(options[name]) for name in names}


def outcome(make):
    try:
        return make()
    except (ProblemError, ValueError, TypeError) as error:
        return f"{type(error).__name__}: {error}"


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_replace_refuses_and_accepts_what_the_whole_validation_does(data):
    problem = data.draw(valid_problems())
    changes = data.draw(changes_of(problem))
    whole = outcome(lambda: CTAProblem(**{**{name: getattr(problem, name) for name in FIELDS}, **changes}))
    replaced = outcome(lambda: problem.replace(**changes))
    if isinstance(whole, str):
        assert replaced == whole
        return
    assert not isinstance(replaced, str), replaced
    for name in FIELDS[2:]:
        assert np.array_equal(getattr(replaced, name), getattr(whole, name)), name
        assert getattr(replaced, name).dtype == getattr(whole, name).dtype
        assert not getattr(replaced, name).flags.writeable
    assert np.array_equal(replaced.values, whole.values)
    assert (replaced.relations != whole.relations).nnz == 0
    for mine, theirs in zip(replaced.safe_value_fits(), whole.safe_value_fits(), strict=True):
        assert np.array_equal(mine, theirs)
    assert np.array_equal(replaced.effective_senses, whole.effective_senses)


def test_replace_keeps_the_original_and_shares_what_did_not_change():
    problem = small()
    halved = problem.replace(values=problem.values / 2, lower=problem.lower / 2)
    assert problem.values[0] == 1 and halved.values[0] == 0.5
    assert halved.relations is problem.relations and halved.weights is problem.weights
    assert halved.cell_label is problem.cell_label
    with pytest.raises(ValueError):
        halved.values[0] = 5


def test_replace_of_an_unknown_field_is_refused():
    with pytest.raises(TypeError, match="no field 'value'"):
        small().replace(value=np.zeros(9))


def test_replace_with_a_level_its_bounds_cannot_hold_names_the_cell():
    with pytest.raises(ProblemError, match=r"cell 0 \(R=1, C=1\): both safe values"):
        small().replace(lower_protection=[5], upper=np.r_[1.5, np.full(8, 100)])


@pytest.mark.parametrize("level", ["lower_protection", "upper_protection"])
def test_replace_refuses_a_level_on_a_fixed_cell(level):
    problem = CTAProblem([1.0, 2.0], np.zeros((0, 2)), sensitive=[0], fixed=[True, False])
    with pytest.raises(ProblemError, match="cell 0 is sensitive but may not change"):
        problem.replace(**{level: [1.0]})
