"""Reading tau-argus batch files (.arb) into typed commands; errors name file, line and command."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctadesk.io.tauargus_batch import (
    AprioriCommand,
    BatchError,
    FileCommand,
    ReadTable,
    Rule,
    SafetyRule,
    SpecifyTable,
    Suppress,
    WriteTable,
    read_batch,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "tauargus"
EXAMPLES = Path("/work/shared/formats/tauargus-examples")


def arb(folder: Path, text: str, *files: str) -> Path:
    for name in files:
        (folder / name).write_text("x\n")
    path = folder / "job.arb"
    path.write_text(text)
    return path


def test_tau_argus_examples_read_as_their_commands():
    commands = read_batch(DATA / "ex2" / "batch_ex2.arb").commands
    assert [c.keyword for c in commands] == ["LOGBOOK", "OPENMICRODATA", "OPENMETADATA", "SPECIFYTABLE", "SAFETYRULE",
                                             "READMICRODATA", "SOLVER", "SUPPRESS", "WRITETABLE"]
    assert commands[1].path == DATA / "ex2" / "microdata_ex2.asc" and commands[1].row == 2
    assert commands[4].rules == (Rule("FREQ", (5, 20), False), Rule("P", (20, 5), False))
    assert commands[7] == Suppress("SUPPRESS", 8, "OPT(1,1)", method="OPT", table=1, arguments=("1",))
    write = commands[8]
    assert isinstance(write, WriteTable) and write.output == 3 and write.options["AS"] and write.options["FL"]
    assert write.options["QU"] and not write.options["SE"]
    table = read_batch(EXAMPLES / "TestTable.arb").commands
    assert table[2] == SpecifyTable("SPECIFYTABLE", 6, '"Size""Region"|"Var2"|"Var2_Shadow"|"Var2"',
                                    explanatory=("Size", "Region"), response="Var2", shadow="Var2_Shadow",
                                    cost="Var2", cost_lambda=None)
    assert table[3] == ReadTable("READTABLE", 7, "1T", totals=1, keep_status=True)


def test_holding_rules_and_cost_functions(tmp_path: Path):
    path = arb(tmp_path, '<SPECIFYTABLE> "A""B"|<FREQ>||-2,0.5\n'
                         "<SAFETYRULE> P(15,1)|P(10,20,1)|P(12)|NK(3,70)|FREQ(3,10)|FREQ(2,5)|ZERO(2)|REQ(30,40,2,5)"
                         "|WGT(1)|MIS(1)|MAN(10)\n")
    specify, rules = read_batch(path).commands
    assert specify.response is None and specify.cost == "-2" and specify.cost_lambda == 0.5
    assert isinstance(rules, SafetyRule)
    assert [(r.name, r.holding) for r in rules.rules] == [
        ("P", False), ("P", False), ("P", True), ("NK", False), ("FREQ", False), ("FREQ", True), ("ZERO", False),
        ("REQ", False), ("WGT", False), ("MIS", False), ("MAN", False)]


def test_windows_paths_are_found_beside_the_batch_file(tmp_path: Path):
    path = arb(tmp_path, '<OPENMICRODATA> "V:\\data\\Tau_TestW.ASC"\n<APRIORI> "C:\\x\\t.hst", 1, ";", 0\n'
                         '<WRITETABLE> (1, 2, AS+, "V:\\out\\t1.csv")\n<LOGBOOK> "C:\\logs\\log.txt"\n',
               "tau_testw.asc", "t.hst")
    open_data, apriori, write, log = read_batch(path).commands
    assert isinstance(open_data, FileCommand) and open_data.path == tmp_path / "tau_testw.asc"
    assert "not on this machine" in open_data.notes[0]
    assert isinstance(apriori, AprioriCommand) and apriori.separator == ";" and not apriori.ignore_errors
    assert write.path == tmp_path / "t1.csv" and write.options["FL"]      # type 2 names variables by default
    assert log.path == tmp_path / "log.txt"


@pytest.mark.parametrize("line, message", [
    ("<SAFETYRULE> NQ(1,2)", r"line 2: <SAFETYRULE>: unknown rule 'NQ'"),
    ("<SAFETYRULE> NK(3)", r"line 2: <SAFETYRULE>: NK\(3\) takes 2 numbers"),
    ("<SUPPRESS> CKM(1)", r"line 2: <SUPPRESS>: unknown method 'CKM'"),
    ("<SUPPRESS> RND(1)", r"line 2: <SUPPRESS>: RND\(table, base, ...\) needs a rounding base"),
    ("<WRITETABLE> (1, 5, AS+, \"x\")", r"line 2: <WRITETABLE>: output type '5'"),
    ("<WRITETABLE> (1, 3, ZZ+, \"x\")", r"line 2: <WRITETABLE>: option 'ZZ'"),
    ("<OPENMICRODATA> \"absent.asc\"", r"line 2: <OPENMICRODATA>: the file 'absent.asc' does not exist"),
    ("<READTABLE> 3", r"line 2: <READTABLE>: '3': expected 0"),
    ("<RECODE> 1, Size, 2", r"line 2: <RECODE>: ctadesk does not run this command"),
    ("OPENMICRODATA x", r"line 2: 'OPENMICRODATA x' is not a command"),
])
def test_errors_name_file_line_and_command(tmp_path: Path, line: str, message: str):
    with pytest.raises(BatchError, match=rf"job.arb, {message}"):
        read_batch(arb(tmp_path, f"// a comment\n{line}\n"))
