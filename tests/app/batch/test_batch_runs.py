"""tau-argus's documented batch tests run by ctadesk with SUPPRESS -> CTA: the tabulated values,
frequencies and primary statuses are tau-argus's (sdcTools/checkTauArgus test_batch_ex1/2.R),
the protected tables add up and move every unsafe cell by its protection level."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pytest

from ctadesk.app.batch import plan_jobs, run_batch
from ctadesk.app.batch.tables import build_table
from ctadesk.app.request import ProtectionRequest
from ctadesk.cli import main
from ctadesk.io.tauargus_batch import read_batch

DATA = Path(__file__).resolve().parents[2] / "data" / "tauargus"
EXAMPLES = Path("/work/shared/formats/tauargus-examples")
#: tau-argus's statuses of the 15 cells (checkTauArgus): 'u' primary; 'x' its secondary
#: suppressions, which CTA does not make: the cells stay safe
TAU_ARGUS_PRIMARY = ["s", "s", "s", "s", "x", "u", "s", "s", "s", "s", "x", "x", "s", "s", "s"]


def copy(example: str, tmp_path: Path) -> Path:
    shutil.copytree(DATA / example, tmp_path / example)
    return tmp_path / example


def as_cta(folder: Path, name: str) -> Path:
    """The batch file unchanged but for SUPPRESS OPT -> CTA."""
    path = folder / name
    path.write_bytes(path.read_bytes().replace(b"OPT(1,1)", b"CTA(1)"))
    return path


@pytest.mark.parametrize("example, first", [("ex1", 5146), ("ex2", 10484.95)])
def test_tau_argus_examples_tabulate_flag_and_protect_as_tau_argus(tmp_path: Path, example: str, first: float):
    folder = copy(example, tmp_path)
    report = run_batch(as_cta(folder, f"batch_{example}.arb"), request=ProtectionRequest(seed=7))
    assert report.ok, report.lines()
    with open(folder / f"tabout_{example}.txt", newline="") as handle:
        rows = list(csv.reader(handle))
    value = "freq" if example == "ex1" else "num1"
    assert rows[0] == ["region", "gender", f"{value}_CTA", f"{value}_Orig", "Status"]
    body = rows[1:]
    assert len(body) == 15 and float(body[0][3]) == pytest.approx(first)
    assert [row[4] for row in body] == ["U" if s == "u" else "S" for s in TAU_ARGUS_PRIMARY]
    published = np.array([float(row[2]) for row in body]).reshape(5, 3)
    assert np.allclose(published[:, 0], published[:, 1] + published[:, 2])      # region totals
    assert np.allclose(published[0], published[1:].sum(axis=0))                # gender totals
    original = float(body[5][3])
    job = plan_jobs(read_batch(folder / f"batch_{example}.arb"), ProtectionRequest())[0][0]
    problem = build_table(job.tables[0]).problem
    assert abs(float(body[5][2]) - original) >= problem.upper_protection[0] - 1e-6
    log = (folder / f"arguslog_{example}.log").read_text()
    assert "highspy" in log and "clarabel" in log and "1 of 1 job(s) succeeded" in log


def test_ex2_frequencies_are_tau_argus_tabulation(tmp_path: Path):
    job = plan_jobs(read_batch(copy("ex2", tmp_path) / "batch_ex2.arb"), ProtectionRequest(), as_cta=True)[0][0]
    table = build_table(job.tables[0])
    assert table.statistics.freq.reshape(5, 3).tolist() == [[100, 55, 45], [20, 18, 2], [33, 14, 19],
                                                           [22, 12, 10], [25, 11, 14]]


def test_suppression_methods_are_refused_naming_the_line_and_the_batch_goes_on(tmp_path: Path):
    folder = copy("ex2", tmp_path)
    text = (folder / "batch_ex2.arb").read_text().replace("<SUPPRESS> OPT(1,1)",
                                                          "<SUPPRESS> OPT(1,1)\n<SUPPRESS> CTA(1)")
    (folder / "batch_ex2.arb").write_text(text)
    report = run_batch(folder / "batch_ex2.arb")
    assert [outcome.ok for outcome in report.outcomes] == [False, True]
    assert ("batch_ex2.arb, line 8: <SUPPRESS>: OPT is tau-argus's secondary cell suppression"
            in report.outcomes[0].error)
    assert main([ "batch", str(folder / "batch_ex2.arb"), "--quiet"]) == 1
    assert main(["batch", str(folder / "batch_ex2.arb"), "--as-cta", "--quiet"]) == 0


def test_shipped_test_table_runs_with_cta(tmp_path: Path):
    """TestTable.arb (pp.tab with its shadow and cost variable, missing totals computed) with a
    SUPPRESS CTA(1) and every output type written."""
    for name in ("pp.tab", "pp.rda", "region2.hrc", "region.cdl", "TestTable.arb"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    text = (tmp_path / "TestTable.arb").read_text().replace(
        "<GOINTERACTIVE>", "<SAFETYRULE> P(15,1)|FREQ(3,10)\n<SUPPRESS> CTA(1)\n"
        + "".join(f'<WRITETABLE> (1, {k}, AS+, "V:\\out\\t{k}.txt")\n' for k in (1, 2, 3, 4, 6)) + "<GOINTERACTIVE>")
    (tmp_path / "TestTable.arb").write_text(text)
    report = run_batch(tmp_path / "TestTable.arb", request=ProtectionRequest(seed=3, time_limit=60))
    assert report.ok, report.lines()
    assert all((tmp_path / f"t{k}.txt").stat().st_size > 0 for k in (1, 2, 3, 4, 6))
    code_value = (tmp_path / "t3.txt").read_text().splitlines()
    assert code_value[0].startswith('"Total","Total",')
    assert any(line.endswith(",U") for line in code_value)
