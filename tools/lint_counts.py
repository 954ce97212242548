"""The lint ratchet: ruff's findings and mypy's errors may only fall.

Runs ``ruff check`` over the repository and ``mypy`` over ctadesk, both configured in pyproject.toml
and pinned in its ``test`` extra, prints the two counts and mypy's errors per package and per module,
and exits 1 when a count is above the one recorded in tools/lint_baseline.toml, or when a module
recorded there as clean has a mypy error.  After fixing some findings, ``--update`` records the lower
counts, moves the modules of ``next`` that reached no error to ``clean`` and lists the modules with
most errors as the next to fix; it refuses to record a count above the one recorded.

    .venv/bin/python tools/lint_counts.py            # check (make lint; .ci/run before the tests)
    .venv/bin/python tools/lint_counts.py --update   # record lower counts
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tools" / "lint_baseline.toml"
#: a mypy error line: "ctadesk/engine/problem.py:214: error: ..." (also with a column)
MYPY_ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error:", re.MULTILINE)
#: modules listed as the next to fix by --update, and shown in the report
NEXT_MODULES = 10


@dataclasses.dataclass(frozen=True)
class Counts:
    """What the two tools found: ruff's findings and mypy's errors per module path."""

    ruff: int
    mypy_by_module: collections.Counter[str]

    @property
    def mypy(self) -> int:
        return sum(self.mypy_by_module.values())

    def mypy_by_package(self) -> collections.Counter[str]:
        """Errors per package folder, e.g. ctadesk/gui or ctadesk/engine/solvers."""
        return collections.Counter({package: sum(count for path, count in self.mypy_by_module.items()
                                                 if path.rpartition("/")[0] == package)
                                    for package in {path.rpartition("/")[0] for path in self.mypy_by_module}})


@dataclasses.dataclass(frozen=True)
class Baseline:
    """The recorded most: counts, modules that must stay free of mypy errors, modules to fix next."""

    ruff: int
    mypy: int
    clean: tuple[str, ...] = ()
    next: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Baseline:
        data = tomllib.loads(text)
        modules = data.get("modules", {})
        return cls(ruff=int(data["most"]["ruff"]), mypy=int(data["most"]["mypy"]),
                   clean=tuple(modules.get("clean", ())), next=tuple(modules.get("next", ())))

    @classmethod
    def read(cls, path: Path) -> Baseline:
        try:
            return cls.parse(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as error:
            raise SystemExit(f"{path}: not a lint baseline ([most] ruff and mypy): {error!r}") from error

    def text(self) -> str:
        def listing(paths: tuple[str, ...]) -> str:
            return "[\n" + "".join(f'    "{path}",\n' for path in paths) + "]" if paths else "[]"

        return (f"# The most findings ruff and mypy may report (tools/lint_counts.py, run by .ci/run): lower\n"
                f"# them with `.venv/bin/python tools/lint_counts.py --update` after fixing some.  A count is raised\n"
                f"# only by editing this file, with the reason in the commit.\n"
                f"[most]\nruff = {self.ruff}\nmypy = {self.mypy}\n\n"
                f"[modules]\n# no mypy error here, and none may come back\nclean = {listing(self.clean)}\n"
                f"# the modules with most mypy errors: the next to fix\nnext = {listing(self.next)}\n")


def mypy_counts(output: str) -> collections.Counter[str]:
    """mypy's errors per module path, from its output."""
    return collections.Counter(match["path"] for match in MYPY_ERROR.finditer(output))


def failures(counts: Counts, baseline: Baseline) -> list[str]:
    """Why the counts break the ratchet (empty: they hold)."""
    found = [f"{tool} reports {now} findings, more than the {most} recorded in {BASELINE.relative_to(ROOT)}"
             for tool, now, most in (("ruff", counts.ruff, baseline.ruff), ("mypy", counts.mypy, baseline.mypy))
             if now > most]
    found += [f"{path} has {counts.mypy_by_module[path]} mypy errors but is recorded as clean"
              for path in baseline.clean if counts.mypy_by_module[path]]
    return found


def updated(counts: Counts, baseline: Baseline) -> Baseline:
    """The baseline lowered to ``counts``: next modules that reached no error become clean."""
    clean = sorted({*baseline.clean, *(path for path in baseline.next if not counts.mypy_by_module[path])})
    worst = tuple(path for path, _ in counts.mypy_by_module.most_common(NEXT_MODULES))
    return Baseline(ruff=counts.ruff, mypy=counts.mypy, clean=tuple(clean), next=worst)


def run_ruff() -> int:
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--exit-zero", "--output-format", "json", "."],
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"ruff failed (exit {done.returncode}):\n{done.stderr}")
    return len(json.loads(done.stdout))


def run_mypy() -> collections.Counter[str]:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty"],
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 1: errors found; 2: mypy could not check
        raise SystemExit(f"mypy failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return mypy_counts(done.stdout)


def report(counts: Counts, baseline: Baseline) -> str:
    lines = [f"ruff {importlib.metadata.version('ruff')}: {counts.ruff} findings (most {baseline.ruff})",
             f"mypy {importlib.metadata.version('mypy')}: {counts.mypy} errors (most {baseline.mypy})",
             "mypy errors by package:"]
    lines += [f"{count:6d}  {package}" for package, count in sorted(counts.mypy_by_package().items())]
    lines.append(f"mypy errors by module (the {NEXT_MODULES} with most):")
    lines += [f"{count:6d}  {path}" for path, count in counts.mypy_by_module.most_common(NEXT_MODULES)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="record lower counts in the baseline")
    args = parser.parse_args(argv)
    baseline = Baseline.read(BASELINE)
    counts = Counts(ruff=run_ruff(), mypy_by_module=run_mypy())
    print(report(counts, baseline))
    broken = failures(counts, baseline)
    if args.update and not broken:
        BASELINE.write_text(updated(counts, baseline).text(), encoding="utf-8")
        print(f"recorded in {BASELINE.relative_to(ROOT)}")
    elif not broken and (counts.ruff < baseline.ruff or counts.mypy < baseline.mypy):
        print("fewer than recorded: lower the baseline with tools/lint_counts.py --update")
    for reason in broken:
        print(f"lint ratchet: {reason}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
