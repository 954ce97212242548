"""tau-argus batch files (`.arb`) read into a list of typed commands, each with its line
(tau-argus manual §5.7 "Batch processing"; the grammar as tau-argus's own batch reader takes it).

One command per line, its keyword first: `<OPENMICRODATA> "data.asc"`, `<SPECIFYTABLE>
"Size""Region"|"Var2"|"Shadow"|"Cost"`, `<SAFETYRULE> P(15,1)|NK(3,70)|FREQ(3,10)`,
`<SUPPRESS> CTA(1)`, `<WRITETABLE> (1, 3, AS+FL+, "out.csv")`, ...; lines starting with `//`
are comments.  Nothing is run here (ctadesk.app.batch runs the commands); every error names the
file, the line and the command, e.g. ``job.arb, line 5: <SAFETYRULE>: unknown rule 'NQ'``.

Files a command names are found as tau-argus finds them: a bare name beside the `.arb`; a path
written for another machine (`V:\\data\\tau_testW.asc`) that does not exist here, by its file name
beside the `.arb` (found case-insensitively); files to write into a folder that does not exist
here go beside the `.arb` too (`BatchCommand.notes` says so).
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from ctadesk.io.errors import FileFormatError
from ctadesk.io.text import read_lines

#: tau-argus's output types of <WRITETABLE>: 1 CSV, 2 CSV for pivot tables, 3 code-value, 4 SBS,
#: 6 JJ (5 intermediate and 7 cell-key outputs belong to methods ctadesk does not run)
OUTPUT_TYPES = {1: "CSV", 2: "CSV for pivot tables", 3: "code-value", 4: "SBS", 6: "JJ"}
#: <WRITETABLE> options: add status, suppress empty cells, variable names on the first line,
#: codes in quotes, hierarchical levels (SBS), remove trivial levels (JJ)
WRITE_OPTIONS = {"AS": "add status", "SE": "suppress empty cells", "FL": "variable names on the first line",
                 "QU": "codes in quotes", "HL": "hierarchical levels", "TR": "remove trivial levels"}
#: suppression methods of tau-argus that ctadesk runs as CTA only when asked (--as-cta)
SUPPRESSION_METHODS = ("GH", "MOD", "OPT", "NET")
#: <SPECIFYTABLE> cost functions: -1 frequency, -2 unity, -3 distance
COST_FUNCTIONS = {"-1": "frequency", "-2": "unity", "-3": "distance"}


class BatchError(FileFormatError):
    """A batch file line that cannot be read or run: names the file, line and command."""

    def __init__(self, message: str, *, file: str | Path | None = None, row: int | None = None,
                 command: str = "") -> None:
        self.command = command
        super().__init__(f"<{command}>: {message}" if command else message, file=file, row=row)


@dataclasses.dataclass(frozen=True)
class BatchCommand:
    """A command of the batch file: its keyword, line and text, and notes for the log."""

    keyword: str
    row: int
    text: str
    notes: tuple[str, ...] = dataclasses.field(default=(), kw_only=True)


@dataclasses.dataclass(frozen=True)
class FileCommand(BatchCommand):
    """LOGBOOK, OPENMICRODATA, OPENTABLEDATA, OPENMETADATA, VERSIONINFO: a file to read or write."""

    path: Path


@dataclasses.dataclass(frozen=True)
class SpecifyTable(BatchCommand):
    """A table: its explanatory variables, the response (None: a frequency table, `<FREQ>`), the
    shadow variable and the cost: a variable, or a cost function (COST_FUNCTIONS) by its key."""

    explanatory: tuple[str, ...]
    response: str | None
    shadow: str | None
    cost: str | None
    cost_lambda: float | None


@dataclasses.dataclass(frozen=True)
class Rule:
    """One rule of a <SAFETYRULE> line: its name (P, NK, ...), numbers and whether it applies to
    holdings (tau-argus: a third or fourth P or NK rule, a second FREQ or REQ rule)."""

    name: str
    numbers: tuple[float, ...]
    holding: bool


@dataclasses.dataclass(frozen=True)
class SafetyRule(BatchCommand):
    """The rules of the last table specified (none: the statuses of a table read are used)."""

    rules: tuple[Rule, ...]


@dataclasses.dataclass(frozen=True)
class ReadTable(BatchCommand):
    """READTABLE: tau-argus's additivity parameter -- 0 the totals must add up, 1 compute the
    totals from their parts, 2 additivity not required --, and whether statuses are kept."""

    totals: int
    keep_status: bool


@dataclasses.dataclass(frozen=True)
class AprioriCommand(BatchCommand):
    """APRIORI file, table number, separator, ignore errors, expand trivial levels."""

    path: Path
    table: int
    separator: str
    ignore_errors: bool
    expand_trivial: bool


@dataclasses.dataclass(frozen=True)
class Suppress(BatchCommand):
    """SUPPRESS method(table, arguments...); table 0 asks for the linked tables."""

    method: str
    table: int
    arguments: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class WriteTable(BatchCommand):
    """WRITETABLE (table, output type, options, file)."""

    table: int
    output: int
    options: dict[str, bool]
    path: Path


@dataclasses.dataclass(frozen=True)
class BatchFile:
    """A batch file's commands in order."""

    path: Path
    commands: tuple[BatchCommand, ...]


