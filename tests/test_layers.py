"""The layers hold (docs/developer-guide.md, "Layers"): imports flow one way, engine <- io <-
app <- the front ends (gui, cli, server), every import of a ctadesk module counted, those inside
functions too.  The engine imports no Qt, no file format and no web library; nothing below the
front ends imports Qt or the web server.  The command line is the program's entry: it may start the other front ends
(``ctadesk gui``, ``ctadesk serve``), and no other front end imports it.

A front end takes from the engine only its public API (ENGINE_PUBLIC): the problem, the result,
the errors and the models, the packages' own ``__init__`` names and the few modules listed; never
the solvers (a front end asks the app layer or ctadesk.engine.methods for a method).  No module
imports a name or module starting with "_" from another package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ctadesk"
RANK = {"engine": 0, "io": 1, "app": 2, "gui": 3, "cli": 3, "server": 3}
#: front ends the command line starts (its commands `gui` and `serve`)
STARTED_BY_CLI = {"gui", "server"}
#: third-party packages a layer must not import: (layers, packages)
FORBIDDEN = [({"engine"}, ("PySide6", "pyqtgraph", "superqt", "openpyxl", "defusedxml", "pyreadstat", "starlette",
                           "uvicorn", "psycopg")),
             ({"io", "app"}, ("PySide6", "pyqtgraph", "superqt", "starlette", "uvicorn"))]
#: front ends (gui, cli, server)
FRONT_ENDS = {"gui", "cli", "server"}
#: the engine modules a front end may import from: the engine's public API
ENGINE_PUBLIC = frozenset({
    # the problem, the result, the errors, the model a method solves
    "ctadesk.engine.problem", "ctadesk.engine.result", "ctadesk.engine.errors", "ctadesk.engine.model",
    # packages whose __init__ is their public API
    "ctadesk.engine.audit", "ctadesk.engine.methods", "ctadesk.engine.releases", "ctadesk.engine.online",
    # what a front end shows or asks for: a method's figures, audit failures, quality terms and reports,
    # safety rules and their results, tables (structure, microdata, cell statistics, generated tables),
    # the precision limit, a new widening seed, the release search's evaluation limit
    "ctadesk.engine.methods.figures", "ctadesk.engine.audit.result", "ctadesk.engine.quality.measures",
    "ctadesk.engine.quality.terms", "ctadesk.engine.rules.safety", "ctadesk.engine.table.structure",
    "ctadesk.engine.table.microdata", "ctadesk.engine.table.statistics", "ctadesk.engine.table.generate",
    "ctadesk.engine.publish.precision", "ctadesk.engine.publish.widening", "ctadesk.engine.releases.search",
    # the settings' defaults and limits, in a module importing nothing (a command's --help)
    "ctadesk.engine.settings",
})


def imported_names(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every absolute import (names empty for ``import module``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module, [alias.name for alias in node.names]))
    return found


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in the file, wherever it stands."""
    return [(line, module) for line, module, _ in imported_names(path)]


def modules() -> list[tuple[str, Path]]:
    return [(path.relative_to(PACKAGE).parts[0], path) for path in sorted(PACKAGE.rglob("*.py"))
            if len(path.relative_to(PACKAGE).parts) > 1 and path.relative_to(PACKAGE).parts[0] in RANK]


def package_of(module: str) -> str:
    """The package a ctadesk module belongs to: itself for a package, else its parent."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    return module if path.is_dir() else module.rpartition(".")[0]


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def front_end_engine_imports() -> list[tuple[str, int, str]]:
    """(file, line, module) of every import of an engine module by a front end."""
    return [(str(path.relative_to(PACKAGE.parent)), line, module)
            for own, path in modules() if own in FRONT_ENDS
            for line, module, _ in imported_names(path) if module.startswith("ctadesk.engine")]


def test_front_ends_import_only_the_engines_public_api():
    wrong = [f"{where}:{line} imports {module}" for where, line, module in front_end_engine_imports()
             if module not in ENGINE_PUBLIC]
    assert not wrong, "\n".join(wrong)


def test_the_public_api_holds_no_solver_and_names_modules_that_exist():
    assert not [module for module in ENGINE_PUBLIC if module.startswith("ctadesk.engine.solvers")]
    missing = [module for module in ENGINE_PUBLIC
               if not (PACKAGE.parent.joinpath(*module.split(".")).is_dir()
                       or PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py").is_file())]
    assert not missing, missing


def test_nothing_private_is_imported_from_another_package():
    wrong = []
    for _, path in modules():
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        own = ".".join(parts[:-1])
        for line, module, names in imported_names(path):
            if not module.startswith("ctadesk.") or package_of(module) == own:
                continue
            hidden = [name for name in [*module.split("."), *names] if private(name)]
            if hidden:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {', '.join(hidden)} from {module}")
    assert not wrong, "\n".join(wrong)


def test_the_private_check_sees_a_private_name_and_a_private_module(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("from ctadesk.engine.solvers.network_l1 import _cheapest_tree\n"
                      "import ctadesk.engine._hidden\n", encoding="utf-8")
    found = imported_names(source)
    assert found == [(1, "ctadesk.engine.solvers.network_l1", ["_cheapest_tree"]), (2, "ctadesk.engine._hidden", [])]
    assert private("_cheapest_tree") and private("_hidden")
    assert not private("__init__") and not private("network_l1")


@pytest.mark.parametrize("layer", sorted(RANK))
def test_imports_flow_one_way(layer):
    wrong = []
    for own, path in modules():
        if own != layer:
            continue
        for line, module in imports(path):
            parts = module.split(".")
            if parts[0] != "ctadesk" or len(parts) < 2 or parts[1] not in RANK or parts[1] == own:
                continue
            target = parts[1]
            allowed = RANK[target] < RANK[own] or (own == "cli" and target in STARTED_BY_CLI)
            if not allowed:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("layers, packages", FORBIDDEN)
def test_a_layer_imports_none_of_the_libraries_above_it(layers, packages):
    wrong = [f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}"
             for own, path in modules() if own in layers
             for line, module in imports(path) if module.split(".")[0] in packages]
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("def f():\n    from ctadesk.gui.app import main\n    return main\n", encoding="utf-8")
    assert imports(source) == [(2, "ctadesk.gui.app")]
