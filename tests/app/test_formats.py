"""The format registry: every suffix the readers accept is registered once, and a file ctadesk
does not read is refused naming it and the formats it reads."""

from __future__ import annotations

import pytest

from ctadesk.app.formats import FORMATS, MICRODATA, TABLE, format_of, open_filter, suffixes
from ctadesk.engine.errors import CTAError
from ctadesk.io.csv_table import guess_csv_kind
from ctadesk.io.statfiles import READERS


def test_each_suffix_has_one_format_and_every_statistical_reader_is_listed():
    listed = [suffix for fmt in FORMATS for suffix in fmt.suffixes]
    assert len(listed) == len(set(listed))
    assert set(READERS) <= set(suffixes(MICRODATA))
    assert format_of("survey.SAV", MICRODATA).key == "statfile"


@pytest.mark.parametrize("name, holds", [("survey.por", MICRODATA), ("table.sav", TABLE), ("notes.docx", None)])
def test_an_unread_file_is_refused_naming_it_and_the_formats_read(name, holds):
    with pytest.raises(CTAError) as refused:
        format_of(name, holds)
    message = str(refused.value)
    assert name in message
    readable = suffixes(holds)
    assert all(suffix in message for suffix in readable)


def test_the_dialog_filter_offers_every_readable_suffix():
    text = open_filter(MICRODATA)
    assert all(f"*{suffix}" in text for suffix in suffixes(MICRODATA))
    assert "*.tab" not in text and text.endswith("All files (*)")


def test_a_semicolon_csv_with_decimal_commas_is_guessed_long(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("region;branch;value\nN;A;12,5\nN;B;3,25\nS;A;7,75\nS;B;1,5\n", encoding="utf-8")
    assert guess_csv_kind(path) == "long"
    wide = tmp_path / "wide.csv"
    wide.write_text("region;A;B\nN;12,5;3,25\nS;7,75;1,5\n", encoding="utf-8")
    assert guess_csv_kind(wide) == "wide"
