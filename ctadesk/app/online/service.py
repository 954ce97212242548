"""The on-line table service (Castro & González 2011 §4): tables requested one after another from
one microdata set, each protected at once and consistently with every table published before.
The algorithm's parts (the table's CTA problem, the first stage's senses, the second stage, the
relaxation, the published precision) are ctadesk.engine.online; this module holds the service
around them: the sense store, the requested table, what is recorded and what is published.

    with OnlineService("senses.db", microdata, rules, measure="Turnover") as service:
        table = service.publish(("Region", "Size"))
        table.records()            # what may be published: codes, values, public statuses
        table.office.relaxation    # for the office only: what the second stage gave up

The two stages of the paper:

* **First stage.**  The table is tabulated and the safety rules applied; rules that depend only
  on a cell's contributors make a cell sensitive in every table or in none (consistency on
  input), with the same protection levels.  Cell bounds are the data set's (non-negative when
  every response is), never the table's, so they too are the same everywhere.  Sensitive cells
  seen before take their stored sense; new ones get one (ctadesk.engine.online.senses: ``data``,
  from the data set's full table protected once, which guarantees every later table a table;
  ``local``; or ``table``), recorded in the store in one transaction that reads back what it
  holds, so a sense another process stored first wins (consistency on output).
* **Values from the full table.**  With ``data`` senses the full table's protected table is
  stored with its senses (prepare), and a table whose senses all come from it is read from it
  (values ``full``, the default): every cell has one value in every table, so no table
  contradicts another and none needs a solver; the table read is checked (relations, levels,
  sides) before it is published, and goes to the second stage if it fails.
* **Second stage** (values ``table``, or other senses).  The fixed-sense L1 LP over the cells
  not published before, those held at their last published values (method ``lp``: small and
  fast, efficiency); when the held values
  admit no table, the same LP over every cell with the published values as heavily weighted
  targets (a published value is given up before additivity or protection); when the senses
  themselves admit no table (possible with ``local`` or ``table`` senses), the fixed-sense L1 LP
  with soft relations and soft protection levels (method ``soft-lp``, Castro & González 2011 §4
  "reliability"): a table always comes back; a sensitive cell may fall short of its safe value,
  never cross to the other side of its stored sense, which is checked before anything is
  published.  What was given up is reported in the table's terms, to the office only.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from ctadesk.app.online.binding import StoreBinding
from ctadesk.app.online.cells import cell_keys
from ctadesk.app.online.errors import OnlineError
from ctadesk.app.online.levels import cut, requested_level
from ctadesk.app.online.store import BUSY_TIMEOUT, open_store
from ctadesk.engine.online import (
    SENSE_CHOICES,
    Relaxation,
    crossed_sides,
    full_table_senses,
    keyed_shares,
    local_senses,
    on_grid,
    pinned,
    plain_cells,
    second_stage,
    table_problem,
    table_senses,
)
from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.publish.precision import published_decimals
from ctadesk.engine.result import Status
from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.engine.settings import FULL_TABLE_BUDGET, TIME_BUDGET, VALUE_CHOICES
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import TableStructure

#: the largest full table the ``data`` choice protects (the engine's heuristics reach a million cells)
FULL_TABLE_CELLS = 1_000_000
#: VALUE_CHOICES (ctadesk.engine.settings), where a table's values come from with ``data`` senses:
#: the full table's protected values read at its cells (every cell has one value in every table,
#: and no table ever contradicts another), or the table's own second stage (closer to the table's
#: original values, but a later table may have to give up values published before; other senses
#: always use it)
#: public statuses: a cell without contributors (0, unchanged) and every other cell
EMPTY, PUBLISHED = "empty", "published"


@dataclasses.dataclass(frozen=True)
class OfficeReport:
    """What the office sees of a published table, never the public.

    sensitive      sensitive cells in the table
    new_senses     of them, cells seen for the first time (their sense chosen now)
    chosen_by      how new senses were chosen: 'local', 'table', or 'local' after a failed 'table'
    taken_over     new senses another process stored first (theirs were used)
    pinned         non-sensitive cells held at the value they were first published with
    relaxation     what the second stage gave up (empty: a protected table)
    values_from    'full': read from the full table's protected values; 'table': the table's
                   second stage
    status         the second stage's status and message (a table read: 'feasible', verified)
    objective      its weighted L1 distance from the original table
    seconds        wall time of the request
    """

    sensitive: int
    new_senses: int
    chosen_by: str
    taken_over: int
    pinned: int
    relaxation: Relaxation
    values_from: str
    status: str
    message: str
    objective: float
    seconds: float

    def lines(self) -> list[str]:
        return [f"{self.sensitive} sensitive cells, {self.new_senses} new senses ({self.chosen_by})"
                + (f", {self.taken_over} taken from a concurrent request" if self.taken_over else "")
                + f"; {self.pinned} cells held at their published value",
                ("values: read from the full table's protected table, checked"
                 if self.values_from == "full" else f"second stage: {self.status} ({self.message})")
                + f"; distance {self.objective:.6g}; {self.seconds:.2f} s",
                *self.relaxation.lines()]


@dataclasses.dataclass(frozen=True, eq=False)
class OnlineTable:
    """A published table: its id in the store, measure, structure (spanning variables and
    codes), values and public statuses (EMPTY or PUBLISHED: nothing tells sensitive cells apart),
    and the office's report."""

    table_id: int
    measure: str
    structure: TableStructure
    values: np.ndarray
    statuses: tuple[str, ...]
    office: OfficeReport

    @property
    def spanning(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.structure.dimensions)

    def records(self) -> list[dict]:
        """One dict per cell: its code in each spanning variable, its value and public status."""
        coordinates = np.unravel_index(np.arange(self.structure.n_cells), self.structure.shape)
        return [{**{d.name: d.codes[coordinates[j][i]] for j, d in enumerate(self.structure.dimensions)},
                 self.measure: float(self.values[i]), "status": self.statuses[i]}
                for i in range(self.structure.n_cells)]


