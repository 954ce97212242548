"""The layers hold (docs: README "Layout"; STYLE.md §1, §7): imports flow one way, engine <- io <-
app <- the front ends (gui, cli, server), every import of a ctadesk module counted, those inside
functions too.  The engine imports no Qt, no file format and no web library; nothing below the
front ends imports Qt or the web server.  The command line is the program's entry: it may start
the other front ends (``ctadesk gui``, ``ctadesk serve``), and no other front end imports it."""

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


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in the file, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def modules() -> list[tuple[str, Path]]:
    return [(path.relative_to(PACKAGE).parts[0], path) for path in sorted(PACKAGE.rglob("*.py"))
            if len(path.relative_to(PACKAGE).parts) > 1 and path.relative_to(PACKAGE).parts[0] in RANK]


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
