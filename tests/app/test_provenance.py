"""ctadesk.app.provenance: the versions and the request every output records (the release
workbook the versions only, never the seed)."""

import json
from importlib.metadata import version

import openpyxl

import ctadesk
from ctadesk.app import ProtectionRequest
from ctadesk.app.provenance import request_record, version_settings, versions
from ctadesk.app.session import Session
from ctadesk.io.project import Project
from tests.app.test_job import _table


def method_sheet(path) -> dict:
    return dict(openpyxl.load_workbook(path)["Method"].iter_rows(min_row=2, values_only=True))


def test_versions_name_ctadesk_highs_and_clarabel():
    assert versions() == {"ctadesk": ctadesk.__version__, "highspy": version("highspy"),
                          "clarabel": version("clarabel")}
    assert version_settings({"highspy": "1.2.3"}) == {"HiGHS (highspy) version": "1.2.3"}


def test_the_request_record_is_plain_json_that_reads_back_as_the_request():
    request = ProtectionRequest(method="lp", seed=41, time_limit=float("inf"), parameters=(("cuts", True),))
    record = json.loads(json.dumps(request_record(request.options()), allow_nan=False))
    assert ProtectionRequest.from_options(record) == request


def test_the_app_workbooks_and_project_record_versions_and_only_internal_ones_the_seed(tmp_path):
    session = Session(Project.from_problem(_table()))
    protection = session.protect(ProtectionRequest(method="lp", seed=918273645))
    assert session.project.versions == versions()
    session.export("release", tmp_path / "release.xlsx")
    session.export("internal", tmp_path / "internal.xlsx")
    public, secret = method_sheet(tmp_path / "release.xlsx"), method_sheet(tmp_path / "internal.xlsx")
    for row, value in version_settings().items():
        assert public[row] == secret[row] == value
    assert not any("seed" in str(key) or "918273645" in str(value) for key, value in public.items())
    assert "request" not in public
    assert ProtectionRequest.from_options(json.loads(secret["request"])) == protection.request
    reopened = Session.open(session.save(tmp_path / "job.ctaproj")).project
    assert reopened.versions == versions() and reopened.options == protection.request.options()