def requested_variables(microdata: Microdata, spanning: Sequence[str]) -> list[tuple[str, int | None]]:
    """The variables ``spanning`` names, each with the level it asks for; OnlineError naming an
    unknown or repeated one (before any work: a new store first protects its full table)."""
    names = [d.name for d in microdata.structure.dimensions]
    if not spanning:
        raise OnlineError("a table needs at least one spanning variable")
    requested = [requested_level(item, names) for item in spanning]
    unknown = [name for name, _ in requested if name not in names]
    if unknown:
        raise OnlineError(f"no variable '{unknown[0]}' in the microdata (variables: {', '.join(names)})")
    if len({name for name, _ in requested}) != len(requested):
        raise OnlineError(f"table '{' x '.join(spanning)}' names a variable twice")
    return requested


def table_microdata(microdata: Microdata, spanning: Sequence[str]) -> Microdata:
    """The records of ``microdata`` spanned by the variables ``spanning`` (in that order), each
    down to the level it asks for ("Region:1", ctadesk.app.online.levels)."""
    names = [d.name for d in microdata.structure.dimensions]
    dimensions, codes = [], []
    for name, level in requested_variables(microdata, spanning):
        d = names.index(name)
        dimension, column = microdata.structure.dimensions[d], microdata.codes[d]
        if level is not None:
            dimension, column = cut(dimension, column, level)
        dimensions.append(dimension)
        codes.append(column)
    return Microdata(TableStructure(tuple(dimensions)), tuple(codes), microdata.response, microdata.weight,
                     microdata.holding, microdata.request)