#: commands that take nothing (tau-argus accepts them; SOLVER takes its name)
_PLAIN = ("READMICRODATA", "GOINTERACTIVE", "CLEAR", "SILENT", "ANCO")


def read_batch(path: str | Path) -> BatchFile:
    """Every command of a `.arb` file, checked for its arguments (not yet run)."""
    path = Path(path)
    commands: list[BatchCommand] = []
    for row, line in enumerate(read_lines(path), start=1):
        text = line.strip()
        if not text or text.startswith("//") or text.startswith("\\\\"):
            continue
        match = re.match(r"<\s*([A-Za-z]+)\s*>\s*(.*)$", text)
        if not match:
            raise BatchError(f"'{text}' is not a command like <OPENMICRODATA> \"file\"", file=path, row=row)
        keyword, rest = match.group(1).upper(), match.group(2).strip()
        keyword = "APRIORI" if keyword == "APRIORY" else keyword
        try:
            commands.append(_command(path, row, keyword, rest))
        except BatchError:
            raise
        except (FileFormatError, ValueError) as error:
            raise BatchError(str(error), file=path, row=row, command=keyword) from None
    return BatchFile(path, tuple(commands))


def _command(path: Path, row: int, keyword: str, rest: str) -> BatchCommand:
    if keyword in ("OPENMICRODATA", "OPENTABLEDATA", "OPENMETADATA"):
        found, notes = resolve_input(path, _unquote(rest))
        return FileCommand(keyword, row, rest, path=found, notes=notes)
    if keyword in ("LOGBOOK", "VERSIONINFO"):
        found, notes = resolve_output(path, _unquote(rest))
        return FileCommand(keyword, row, rest, path=found, notes=notes)
    if keyword == "SPECIFYTABLE":
        return _specify_table(row, rest)
    if keyword == "SAFETYRULE":
        return SafetyRule(keyword, row, rest, rules=_rules(rest))
    if keyword == "READTABLE":
        return _read_table(row, rest)
    if keyword == "APRIORI":
        return _apriori(path, row, rest)
    if keyword == "SUPPRESS":
        return _suppress(row, rest)
    if keyword == "WRITETABLE":
        return _write_table(path, row, rest)
    if keyword == "SOLVER":
        name = rest.split(",")[0].strip().strip('"').upper()
        if name not in ("FREE", "CPLEX", "XPRESS"):
            raise ValueError(f"unknown solver '{name}' (tau-argus's are FREE, CPLEX and XPRESS)")
        return BatchCommand(keyword, row, rest, notes=(f"solver {name} accepted; ctadesk solves with HiGHS "
                                                       "and Clarabel",))
    if keyword in _PLAIN:
        return BatchCommand(keyword, row, rest)
    raise ValueError("ctadesk does not run this command (it runs OPENMICRODATA, OPENTABLEDATA, OPENMETADATA, "
                     "SPECIFYTABLE, SAFETYRULE, READMICRODATA, READTABLE, APRIORI, SUPPRESS, WRITETABLE, LOGBOOK, "
                     "VERSIONINFO, SOLVER, GOINTERACTIVE, CLEAR)")


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def _specify_table(row: int, rest: str) -> SpecifyTable:
    """`"A""B"|"Resp"|"Shadow"|"Cost"[,lambda]`; response `<FREQ>` for a frequency table."""
    parts = rest.split("|")
    explanatory = tuple(re.findall(r'"([^"]*)"', parts[0])) or tuple(parts[0].split())
    if not explanatory:
        raise ValueError("no explanatory variables: write them first, e.g. \"Size\"\"Region\"|\"Var2\"")
    if len(parts) < 2 or not _unquote(parts[1]):
        raise ValueError("no response variable after the explanatory ones (a name, or <FREQ>)")
    if len(parts) > 4:
        raise ValueError(f"{len(parts)} parts separated by '|'; at most 4: explanatory|response|shadow|cost")
    response = _unquote(parts[1])
    shadow = _unquote(parts[2]) if len(parts) > 2 and _unquote(parts[2]) else None
    cost, cost_lambda = None, None
    if len(parts) > 3:
        cost_text, _, lambda_text = parts[3].partition(",")
        cost = _unquote(cost_text) or None
        if lambda_text.strip():
            cost_lambda = float(lambda_text)
    return SpecifyTable("SPECIFYTABLE", row, rest, explanatory=explanatory,
                        response=None if response.upper() == "<FREQ>" else response, shadow=shadow, cost=cost,
                        cost_lambda=cost_lambda)


