"""tau-argus's files in the format registry: .asc microdata (with the .rda beside it), .hst
a-priori files, .arb batch files, and ctadesk's .toml job files."""

from __future__ import annotations

import shutil
from pathlib import Path

from ctadesk.app.formats import FORMATS, Holds, format_of, microdata_columns, read_microdata
from ctadesk.app.formats.model import resolve
from ctadesk.io.microdata import MicrodataSpec

EX2 = Path(__file__).resolve().parents[1] / "data" / "tauargus" / "ex2"


def test_each_is_registered_for_what_it_holds():
    assert format_of("survey.ASC", Holds.MICRODATA).key == "asc"
    assert format_of("table.hst", Holds.APRIORI).key == "hst"
    assert format_of("batch.arb", Holds.BATCH).key == "arb"
    assert format_of("jobs.toml", Holds.BATCH).key == "jobs"
    for fmt in FORMATS:
        for name in (fmt.batch, fmt.apriori):
            if name is not None:
                assert callable(resolve(name)), name


def test_asc_microdata_is_read_by_the_app_s_import(tmp_path: Path):
    for name in ("microdata_ex2.asc", "metadata_ex2.rda", "hier_region_ex2.hrc", "hier_gender_ex2.hrc"):
        shutil.copy(EX2 / name, tmp_path / name)
    (tmp_path / "metadata_ex2.rda").rename(tmp_path / "microdata_ex2.rda")
    assert microdata_columns(tmp_path / "microdata_ex2.asc")[:2] == ["region", "gender"]
    micro = read_microdata(tmp_path / "microdata_ex2.asc", MicrodataSpec(("region", "gender"), "num1"))
    assert micro.n_records == 100 and micro.structure.shape == (5, 3)
