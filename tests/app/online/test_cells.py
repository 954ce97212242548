"""A cell's key is its definition: the same in every table it appears in (Castro & González 2011, §4)."""

from ctadesk.app.online import cell_key, cell_keys
from ctadesk.engine.table.structure import Dimension, TableStructure

REGION = Dimension.from_levels("Region", [1, 2, 2], ["N", "N1", "N2"])
SIZE = Dimension.flat("Size", ["1", "2"])


def test_a_cell_at_a_total_has_the_key_of_the_smaller_table():
    two_way = dict(zip(cell_keys(TableStructure((REGION, SIZE))), range(12)))
    one_way = cell_keys(TableStructure((REGION,)))
    assert one_way == ["", "Region=N", "Region=N1", "Region=N2"]
    assert set(one_way) <= set(two_way)
    assert two_way["Region=N1|Size=2"] == 2 * 3 + 1


def test_keys_do_not_depend_on_the_order_of_the_spanning_variables():
    assert sorted(cell_keys(TableStructure((REGION, SIZE)))) == sorted(cell_keys(TableStructure((SIZE, REGION))))
    assert cell_key({"Size": "2", "Region": "N1"}) == "Region=N1|Size=2"


def test_separators_in_codes_are_escaped():
    assert cell_key({"A": "x|B=y"}) == "A=x\\|B\\=y"
    assert cell_key({"A": "x|B=y"}) != cell_key({"A": "x", "B": "y"})


def test_a_variable_without_a_total_names_every_code():
    flat = Dimension.flat("Kind", ["a", "b"], total=None)
    assert cell_keys(TableStructure((flat,))) == ["Kind=a", "Kind=b"]
