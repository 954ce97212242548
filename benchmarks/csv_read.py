"""Seconds to read a long CSV table of a million lines (`region,industry,value`, a 1000 x 1000
table with its totals), medians of repeats.

    .venv/bin/python benchmarks/csv_read.py [--size N] [--repeats R] [--semicolon]

1. the dialect: detected from every field of the file (detect_dialect, as the readers did) and
   from its first 64 KiB (sniff_dialect);
2. csv_kind (long, wide or microdata, asked of a file opened without saying which);
3. read_long_csv;
4. the reader a file opened in the app or the CLI goes through (csv_kind, read_long_csv, the
   totals checked, the project built).

--semicolon writes `;` and decimal commas (`12,5`), the files of most European offices.  Run
with PYTHONPATH set to another checkout to time the readers of another version.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ctadesk.app.formats.model import Answers
from ctadesk.app.formats.readers.csv_text import table
from ctadesk.io.csv_table import csv_kind, read_long_csv
from ctadesk.io.text import read_text


def write_table(path: Path, size: int, semicolon: bool) -> None:
    """A size x size long table with totals (values in cents, log-uniform up to 10^6)."""
    rng = np.random.default_rng(1)
    inner = np.round(10 ** rng.uniform(0, 6, (size - 1, size - 1)), 2)
    full = np.zeros((size, size))
    full[1:, 1:] = inner
    full[0, 1:], full[1:, 0], full[0, 0] = inner.sum(0), inner.sum(1), inner.sum()
    regions = ["Total"] + [f"R{k:04d}" for k in range(1, size)]
    industries = ["Total"] + [f"I{k:04d}" for k in range(1, size)]
    delimiter, mark = (";", ",") if semicolon else (",", ".")
    with path.open("w") as handle:
        handle.write(delimiter.join(["region", "industry", "value"]) + "\n")
        for i, region in enumerate(regions):
            handle.write("".join(f"{region}{delimiter}{industry}{delimiter}{full[i, j]:.2f}\n".replace(".", mark)
                                 for j, industry in enumerate(industries)))


def timed(function: Callable[[], object], repeats: int) -> float:
    """The median seconds of ``repeats`` calls."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000, help="codes per variable (size^2 lines)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--semicolon", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "long.csv"
        write_table(path, args.size, args.semicolon)
        print(f"{args.size ** 2:,} lines, {path.stat().st_size / 2**20:.1f} MB, "
              f"{'semicolons and decimal commas' if args.semicolon else 'commas and decimal points'}")
        try:
            dialects = importlib.import_module("ctadesk.io.csv_dialect")
        except ImportError:           # a version before the dialect was sniffed
            dialects = importlib.import_module("ctadesk.io.csv_table")
        detect_dialect, sniff_dialect = dialects.detect_dialect, getattr(dialects, "sniff_dialect", None)
        text = read_text(path)
        print(f"1. dialect from every field: {timed(lambda: detect_dialect(text), args.repeats):.3f} s", end="")
        if sniff_dialect is not None:
            print(f"; from the first 64 KiB: {timed(lambda: sniff_dialect(text), args.repeats):.4f} s", end="")
        print()
        for name, read in (("2. csv_kind", lambda: csv_kind(path)), ("3. read_long_csv", lambda: read_long_csv(path)),
                           ("4. the reader (csv_kind, read_long_csv, totals checked, project)",
                            lambda: table(path, Answers()))):
            print(f"{name}: {timed(read, args.repeats):.2f} s median of {args.repeats}")


if __name__ == "__main__":
    main()
