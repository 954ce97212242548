"""What made an output, so that a run can be repeated: the versions of ctadesk and of the solvers
(the README: results depend on the HiGHS minor version) and the request as run.

Every writer takes its record from here: the JSON result documents, project files, the internal
workbook (versions, seed and request) and the release workbook (versions only, never the seed).
A release in a format with no place for a header -- a tau-argus `.tab` and its `.rda` have no
comment syntax -- gets a sidecar beside it (``write_release_provenance``: the versions and the
request without its seed); the outputs of a tau-argus batch (CSV, code-value, SBS), which
spreadsheets, pivot tables and Eurostat's loaders read without comment lines, are recorded in the
batch's logbook instead (versions, each job's request with its seed, the files written).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from ctadesk.app.request import WIDENING_SEED

#: the solvers' distributions, by the names outputs give them
SOLVERS = {"highspy": "HiGHS (highspy)", "clarabel": "Clarabel"}
#: what a release's sidecar is called after the release's own name (release.tab -> release.provenance.json)
SIDECAR_SUFFIX = ".provenance.json"


def versions() -> dict[str, str]:
    """The ctadesk, HiGHS (highspy) and Clarabel versions of this installation ('not installed'
    for a solver that is missing), keyed ctadesk, highspy, clarabel."""
    from ctadesk import __version__

    found = {"ctadesk": __version__}
    for distribution in SOLVERS:
        try:
            found[distribution] = version(distribution)
        except PackageNotFoundError:
            found[distribution] = "not installed"
    return found


def version_settings(found: Mapping[str, str] | None = None) -> dict[str, str]:
    """Versions (``found``, default: versions()) as rows of a workbook's Method sheet
    ('HiGHS (highspy) version': '1.16.0', ...)."""
    names = {"ctadesk": "ctadesk", **SOLVERS}
    return {f"{names.get(key, key)} version": value for key, value in (found or versions()).items()}


def request_record(options: Mapping[str, Any]) -> dict[str, Any]:
    """A request's options (ProtectionRequest.options(): the seed included) as plain JSON: a
    number that is not finite (no time limit) is None, which ProtectionRequest.from_options
    reads back as the default."""
    def plain(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, Mapping):
            return {str(key): plain(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        return value

    return plain(dict(options))


def request_text(options: Mapping[str, Any]) -> str:
    """The request as one line of JSON (request_record), for a workbook cell."""
    return json.dumps(request_record(options), sort_keys=True)


def release_record(options: Mapping[str, Any], found: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What a release may say of its making: the versions (``found``, default versions()) and the
    request (request_record) without its widening seed, which would undo the secret widening."""
    request = {key: value for key, value in request_record(options).items() if key != WIDENING_SEED}
    return {"versions": dict(found or versions()), "request": request}


def sidecar_path(path: str | Path) -> Path:
    """The sidecar of the release ``path``: release.tab -> release.provenance.json."""
    path = Path(path)
    return path.with_name(path.stem + SIDECAR_SUFFIX)


def write_release_provenance(path: str | Path, options: Mapping[str, Any], found: Mapping[str, str] | None = None,
                             files: tuple[str | Path, ...] = ()) -> Path:
    """Write the sidecar of the release ``path`` (release_record, and the names of the ``files``
    it describes: the release and what was written with it) and return its path."""
    sidecar = sidecar_path(path)
    record = {"release": [Path(name).name for name in (path, *files)], **release_record(options, found)}
    sidecar.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return sidecar