class OnlineService:
    """Publishes tables of one microdata set consistently (module docstring).

    store_path    the sense store: an SQLite file or a postgresql:// URL (ctadesk.app.online.store),
                  bound to the microdata, measure and rules; refused when missing, empty or bound
                  to other data
    init_store    make the store (refused when there is one): ctadesk serve --init-store
    microdata     records with every variable a table may span (its dimensions)
    rules         the safety rules, the same for every table
    measure       the name of the response variable (senses are kept per measure)
    senses        how new senses are chosen: 'data', 'local' or 'table' (ctadesk.engine.online.senses)
    values        with 'data' senses, where a table's values come from (VALUE_CHOICES): 'full'
                  (the default) or 'table'; other senses take 'table' only
    time_budget   seconds the 'table' choice may spend per table (default TIME_BUDGET), the 'data'
                  choice once, on the full table (default FULL_TABLE_BUDGET)
    weights       cell weights of the distance: 'inverse' (1/|a|) or 'unit'
    pin_published hold each non-sensitive cell at the value it was first published with (the
                  store keeps it), so that no table contradicts an earlier one (Castro & González 2011 §4)
    time_limit    seconds the second stage may take per table (inf: no limit)

    One service holds one connection: use it from one thread at a time; give each thread (or
    process) its own service over the same store to serve requests in parallel.
    """

    def __init__(self, store_path: str | Path, microdata: Microdata, rules: SafetyRules, *, measure: str,
                 senses: str = "data", values: str | None = None, time_budget: float | None = None,
                 weights: str = "inverse",
                 pin_published: bool = True, time_limit: float = math.inf,
                 busy_timeout: float = BUSY_TIMEOUT, init_store: bool = False) -> None:
        if senses not in SENSE_CHOICES:
            raise OnlineError(f"senses '{senses}': choose {' or '.join(SENSE_CHOICES)}")
        values = values or ("full" if senses == "data" else "table")
        if values not in VALUE_CHOICES:
            raise OnlineError(f"values '{values}': choose {' or '.join(VALUE_CHOICES)}")
        if values == "full" and senses != "data":
            raise OnlineError(f"values 'full' are read from the full table, which senses '{senses}' do not protect: "
                              "choose senses 'data' or values 'table'")
        if time_budget is None:
            time_budget = FULL_TABLE_BUDGET if senses == "data" else TIME_BUDGET
        if not time_budget > 0:
            raise OnlineError(f"time budget {time_budget}: it must be positive")
        if not time_limit > 0:
            raise OnlineError(f"time limit {time_limit}: it must be positive")
        self.microdata, self.rules, self.measure = microdata, rules, measure
        self.sense_choice, self.values, self.time_budget, self.weights = senses, values, time_budget, weights
        self.pin_published, self.time_limit = pin_published, time_limit
        self.nonnegative = bool(np.all(microdata.response >= 0))
        #: the precision every table is published at: the data's own (engine/precision.published_decimals)
        self.decimals = published_decimals(microdata.response if microdata.weight is None
                                           else microdata.response * microdata.weight)
        self.store = open_store(store_path, StoreBinding.of(microdata, rules, measure), create=init_store,
                                busy_timeout=busy_timeout)
        #: why the full table gave no senses ('data'), once prepare() has run; None: it gave them
        self.full_table_failure: str | None = None
        self._prepared = senses != "data"

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> OnlineService:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ the two stages
    def problem(self, spanning: Sequence[str]) -> tuple[TableStructure, CTAProblem]:
        """The table ``spanning`` and its CTA problem (ctadesk.engine.online.table_problem): sensitive
        cells and levels from the rules, widened by the store's secret factors of each cell (the
        same in every table) and moved out to the grid of the data's decimals, the data set's
        bounds, the service's weights."""
        structure, problem, _ = self._keyed_problem(spanning)
        return structure, problem

    def _keyed_problem(self, spanning: Sequence[str]) -> tuple[TableStructure, CTAProblem, list[str]]:
        """problem() and every cell's key (cells.cell_keys)."""
        micro = table_microdata(self.microdata, tuple(spanning))
        keys = cell_keys(micro.structure)
        return micro.structure, table_problem(micro, self.rules, keys, self.store.secret, self.decimals,
                                              nonnegative=self.nonnegative, weights=self.weights), keys

    def _with_stored_senses(self, spanning: Sequence[str]) -> tuple[TableStructure, CTAProblem, list[str], list[str],
                                                                    np.ndarray]:
        """The table ``spanning``: its structure and problem, every cell's key, the sensitive
        cells' keys and their stored senses (SENSE_FREE where none), checked against the bounds."""
        structure, problem, keys = self._keyed_problem(spanning)
        sensitive = [keys[i] for i in problem.sensitive]
        stored = self.store.senses(self.measure, sensitive)
        known = np.array([stored.get(key, SENSE_FREE) for key in sensitive], dtype=np.int8)
        _check_stored(problem, known)
        return structure, problem, keys, sensitive, known

    def prepare(self) -> list[str]:
        """With ``data`` senses: protect the data set's full table (every variable of the
        microdata, every level) once, the senses stored before given, and store the senses of its
        sensitive cells that have none with its protected values, which every later table is read
        from (ctadesk.engine.online.senses); where every sensitive cell has a sense but no values are
        stored (senses chosen another way; a store of schema 1), the values from the stored senses.
        Values published before are kept where the senses allow (second_stage).  Runs before the
        first table is published; a server calls it at start.  Lines for the log.  OnlineError
        when the full table is larger than FULL_TABLE_CELLS."""
        if self._prepared:
            return []
        names = tuple(d.name for d in self.microdata.structure.dimensions)
        cells = math.prod(d.size for d in self.microdata.structure.dimensions)
        if cells > FULL_TABLE_CELLS:
            raise OnlineError(f"the full table {' x '.join(names)} has {cells} cells; senses from it ('data') are "
                              f"offered up to {FULL_TABLE_CELLS}: choose senses 'table' or 'local', or fewer variables")
        self._prepared = True
        started = time.perf_counter()
        structure, problem, keys, sensitive, known = self._with_stored_senses(names)
        title = f"full table {' x '.join(names)} ({structure.n_cells} cells)"
        pins = self._pins(keys, plain_cells(problem))
        if not np.any(known == SENSE_FREE):
            if self.store.has_reference(self.measure):
                return [f"{title}: every one of its {len(sensitive)} sensitive cells has a sense"]
            senses, values, how = known, None, "the senses stored"
        else:
            coins = local_senses(problem, sensitive, self.store.secret)
            draws = keyed_shares(sensitive, self.store.secret, "mix")
            found, values, how = full_table_senses(problem, known, self.time_budget, coins, draws,
                                                   seed=int(keyed_shares(["flips"], self.store.secret, "seed")[0]
                                                            * 2 ** 53))
            if found is None:
                self.full_table_failure = how
                return [f"{title}: {how}; new senses will be local, with no guarantee that later tables have a "
                        "table"]
            senses = found
        if values is None or pins:
            fixed_senses = problem.with_senses(senses)
            second, _, message, values = second_stage(fixed_senses, pins, self.time_limit)
            if values is None or Relaxation.of(second, senses, values, problem.n_relations).broken:
                self.full_table_failure = f"no protected table with {how} ({message})"
                return [f"{title}: {self.full_table_failure}; tables will be protected one by one"]
        gridded = on_grid(pinned(problem.with_senses(senses), pins), senses, values, self.decimals, self.time_budget)
        if gridded is None:
            self.full_table_failure = f"no protected table with {how} at the data's {self.decimals} decimals"
            return [f"{title}: {self.full_table_failure}; tables will be protected one by one"]
        values = gridded
        new = {key: int(senses[k]) for k, key in enumerate(sensitive) if known[k] == SENSE_FREE}
        self.store.decide(self.measure, names, sensitive, new, "data", reference=dict(zip(keys, values.tolist())))
        return [f"{title} protected by {how}; {len(new)} senses and its protected values stored in "
                f"{time.perf_counter() - started:.1f} s"]

    def _pins(self, keys: Sequence[str], plain: np.ndarray) -> dict[int, float]:
        """Cell position -> the value last published for each of the non-sensitive cells ``plain``
        published before (none when the service does not hold published values)."""
        if not self.pin_published:
            return {}
        position = {key: i for i, key in enumerate(keys)}
        return {position[key]: value
                for key, value in self.store.published_values(self.measure, [keys[i] for i in plain]).items()}

    def publish(self, spanning: Sequence[str], abandoned: Callable[[], bool] | None = None) -> OnlineTable:
        """Protect and publish the table ``spanning`` (module docstring); OnlineError when it
        cannot be published.  ``abandoned`` is asked just before the table is recorded as
        published: True (its requester stopped waiting) leaves it recorded as requested only, its
        values not held for later tables (the senses chosen stay: they are consistent either way)."""
        requested_variables(self.microdata, tuple(spanning))
        self.prepare()
        started = time.perf_counter()
        spanning = tuple(spanning)
        structure, problem, keys, sensitive, known = self._with_stored_senses(spanning)
        chosen, chosen_by = self._first_stage(problem, sensitive, known)
        new = {key: int(chosen[k]) for k, key in enumerate(sensitive) if known[k] == SENSE_FREE}
        table_id, decided = self.store.decide(self.measure, spanning, sensitive, new, chosen_by)
        senses = np.array([decided[key] for key in sensitive], dtype=np.int8)
        taken_over = sum(decided[key] != sense for key, sense in new.items())

        plain = plain_cells(problem)
        pins = self._pins(keys, plain)
        fixed_senses = problem.with_senses(senses)
        second, status, message, values = self._from_reference(fixed_senses, keys, pins, bool(new))
        values_from = "table" if values is None else "full"
        if values is None:
            second, status, message, values = second_stage(fixed_senses, pins, self.time_limit)
        if values is None:
            raise OnlineError(f"table {' x '.join(spanning)}: the second stage returned no table ({message})")
        check_sides(second, senses, values)
        relaxation = Relaxation.of(second, senses, values, problem.n_relations)
        if relaxation:
            raise TableWithheld(f"table {' x '.join(spanning)} is withheld: no table protects it consistently with "
                                f"the tables published before ({_withheld_why(relaxation)}); none of its values was "
                                "recorded")
        if values_from == "table":
            values = on_grid(second, senses, values, self.decimals, self.time_limit)
            if values is None:
                raise TableWithheld(f"table {' x '.join(spanning)} is withheld: no protected table at the data's "
                                    f"{self.decimals} decimals was found; none of its values was recorded")
        if abandoned is not None and abandoned():
            raise OnlineError(f"table {' x '.join(spanning)}: abandoned by its requester; not published")

        held_at = np.full(problem.n_cells, np.nan)
        held_at[list(pins)] = list(pins.values())
        changed = plain[values[plain] != held_at[plain]]         # new, or published before at another value
        self.store.publish(table_id, self.measure, dict(zip([keys[i] for i in changed], values[changed].tolist())))
        statuses = tuple(EMPTY if fixed else PUBLISHED for fixed in problem.fixed)
        distance = float(problem.weights @ np.abs(values - problem.values))
        office = OfficeReport(problem.n_sensitive, len(new), chosen_by, taken_over, len(pins), relaxation,
                              values_from, status, message, distance, time.perf_counter() - started)
        return OnlineTable(table_id, self.measure, structure, values, statuses, office)

    def _from_reference(self, problem: CTAProblem, keys: Sequence[str], pins: Mapping[int, float],
                        new_senses: bool) -> tuple[CTAProblem, str, str, np.ndarray | None]:
        """With ``data`` senses and no new sense: the table read from the full table's protected
        values (prepare), as second_stage() reports it; values None when the store lacks one of
        its cells or the table read does not verify (the second stage then protects it)."""
        if self.values != "full" or self.full_table_failure is not None or new_senses:
            return problem, "", "", None
        reference = self.store.reference_values(self.measure, keys)
        if len(reference) < len(keys):
            return problem, "", "", None
        values = np.array([reference[key] for key in keys])
        soft = pinned(problem, pins)
        if Relaxation.of(soft, problem.senses, values, problem.n_relations).broken:
            return problem, "", "", None
        return soft, Status.FEASIBLE.value, "read from the full table's protected table and verified", values

    def _first_stage(self, problem: CTAProblem, cells: Sequence[str], known: np.ndarray) -> tuple[np.ndarray, str]:
        """Senses (s,) for every sensitive cell, the stored ones kept, and how new ones were chosen."""
        if not np.any(known == SENSE_FREE):
            return known, self.sense_choice
        local = np.where(known != SENSE_FREE, known, local_senses(problem, cells, self.store.secret))
        if self.sense_choice == "local":
            return local, "local"
        if self.sense_choice == "data":
            return local, ("local after a failed 'data'" if self.full_table_failure else
                           "local: cells the full table did not have (was the microdata changed?)")
        from_table = table_senses(problem, known, self.time_budget)
        if from_table is None:
            return local, "local after a failed 'table'"
        return from_table, "table"


