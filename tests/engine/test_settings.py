"""ctadesk.engine.settings names the choices the front ends offer without loading the modules
that define them; each list is the one those modules act on."""

from ctadesk.app.count_releases import SEARCHES
from ctadesk.engine import settings
from ctadesk.engine.releases import UTILITIES


def test_the_searches_and_utilities_named_are_those_the_release_search_runs():
    assert tuple(SEARCHES) == settings.SEARCH_NAMES
    assert tuple(sorted(UTILITIES)) == settings.UTILITY_NAMES


def test_the_settings_module_imports_nothing_of_ctadesk_or_numpy():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(settings))
    imported = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [getattr(node, "module", None) for node in imported] == ["__future__"]
