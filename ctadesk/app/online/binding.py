"""What a sense store protects: a fingerprint of the microdata, the measure and the safety rules,
written into the store when it is made (``ctadesk serve --init-store``) and compared every time
it is opened.  A store's senses are only consistent for the data they were chosen on: a store
opened for other records, another measure or other rules would publish cells on the wrong side
of values it never saw, and a store started afresh would put cells on both sides of their true
value (issue 30: 399 of 750 sensitive cells).

The fingerprint, in a canonical form (SHA-256 of fixed-width little-endian bytes and UTF-8 text):

* records: their number, responses (float64), weights, holdings and request codes, in the
  records' order (a re-sorted file is other microdata: refused, never wrongly accepted);
* each spanning variable on its own: every record's code (UTF-8) and the hierarchy, each code
  with its parent's code, in sorted order; a variable the store has not seen is added to it (the
  same records spanned another way: ``ctadesk online`` reads only a table's variables);
* the safety rules, every field (JSON with sorted keys), kept in the clear so that a mismatch
  names the rule that differs;
* the measure, by name.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import Dimension

#: the meta rows a binding is kept in
META_NAMES = ("measure", "records", "record_count", "variables", "rules")


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _array(values: np.ndarray | None, dtype: str) -> bytes:
    return b"none" if values is None else np.ascontiguousarray(values, dtype=dtype).tobytes()


def variable_fingerprint(dimension: Dimension, column: np.ndarray) -> str:
    """SHA-256 of one spanning variable: its name, every record's code and the hierarchy."""
    codes = np.asarray(dimension.codes, dtype=object)
    hierarchy = sorted((code, dimension.codes[parent] if parent >= 0 else "")
                       for code, parent in zip(dimension.codes, dimension.parents.tolist()))
    return _digest(dimension.name.encode(), "\0".join(codes[column]).encode(),
                   json.dumps(hierarchy, ensure_ascii=False).encode())


@dataclasses.dataclass(frozen=True)
class StoreBinding:
    """The fingerprint of what a store protects (module docstring)."""

    measure: str
    records: str
    record_count: int
    variables: Mapping[str, str]
    rules: Mapping[str, Any]

    @classmethod
    def of(cls, microdata: Microdata, rules: SafetyRules, measure: str) -> StoreBinding:
        """The binding of ``measure`` of ``microdata`` protected by ``rules``."""
        records = _digest(_array(microdata.response, "<f8"), _array(microdata.weight, "<f8"),
                          _array(microdata.holding, "<i8"), _array(microdata.request, "<i8"))
        variables = {d.name: variable_fingerprint(d, column)
                     for d, column in zip(microdata.structure.dimensions, microdata.codes)}
        return cls(measure, records, int(microdata.response.size), variables,
                   json.loads(json.dumps(dataclasses.asdict(rules), sort_keys=True)))

    def meta(self) -> dict[str, str]:
        """The binding as the store's meta rows (META_NAMES)."""
        return {"measure": self.measure, "records": self.records, "record_count": str(self.record_count),
                "variables": json.dumps(dict(self.variables), sort_keys=True),
                "rules": json.dumps(self.rules, sort_keys=True)}

    @classmethod
    def from_meta(cls, meta: Mapping[str, str]) -> StoreBinding | None:
        """The binding kept in a store's meta rows; None when it holds none (made by a ctadesk
        before stores were bound); ValueError when the rows are damaged."""
        if not any(name in meta for name in META_NAMES):
            return None
        return cls(meta["measure"], meta["records"], int(meta["record_count"]), json.loads(meta["variables"]),
                   json.loads(meta["rules"]))

    def mismatch(self, wanted: StoreBinding) -> str | None:
        """Why a store bound to this cannot serve ``wanted`` (None: it can; variables the store
        does not know are no mismatch, see new_variables)."""
        if wanted.measure != self.measure:
            return f"it protects the measure '{self.measure}', not '{wanted.measure}'"
        if wanted.records != self.records or wanted.record_count != self.record_count:
            return (f"it protects other microdata ({self.record_count} records, fingerprint {self.records[:12]}; "
                    f"these are {wanted.record_count} records, fingerprint {wanted.records[:12]})")
        changed = [name for name, print_ in wanted.variables.items() if self.variables.get(name, print_) != print_]
        if changed:
            return f"the codes or the hierarchy of {', '.join(changed)} differ from those it protects"
        if wanted.rules != self.rules:
            fields = sorted(set(self.rules) | set(wanted.rules))
            differ = [f"{name} {self.rules.get(name)!r} there, {wanted.rules.get(name)!r} here"
                      for name in fields if self.rules.get(name) != wanted.rules.get(name)]
            return f"it protects with other safety rules ({'; '.join(differ)})"
        return None

    def new_variables(self, wanted: StoreBinding) -> dict[str, str]:
        """The variables of ``wanted`` this binding does not know, with their fingerprints."""
        return {name: print_ for name, print_ in wanted.variables.items() if name not in self.variables}

    def joined(self, variables: Mapping[str, str]) -> StoreBinding:
        """This binding with ``variables`` added."""
        return dataclasses.replace(self, variables={**self.variables, **variables})
