"""The format registry: every suffix is registered once, a file ctadesk does not read is refused
naming it and the formats it reads, and a format added by one entry (the toy format of
tests/app/toy_format.py) is read by the app and the command line without any other change."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.app.formats import (
    FORMATS,
    Answers,
    Holds,
    Question,
    Requires,
    exports,
    format_of,
    formats,
    microdata_columns,
    open_filter,
    output_format,
    read_release,
    read_table,
    suffix_of,
    suffixes,
    table_writer,
)
from ctadesk.app.formats.model import resolve
from ctadesk.app.session import Session
from ctadesk.cli import main
from ctadesk.engine.errors import CTAError
from ctadesk.io.csv_table import guess_csv_kind, read_long_csv
from ctadesk.io.statfiles import PACKAGES
from tests.app.toy_format import toy_format as toy_format  # the fixture, re-exported for pytest
from tests.app.toy_format import write_toy


def test_each_suffix_has_one_format_and_each_statistical_package_one_format():
    listed = [suffix for fmt in FORMATS for suffix in fmt.suffixes]
    assert len(listed) == len(set(listed))
    assert {fmt.options["package"] for fmt in formats(Holds.MICRODATA) if fmt.options} == set(PACKAGES)
    assert format_of("survey.SAV", Holds.MICRODATA).key == "spss"


def test_every_reader_and_writer_the_registry_names_exists():
    for fmt in FORMATS:
        for name in (fmt.table, fmt.microdata, fmt.columns, fmt.hierarchy, fmt.release, fmt.write):
            if name is not None:
                assert callable(resolve(name)), name
        for export in fmt.exports:
            assert callable(export.writer()) and export.suffix == fmt.suffixes[0]
            assert export.filter == f"{fmt.label} (*{fmt.suffixes[0]})"


@pytest.mark.parametrize("name, holds", [("survey.por", Holds.MICRODATA), ("table.sav", Holds.TABLE),
                                         ("notes.docx", None)])
def test_an_unread_file_is_refused_naming_it_and_the_formats_read(name, holds):
    wanted = () if holds is None else (holds,)
    with pytest.raises(CTAError) as refused:
        format_of(name, *wanted)
    message = str(refused.value)
    assert name in message
    assert all(suffix in message for suffix in suffixes(*wanted))


def test_the_dialog_filter_offers_every_readable_suffix():
    text = open_filter(Holds.MICRODATA)
    assert all(f"*{suffix}" in text for suffix in suffixes(Holds.MICRODATA))
    assert "*.tab" not in text and text.endswith("All files (*)")
    everything = open_filter()
    assert all(f"*{suffix}" in everything for suffix in suffixes(Holds.PROJECT, Holds.TABLE, Holds.MICRODATA))
    assert "*.hrc" not in everything and "*.sol" not in everything


def test_capabilities_follow_the_readers_and_questions_are_typed():
    assert format_of("t.tab").holds == {Holds.TABLE, Holds.RELEASE}
    assert format_of("p.ctaproj").holds == {Holds.PROJECT} and format_of("p.ctaproj").project
    assert format_of("m.csv").holds == {Holds.TABLE, Holds.MICRODATA, Holds.HIERARCHY, Holds.RELEASE}
    assert all(isinstance(q, Question) for fmt in FORMATS for q in fmt.questions)
    assert Question.TOTALS in format_of("t.tab").questions
    assert Question.VARIABLES in format_of("m.dta").questions


def test_exports_are_typed_and_the_tab_export_needs_a_table_read_from_a_tab_or_tabulated():
    kinds = exports()
    assert list(kinds) == ["release", "internal", "csv", "jj", "sol", "tab"]
    assert kinds["jj"].requires is Requires.NOTHING and kinds["release"].requires is Requires.PROTECTED
    project = read_table("sample_data/thesis_3x4.jj")
    assert kinds["jj"].available(project) and not kinds["csv"].available(project)
    session = Session(project)
    session.protect(session.request())
    assert kinds["csv"].available(project) and not kinds["tab"].available(project)
    with pytest.raises(CTAError, match="tabulated from microdata"):
        session.export("tab", "t.tab")


def test_a_table_tabulated_from_microdata_is_released_as_a_tab_even_after_saving(tmp_path):
    from ctadesk.app import files
    from ctadesk.engine.rules.safety import SafetyRules
    from ctadesk.io.tauargus import read_tab

    session = Session(files.read_microdata_file("sample_data/business_microdata.csv", ["region", "size_class"],
                                                "turnover"))
    tab = exports()["tab"]
    session.apply_rules(SafetyRules(min_frequency=3, frequency_safety_range=10))
    assert not tab.available(session.project)
    session.protect(session.request(seed=3))
    assert session.project.result.protected and tab.available(session.project)
    session.save(tmp_path / "m.ctaproj")
    reopened = Session.open(tmp_path / "m.ctaproj")
    assert reopened.project.response == "turnover" and tab.available(reopened.project)
    reopened.export("tab", tmp_path / "release.tab")
    released = read_tab(tmp_path / "release.tab")
    assert "turnover" in (tmp_path / "release.rda").read_text()
    adjusted = reopened.project.result.values
    by_codes = dict(zip(map(released.structure.cell_label, range(released.values.size)), released.values))
    labels = map(reopened.project.structure.cell_label, range(adjusted.size))
    assert by_codes == pytest.approx(dict(zip(labels, adjusted)))


def test_an_unknown_export_and_an_unwritable_target_are_refused_naming_what_there_is():
    with pytest.raises(CTAError, match="unknown export 'pdf'; choose one of release, internal"):
        Session(read_table("sample_data/thesis_3x4.jj")).export("pdf", "t.pdf")
    with pytest.raises(CTAError, match=r"t.xlsx: ctadesk does not write tables to '.xlsx' files; it writes "
                                       r"CSV files \(.csv\); JJ files \(.jj\)"):
        table_writer("t.xlsx")


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(CTAError, match=r"nope\.jj does not exist"):
        read_table(tmp_path / "nope.jj")


def test_the_microdata_variables_come_from_the_reader_of_the_format(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("region;size;turnover\nN;1;10\n", encoding="utf-8")
    assert microdata_columns(path) == ["region", "size", "turnover"]


def test_a_release_is_read_by_the_reader_of_its_format(tmp_path):
    project = read_table("sample_data/thesis_3x4.jj")
    (tmp_path / "r.sav").write_text("")
    with pytest.raises(CTAError, match=r"r\.sav: ctadesk does not read '\.sav' release files"):
        read_release(tmp_path / "r.sav", project.structure)
    session = Session(project)
    session.protect(session.request())
    session.export("sol", tmp_path / "r.sol")
    released = read_release(tmp_path / "r.sol", project.structure)
    assert not released.missing.any() and np.allclose(released.published, project.result.values)


def test_a_semicolon_csv_with_decimal_commas_is_guessed_long(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("region;branch;value\nN;A;12,5\nN;B;3,25\nS;A;7,75\nS;B;1,5\n", encoding="utf-8")
    assert guess_csv_kind(path) == "long"
    assert read_table(path, Answers(no_totals=True)).structure.shape == (2, 2)  # read as guessed
    wide = tmp_path / "wide.csv"
    wide.write_text("region;A;B\nN;12,5;3,25\nS;7,75;1,5\n", encoding="utf-8")
    assert guess_csv_kind(wide) == "wide"


# ------------------------------------------------------------ a format added by one entry
def test_a_toy_format_is_offered_and_opened_by_the_app(toy_format, tmp_path):
    assert "*.toy" in open_filter() and "*.toy" in open_filter(Holds.TABLE)
    project = read_table(write_toy(tmp_path / "t.toy"))
    assert project.values.tolist() == [120, 15, 40, 75, 250] and np.flatnonzero(project.sensitive).tolist() == [1]
    session = Session(project)
    assert session.protect(session.request()).result.protected


def test_a_toy_file_is_converted_and_solved_by_the_command_line(toy_format, tmp_path, capsys):
    source = write_toy(tmp_path / "t.toy")
    assert main(["convert", str(source), str(tmp_path / "t.csv")]) == 0
    assert read_long_csv(tmp_path / "t.csv").values.tolist() == [120, 15, 40, 75, 250]
    assert main(["solve", str(source), "--method", "lp", "--sol", str(tmp_path / "t.sol")]) == 0
    assert "verified" in capsys.readouterr().out
    assert read_release(tmp_path / "t.sol", read_table(source).structure).published.size == 5


def test_without_its_entry_the_toy_format_is_refused(tmp_path, capsys):
    assert main(["convert", str(write_toy(tmp_path / "t.toy")), str(tmp_path / "t.csv")]) == 2
    assert "ctadesk does not read '.toy' table files" in capsys.readouterr().err
    with pytest.raises(CTAError):
        read_table(tmp_path / "t.toy", Answers())


@pytest.mark.parametrize(("path", "key"), [(None, "csv"), ("cells.csv", "csv"), ("cells.JSON", "json"),
                                           ("book.xlsx", "excel"), ("folder", "csv"), ("cells.dat", "csv")])
def test_an_output_is_written_in_the_format_its_suffix_names_else_as_csv(path, key):
    assert output_format(path).key == key


def test_a_written_file_takes_its_formats_first_suffix():
    assert [suffix_of(key) for key in ("excel", "csv", "jj", "json")] == [".xlsx", ".csv", ".jj", ".json"]
