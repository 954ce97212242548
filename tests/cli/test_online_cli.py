"""`ctadesk online`: one table of an on-line table server per call, consistent across calls."""

import csv
import json
import sqlite3

import pytest

from ctadesk.cli import main
from ctadesk.engine.rules.safety import SafetyRules, apply_rules
from ctadesk.engine.table.microdata import tabulate
from ctadesk.io.microdata import MicrodataSpec, read_csv_microdata

FIRMS = """Region,Size,Turnover
1,1,100
1,1,5
1,2,30
1,2,31
1,2,29
2,1,50
2,1,48
2,1,47
2,2,80
4,1,60
4,1,61
4,1,59
4,2,200
4,2,3
"""
RULES = ["--min-freq", "2", "--freq-range", "10", "--dominance", "1,80", "--p-percent", "10"]


@pytest.fixture
def firms(tmp_path):
    path = tmp_path / "firms.csv"
    path.write_text(FIRMS)
    return path


def online(firms, table, *extra):
    """`ctadesk online` on the store beside ``firms``, made (--init-store) by the first call."""
    store = firms.parent / "senses.db"
    return main(["online", "--store", str(store), "--microdata", str(firms), "--table", table,
                 "--response", "Turnover", *RULES, *extra, *["--init-store"] * (not store.exists())])


def sensitive_cells(firms):
    """Original value of each sensitive cell of Region x Size, by (Region, Size)."""
    micro = read_csv_microdata(firms, MicrodataSpec(("Region", "Size"), "Turnover"))
    stats = tabulate(micro)
    result = apply_rules(stats, SafetyRules(min_frequency=2, frequency_safety_range=10, dominance=((1, 80),),
                                            p_percent=(10,)))
    region, size = micro.structure.dimensions
    return {(region.codes[i // size.size], size.codes[i % size.size]): stats.values[i] for i in result.sensitive}


def test_a_cell_is_published_on_one_side_in_every_table(firms, tmp_path, capsys):
    assert online(firms, "Region x Size", "-o", str(tmp_path / "two.csv")) == 0
    assert online(firms, "Size x Region", "-o", str(tmp_path / "again.json")) == 0
    with open(tmp_path / "two.csv", newline="") as handle:
        two = {(row["Region"], row["Size"]): float(row["Turnover"]) for row in csv.DictReader(handle)}
    again = {(cell["Region"], cell["Size"]): cell["Turnover"]
             for cell in json.loads((tmp_path / "again.json").read_text())["cells"]}
    unsafe = sensitive_cells(firms)
    assert unsafe
    for cell, original in unsafe.items():
        assert (two[cell] - original) * (again[cell] - original) > 0
    assert "sensitive cells" in capsys.readouterr().err


def test_the_output_names_no_sensitive_cell(firms, capsys):
    assert online(firms, "Region x Size") == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert list(rows[0]) == ["Region", "Size", "Turnover", "status"]
    assert {row["status"] for row in rows} == {"published"}


def test_an_unknown_variable_is_an_error_naming_it(firms, capsys):
    assert online(firms, "Region x Industry") == 2
    assert "no column named 'Industry'" in capsys.readouterr().err


def test_a_store_of_a_newer_ctadesk_is_refused(firms, capsys):
    assert online(firms, "Region") == 0
    with sqlite3.connect(firms.parent / "senses.db") as db:
        db.execute("UPDATE meta SET value = '99' WHERE name = 'schema_version'")
    assert online(firms, "Region") == 2
    assert "newer ctadesk" in capsys.readouterr().err


def test_a_store_is_made_only_on_request_and_serves_only_its_data(firms, capsys):
    command = ["online", "--store", str(firms.parent / "senses.db"), "--microdata", str(firms), "--table", "Region",
               "--response", "Turnover", *RULES]
    assert main(command) == 2
    assert "does not exist: a sense store is made only by --init-store" in capsys.readouterr().err
    assert main([*command, "--init-store"]) == 0 and main(command) == 0
    (firms.parent / "other.csv").write_text(FIRMS.replace("4,2,3", "4,2,4"))
    assert main([*command[:4], str(firms.parent / "other.csv"), *command[5:]]) == 2
    assert "it protects other microdata (14 records" in capsys.readouterr().err


def test_a_malformed_table_is_refused(firms, capsys):
    with pytest.raises(SystemExit):
        online(firms, "Region x ")
    assert "is not a table" in capsys.readouterr().err


def test_a_hierarchy_level_is_asked_for_after_a_colon(firms, capsys):
    assert online(firms, "Region:1 x Size") == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert len(rows) == 4 * 3 and list(rows[0]) == ["Region", "Size", "Turnover", "status"]
    assert online(firms, "Region:2 x Size") == 2
    assert "'Region:2': Region has level 1 only" in capsys.readouterr().err
