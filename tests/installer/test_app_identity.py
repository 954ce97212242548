"""What the installers ship besides code (resources/), the one version, the About box and the
self-test, checked in the default run (the bundle itself: test_bundle.py, `make installer-test`)."""

from __future__ import annotations

import configparser
import gc
import io
import struct
import tempfile
import xml.etree.ElementTree as ElementTree
from importlib.metadata import version

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QImage
from PySide6.QtWidgets import QMessageBox

from ctadesk import __version__
from ctadesk.cli import main
from ctadesk.gui.app import self_test
from ctadesk.gui.main_window import MainWindow
from ctadesk.resources import ICON_SIZES, icon_files, resources_dir


def test_icon_pngs_have_the_size_their_name_says():
    for size, path in zip(ICON_SIZES, icon_files()):
        image = QImage(str(path))
        assert (image.width(), image.height()) == (size, size), path.name


def test_ico_and_icns_hold_the_platform_sizes():
    ico = (resources_dir() / "ctadesk.ico").read_bytes()
    assert struct.unpack("<HHH", ico[:6]) == (0, 1, 6)               # an icon file with 16 ... 256
    icns = (resources_dir() / "ctadesk.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)


def test_desktop_entry_starts_the_app_with_its_icon():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(resources_dir() / "ctadesk.desktop", encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application"
    assert desktop["Exec"] == "ctadesk gui %f"
    assert desktop["Icon"] == "ctadesk"


def test_appstream_metadata_launches_the_desktop_entry():
    component = ElementTree.parse(resources_dir() / "io.github.ctadesk.metainfo.xml").getroot()
    assert component.findtext("id") == "io.github.ctadesk"
    assert component.findtext("launchable") == "ctadesk.desktop"
    assert component.findtext("project_license") == "EUPL-1.2"


def test_the_version_is_kept_in_one_place(capsys):
    assert version("ctadesk") == __version__
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"ctadesk {__version__}"


def test_help_about_shows_the_version(qtbot, tmp_path):
    window = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window.ask_before_closing = False
    qtbot.addWidget(window)
    window.findChild(QAction, "act_about").trigger()
    box = window.findChild(QMessageBox, "about_box")
    assert f"ctadesk {__version__}" in box.text()
    box.close()


def test_self_test_protects_a_sample_and_writes_a_release_workbook(qapp, tmp_path, monkeypatch):
    """... and leaves nothing in the temporary folder, its window deleted too (its settings were
    once written at the deletion, making the self-test's folder again)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = io.StringIO()
    assert self_test(out) == 0, out.getvalue()
    report = out.getvalue()
    assert "window shown" in report and "release workbook written" in report
    assert report.rstrip().splitlines()[-1].startswith("self-test passed in")
    qapp.processEvents()
    gc.collect()
    assert list(tmp_path.iterdir()) == []


def test_a_failing_self_test_names_the_step_and_exits_1(qapp, monkeypatch):
    monkeypatch.setattr("ctadesk.gui.app.SELF_TEST_SAMPLE", "no_such_sample.jj")
    out = io.StringIO()
    assert self_test(out) == 1
    assert "self-test FAILED: could not open" in out.getvalue()