#: each rule: how many numbers it takes (least, most)
_RULE_ARITY = {"P": (1, 3), "NK": (2, 2), "FREQ": (2, 2), "ZERO": (1, 1), "REQ": (4, 4), "WGT": (1, 1),
               "MIS": (1, 1), "MAN": (1, 1)}


def _rules(rest: str) -> tuple[Rule, ...]:
    """`P(15,1)|NK(3,70)|FREQ(3,10)|...`: the first two P and NK rules apply to individual
    contributions, the next two to holdings; the first FREQ and REQ rule to individuals, the second
    to holdings (tau-argus manual §5.7)."""
    rules: list[Rule] = []
    counts: dict[str, int] = {}
    text = rest.strip()
    while text:
        match = re.match(r"([A-Za-z]+)\s*\(([^)]*)\)\s*(\|?)\s*", text)
        if not match:
            raise ValueError(f"cannot read '{text}': expected rules like P(15,1)|NK(3,70), separated by '|'")
        name, arguments = match.group(1).upper(), [a.strip() for a in match.group(2).split(",")]
        if name not in _RULE_ARITY:
            raise ValueError(f"unknown rule '{name}' (tau-argus's are {', '.join(_RULE_ARITY)})")
        least, most = _RULE_ARITY[name]
        if not least <= len(arguments) <= most:
            raise ValueError(f"{name}({match.group(2)}) takes {least if least == most else f'{least} to {most}'} "
                             "numbers")
        try:
            numbers = tuple(float(a) for a in arguments)
        except ValueError:
            raise ValueError(f"{name}({match.group(2)}): the arguments must be numbers") from None
        count = counts.get(name, 0)
        holding_from = {"P": 2, "NK": 2, "FREQ": 1, "REQ": 1}.get(name)
        limit = {"P": 4, "NK": 4, "FREQ": 2, "REQ": 2}.get(name, 1)
        if count >= limit:
            raise ValueError(f"too many {name} rules (at most {limit})")
        counts[name] = count + 1
        rules.append(Rule(name, numbers, holding_from is not None and count >= holding_from))
        text = text[match.end():]
    return tuple(rules)


def _read_table(row: int, rest: str) -> ReadTable:
    """`<READTABLE> [0|1|2][T|F]`."""
    text = rest.strip().upper()
    totals = int(text[0]) if text and text[0].isdigit() else 0
    tail = text[1:].strip() if text and text[0].isdigit() else text
    if totals not in (0, 1, 2) or tail not in ("", "T", "F") or (tail and totals != 1):
        raise ValueError(f"'{rest}': expected 0 (totals must add up), 1 (compute the totals; 1T keeps the "
                         "statuses) or 2 (additivity not required)")
    return ReadTable("READTABLE", row, rest, totals=totals, keep_status=tail == "T")


def _apriori(path: Path, row: int, rest: str) -> AprioriCommand:
    """`<APRIORI> "file.hst", table, "separator"[, ignore errors 0/1[, expand trivial levels 0/1]]`."""
    parts = [part.strip() for part in next(csv.reader([rest], skipinitialspace=True))]
    if len(parts) < 3:
        raise ValueError(f"'{rest}': expected \"file.hst\", table number, \"separator\"")
    found, notes = resolve_input(path, _unquote(parts[0]))
    separator = _unquote(parts[2])
    if not separator:
        raise ValueError("no separator given")
    flags = []
    for text in parts[3:5]:
        if text not in ("", "0", "1"):
            raise ValueError(f"'{text}' must be 0 or 1")
        flags.append(text)
    ignore = not flags or flags[0] != "0"
    expand = len(flags) > 1 and flags[1] == "1"
    return AprioriCommand("APRIORI", row, rest, path=found, table=_table_number(parts[1]), separator=separator,
                          ignore_errors=ignore, expand_trivial=expand, notes=notes)