class TableWithheld(OnlineError):
    """A table the service will not publish: no table protects it consistently with what was
    published before, or none at the data's precision (the message says which and names no value).
    None of its values is recorded; the senses its new sensitive cells were given stay stored, so
    the table is withheld again, and a later table meets the same senses (consistency on output)."""


def _withheld_why(relaxation: Relaxation) -> str:
    """What a relaxed table would have given up, in counts (a public message names no cell)."""
    parts = [(len(relaxation.protection), "protection level", "protection levels"),
             (len(relaxation.relations), "relation", "relations"),
             (len(relaxation.published), "value published before", "values published before")]
    return ", ".join(f"{count} {one if count == 1 else many} given up" for count, one, many in parts if count)


def _check_stored(problem: CTAProblem, known: np.ndarray) -> None:
    """OnlineError naming the first cell whose stored sense its bounds now forbid (the microdata
    or the rules changed under the store)."""
    up_ok, down_ok = problem.safe_value_fits()
    bad = np.flatnonzero(((known == SENSE_UP) & ~up_ok) | ((known == SENSE_DOWN) & ~down_ok))
    if bad.size:
        cell = problem.describe_cell(int(problem.sensitive[bad[0]]))
        raise OnlineError(f"{cell}: its stored sense leaves no safe value within its bounds; the store was "
                          "written for other microdata or other rules")


def check_sides(problem: CTAProblem, senses: np.ndarray, values: np.ndarray) -> None:
    """OnlineError unless every sensitive cell is published on the side of its sense or at its
    true value (ctadesk.engine.online.crossed_sides): the guarantee the store exists for."""
    crossed = crossed_sides(problem, senses, values)
    if crossed.size:
        raise OnlineError(f"{problem.describe_cell(int(problem.sensitive[crossed[0]]))} would be published on the "
                          "other side of its stored sense; the table is withheld")
