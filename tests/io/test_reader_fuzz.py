"""Every reader on damaged files: valid small files of each format, mutated (numbers
replaced by 1e400, nan, 1.5, huge counts..., blank lines, truncation, random bytes,
latin-1 text, byte-order marks), must be read or refused with FileFormatError:
never another exception, never a MemoryError (the address space is capped at 2 GiB
above what the process uses), never a table holding inf or nan (bounds may be
+-inf, "no bound", but never a finite 1e20 or beyond)."""

from __future__ import annotations

import re
import resource
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import NO_BOUND
from ctadesk.engine.table.generate import cox_table
from ctadesk.io.csv_table import read_long_csv, read_wide_csv
from ctadesk.io.errors import FileFormatError
from ctadesk.io.hierarchy import read_hrc, read_level_csv
from ctadesk.io.jj import read_jj, read_sol, read_weights, write_jj, write_sol
from ctadesk.io.microdata import MicrodataSpec, read_csv_microdata
from ctadesk.io.tauargus import read_tab

SHARED = Path(__file__).resolve().parents[3] / "shared"
if not SHARED.exists():
    SHARED = Path("/work/shared")
TAUARGUS = SHARED / "formats" / "tauargus-examples"
#: 1-4 s per reader, about 15 s in all
FUZZ = settings(max_examples=250, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# ------------------------------------------------------------------ mutations
NUMBER = re.compile(rb"[-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?")
REPLACEMENTS = (b"1e400", b"-1e400", b"nan", b"inf", b"-inf", b"NaN", b"Infinity", b"1.5", b"-3", b"1e12",
                b"1000000000000", b"99999999999999999999999", b"1e-400", b"0", b"", b"1e20", b"-1e20", b"1,5",
                b"1e308", b"0x10", b"1_000")
LATIN = "Z\u00fcrich G\u00e8n\u00e8ve \u20ac".encode("cp1252")
position = st.integers(min_value=0, max_value=2**20)
BYTE_MUTATION = st.one_of(
    st.tuples(st.just("insert"), position, st.sampled_from((b"\n", b"\n\n", b"\r\n", b" \n", b"\r", LATIN,
                                                            b";", b",", b'"', b"(", b":", b"@", b"\x00"))),
    st.tuples(st.just("bytes"), position, st.binary(min_size=1, max_size=16)),
    st.tuples(st.just("truncate"), position, st.none()),
)
MUTATION = st.one_of(
    st.tuples(st.just("number"), position, st.sampled_from(REPLACEMENTS)),
    BYTE_MUTATION,
    st.tuples(st.just("drop line"), position, st.none()),
    st.tuples(st.just("repeat line"), position, st.none()),
    st.tuples(st.just("encode"), st.none(), st.sampled_from(("utf-8-bom", "utf-16", "cp1252"))),
)


def mutate(data: bytes, mutations: list[tuple]) -> bytes:
    """data with each mutation applied in turn (positions wrap around the current length)."""
    for kind, at, what in mutations:
        if kind == "number":
            numbers = list(NUMBER.finditer(data))
            if numbers:
                match = numbers[at % len(numbers)]
                data = data[:match.start()] + what + data[match.end():]
        elif kind == "insert":
            at %= len(data) + 1
            data = data[:at] + what + data[at:]
        elif kind == "bytes":
            at %= len(data) + 1
            data = data[:at] + what + data[at + len(what):]
        elif kind == "truncate":
            data = data[:at % (len(data) + 1)]
        elif kind in ("drop line", "repeat line"):
            lines = data.split(b"\n")
            k = at % len(lines)
            lines[k:k + 1] = [] if kind == "drop line" else [lines[k], lines[k]]
            data = b"\n".join(lines)
        else:
            text = data.decode("latin-1")
            data = {"utf-8-bom": b"\xef\xbb\xbf" + text.encode("utf-8"), "utf-16": text.encode("utf-16"),
                    "cp1252": text.encode("cp1252", errors="replace")}[what]
    return data


damage = st.lists(MUTATION, min_size=1, max_size=4)


# ------------------------------------------------------------------ checks
@pytest.fixture(autouse=True)
def capped_memory():
    """Cap the address space at 2 GiB above the current size, so a huge allocation fails fast
    instead of succeeding lazily."""
    if not sys.platform.startswith("linux"):
        yield
        return
    size = next(int(line.split()[1]) * 1024 for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + 2 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def read_or_refuse(read, *args, **kwargs):
    """read(*args) or None when it refused the file with a FileFormatError (anything else fails);
    --hypothesis-show-statistics counts the outcomes."""
    try:
        result = read(*args, **kwargs)
    except FileFormatError:
        event("refused")
        return None
    event("read")
    return result


def assert_finite(*arrays) -> None:
    for array in arrays:
        if array is not None:
            assert np.all(np.isfinite(np.asarray(array, dtype=float))), array


def assert_bounds(lower: np.ndarray, upper: np.ndarray) -> None:
    """No NaN; a finite lower bound lies above -1e20 and a finite upper bound below 1e20
    ("no bound" is -inf / +inf)."""
    assert not np.any(np.isnan(lower)) and not np.any(np.isnan(upper))
    assert not np.any(np.isfinite(lower) & (lower <= -NO_BOUND)) and not np.any(lower == np.inf)
    assert not np.any(np.isfinite(upper) & (upper >= NO_BOUND)) and not np.any(upper == -np.inf)


# ------------------------------------------------------------------ seeds
SMALL_JJ = b"""0
4
0 5 1 s -1e20 1e20 0 0 0
1 2 1 u 0 100 1 1 0
2 3 1 z 0 100 0 0 0
3 10 2 m 0 1e+20 0 0 0
2
0 4 : 0 (-1) 1 (1) 2 (0.5) 2 (0.5)
0.0 2 : 3 ( 1 ) 0 ( -2 )
"""


def written(write, *args) -> bytes:
    """The bytes write(path, *args) puts in a file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seed"
        write(path, *args)
        return path.read_bytes()


PROBLEM = cox_table((2, 3), seed=1)[1]
JJ_SEEDS = [SMALL_JJ, written(write_jj, cox_table((3, 4), seed=2)[1])] + [
    path.read_bytes() for path in (SHARED / "formats" / "manual_audit_example.jj",
                                   SHARED / "instances" / "castro-l2" / "table6.jj") if path.exists()]
SOL_SEED = written(write_sol, PROBLEM, PROBLEM.values + 0.5)
LONG_CSV = b"""region;size;turnover
Total;Total;1341,5
Total;small;1000
Total;large;341,5
A;Total;600,25
A;small;500
A;large;100,25
B;Total;741,25
B;small;500
B;large;241,25
"""
WIDE_CSV = b"""Turnover 2023

Region,Small,Large,Total
Total,30,70,100
  North,10,30,40
    1,4,10,14
    2,6,20,26
  South,20,40,60
    3,20,40,60
"""
HRC = b"Nr\n@ 1\n@ 2\nOs \n@ 4\n@@41\n@@42\nZd\n"
LEVEL_CSV = b"level;code\n@;Total\n@@;N\n@@@;1\n@@@;2\n@@;S\n@@@;3\n"
MICRODATA = b"""Region;Size;Turnover;Wgt
 1;1;100;1
 2;1;40;2
 4;2;25,5;1
12;2;10;1
"""
MICRO_SPEC = MicrodataSpec(spanning=("Region", "Size"), response="Turnover", weight="Wgt", decimal_comma=True)


def given_file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------ the readers
@FUZZ
@given(seed=st.sampled_from(range(len(JJ_SEEDS))), mutations=damage)
def test_jj_reader(tmp_path, seed, mutations):
    instance = read_or_refuse(read_jj, given_file(tmp_path / "t.jj", mutate(JJ_SEEDS[seed], mutations)))
    if instance is not None:
        problem = instance.problem
        assert_finite(problem.values, problem.weights, problem.rhs, problem.relations.data,
                      problem.lower_protection, problem.upper_protection, instance.sliding_protection)
        assert_bounds(problem.lower, problem.upper)


@FUZZ
@given(mutations=damage, n_cells=st.sampled_from((None, PROBLEM.n_cells, 10**12)))
def test_sol_reader(tmp_path, mutations, n_cells):
    adjusted = read_or_refuse(read_sol, given_file(tmp_path / "x.sol", mutate(SOL_SEED, mutations)), n_cells)
    if adjusted is not None:
        assert adjusted.size == (n_cells or adjusted.size)
        assert_finite(adjusted)


@FUZZ
@given(mutations=damage)
def test_weights_reader(tmp_path, mutations):
    weights = read_or_refuse(read_weights, given_file(tmp_path / "w.txt", mutate(b"1 2 3\n4.5\n", mutations)), 4)
    if weights is not None:
        assert weights.shape == (4,)
        assert_finite(weights)


@FUZZ
@given(mutations=damage)
def test_long_csv_reader(tmp_path, mutations):
    table = read_or_refuse(read_long_csv, given_file(tmp_path / "t.csv", mutate(LONG_CSV, mutations)))
    if table is not None:
        assert table.values.shape == (table.structure.n_cells,)
        assert_finite(table.values)


@FUZZ
@given(mutations=damage)
def test_wide_csv_reader(tmp_path, mutations):
    table = read_or_refuse(read_wide_csv, given_file(tmp_path / "w.csv", mutate(WIDE_CSV, mutations)))
    if table is not None:
        assert_finite(table.values)


@FUZZ
@given(mutations=damage, level_csv=st.booleans())
def test_hierarchy_readers(tmp_path, mutations, level_csv):
    if level_csv:
        read_or_refuse(read_level_csv, given_file(tmp_path / "h.csv", mutate(LEVEL_CSV, mutations)), "R")
    else:
        read_or_refuse(read_hrc, given_file(tmp_path / "h.hrc", mutate(HRC, mutations)), "R")


@FUZZ
@given(mutations=damage)
def test_microdata_csv_reader(tmp_path, mutations):
    micro = read_or_refuse(read_csv_microdata, given_file(tmp_path / "m.csv", mutate(MICRODATA, mutations)),
                           MICRO_SPEC)
    if micro is not None:
        assert_finite(micro.response, micro.weight)


@pytest.mark.skipif(not TAUARGUS.exists(), reason="tau-argus examples not present")
@FUZZ
@given(damaged=st.sampled_from(("pp.tab", "pp.rda", "region2.hrc", "region.cdl")), mutations=damage)
def test_tauargus_reader(tmp_path, damaged, mutations):
    for name in ("pp.tab", "pp.rda", "region2.hrc", "region.cdl"):
        data = (TAUARGUS / name).read_bytes()
        given_file(tmp_path / name, mutate(data, mutations) if name == damaged else data)
    table = read_or_refuse(read_tab, tmp_path / "pp.tab")
    if table is not None:
        statistics = table.statistics
        assert_finite(table.values, statistics.freq, statistics.top, table.shadow, table.cost,
                      table.lower_protection, table.upper_protection)


@FUZZ
@given(suffix=st.sampled_from(("sav", "dta")),
       mutations=st.lists(BYTE_MUTATION, min_size=1, max_size=3))
def test_statfile_reader(tmp_path, suffix, mutations):
    pd = pytest.importorskip("pandas")
    pyreadstat = pytest.importorskip("pyreadstat")
    from ctadesk.io.statfiles import read_statfile_microdata

    frame = pd.DataFrame({"region": [1.0, 2.0, 2.0], "size": [1.0, 1.0, 2.0], "turnover": [1.0, 2.5, 1e300]})
    (pyreadstat.write_sav if suffix == "sav" else pyreadstat.write_dta)(frame, str(tmp_path / f"s.{suffix}"))
    path = given_file(tmp_path / f"m.{suffix}", mutate((tmp_path / f"s.{suffix}").read_bytes(), mutations))
    result = read_or_refuse(read_statfile_microdata, path, MicrodataSpec(("region", "size"), "turnover"),
                             "spss" if suffix == "sav" else "stata")
    if result is not None:
        assert_finite(result[0].response)