def _table_number(text: str, least: int = 1) -> int:
    if not text.strip().isdigit() or int(text) < least:
        raise ValueError(f"table number '{text.strip()}' must be a whole number from {least}")
    return int(text)


def _suppress(row: int, rest: str) -> Suppress:
    """`<SUPPRESS> METHOD(table, arguments...)`."""
    match = re.fullmatch(r"([A-Za-z]+)\s*\(([^)]*)\)\s*", rest)
    if not match:
        raise ValueError(f"'{rest}': expected a method and its table, e.g. CTA(1)")
    method = match.group(1).upper()
    arguments = [a.strip() for a in match.group(2).split(",")]
    known = ("CTA", "RND", *SUPPRESSION_METHODS)
    if method not in known:
        raise ValueError(f"unknown method '{method}' (tau-argus's are {', '.join(known)}; CKM is not run)")
    table = _table_number(arguments[0], least=0 if method in ("GH", "MOD") else 1)
    if method == "RND" and (len(arguments) < 2 or not arguments[1].isdigit() or int(arguments[1]) < 1):
        raise ValueError("RND(table, base, ...) needs a rounding base, a whole number from 1")
    return Suppress("SUPPRESS", row, rest, method=method, table=table, arguments=tuple(arguments[1:]))


def _write_table(path: Path, row: int, rest: str) -> WriteTable:
    """`<WRITETABLE> (table, output type, options, "file")`; options like AS+FL+QU-."""
    match = re.fullmatch(r"\(\s*([^,]*),\s*([^,]*),\s*([^,]*),\s*(.*?)\s*\)\s*", rest)
    if not match:
        raise ValueError(f"'{rest}': expected (table, output type, options, \"file\")")
    table = _table_number(match.group(1))
    kind_text = match.group(2).strip()
    if not kind_text.isdigit() or int(kind_text) not in OUTPUT_TYPES:
        raise ValueError(f"output type '{kind_text}': ctadesk writes "
                         + ", ".join(f"{k} ({name})" for k, name in OUTPUT_TYPES.items()))
    kind = int(kind_text)
    options = {"AS": False, "SE": False, "FL": kind == 2, "QU": True, "HL": False, "TR": False}
    text = match.group(3).replace(" ", "").upper()
    for option, sign in re.findall(r"([A-Z]{2})([+-])", text):
        if option not in WRITE_OPTIONS:
            raise ValueError(f"option '{option}' is not one ctadesk writes ({', '.join(WRITE_OPTIONS)})")
        options[option] = sign == "+"
    if re.sub(r"[A-Z]{2}[+-]", "", text):
        raise ValueError(f"options '{match.group(3).strip()}': write them as AS+FL+QU- (two letters, then + or -)")
    found, notes = resolve_output(path, _unquote(match.group(4)))
    return WriteTable("WRITETABLE", row, rest, table=table, output=kind, options=options, path=found, notes=notes)


# ---------------------------------------------------------------------------- files
def _name_of(text: str) -> str:
    """The file name of a path written for Windows or for POSIX."""
    return PureWindowsPath(text).name if ("\\" in text or ":" in text) else PurePosixPath(text).name


def resolve_input(batch: Path, text: str) -> tuple[Path, tuple[str, ...]]:
    """A file a command reads: as written (relative to the batch file's folder), else by its file
    name beside the batch file, case-insensitively."""
    if not text:
        raise ValueError("no file named")
    written = Path(text)
    candidate = written if written.is_absolute() else batch.parent / written
    if "\\" not in text and candidate.is_file():
        return candidate, ()
    name = _name_of(text)
    beside = batch.parent / name
    if not beside.is_file() and batch.parent.is_dir():
        beside = next((p for p in batch.parent.iterdir() if p.name.lower() == name.lower() and p.is_file()), beside)
    if not beside.is_file():
        raise ValueError(f"the file '{text}' does not exist (looked for {name} beside {batch.name})")
    note = () if beside == candidate else (f"'{text}' is not on this machine: read {beside.name} beside {batch.name}",)
    return beside, note


def resolve_output(batch: Path, text: str) -> tuple[Path, tuple[str, ...]]:
    """A file a command writes: as written (relative to the batch file's folder) when its folder
    exists, else by its file name beside the batch file."""
    if not text:
        raise ValueError("no file named")
    written = Path(text)
    candidate = written if written.is_absolute() else batch.parent / written
    if "\\" not in text and candidate.parent.is_dir():
        return candidate, ()
    beside = batch.parent / _name_of(text)
    return beside, (f"the folder of '{text}' is not on this machine: {beside.name} written beside {batch.name}",)
