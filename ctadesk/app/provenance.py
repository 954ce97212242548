"""What made an output, so that a run can be repeated: the versions of ctadesk and of the solvers
(the README: results depend on the HiGHS minor version) and the request as run.

Every writer takes its record from here: the JSON result documents, project files, the internal
workbook (versions, seed and request) and the release workbook (versions only, never the seed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

#: the solvers' distributions, by the names outputs give them
SOLVERS = {"highspy": "HiGHS (highspy)", "clarabel": "Clarabel"}


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
