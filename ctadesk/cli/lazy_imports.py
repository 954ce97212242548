"""numpy's testing and Fortran tools loaded at their first use, not at every command's start.

SciPy (1.15 on) vendors array-api-compat, whose NumPy namespace (scipy._lib.array_api_compat.numpy,
imported by scipy._lib._array_api and so by ``import scipy.sparse``) copies every public name of
numpy: it runs ``from numpy import *`` and ``hasattr(numpy, name)`` over ``dir(numpy)``, and
numpy's module ``__getattr__`` (PEP 562) imports each subpackage it is asked for.  So every
command that builds a problem imports numpy.testing (with unittest, difflib, json) and numpy.f2py
(tempfile, importlib.metadata, email), which no ctadesk command uses: about a quarter of the CPU a
3x4 ``ctadesk solve`` spends importing (benchmarks/startup.py).  No setting of SciPy's changes it:
SCIPY_ARRAY_API chooses the array namespaces SciPy accepts, and the NumPy one is imported either way.

``defer_numpy_tools`` puts a finder at the head of ``sys.meta_path`` that hands those two modules
to the standard library's ``importlib.util.LazyLoader``: their first import makes the module object
and binds it as numpy's attribute, as an ordinary import does, and runs their code at the first
access to any of their attributes (``numpy.testing.assert_allclose`` works as before, loaded then).
NumPy keeps its own code working under LazyLoader (numpy pull request 22045).  The finder serves no
other name, and a module imported before it is installed stays as it was.  LazyLoader on Python
3.11 does not guard a module's first access from two threads at once; no ctadesk thread touches
these modules.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

#: the numpy subpackages ctadesk never uses that SciPy's array namespace imports (module docstring)
NUMPY_TOOLS = frozenset({"numpy.testing", "numpy.f2py"})


class LazyFinder:
    """A meta path finder that gives each module of ``names`` the spec the other finders give,
    its loader wrapped in ``importlib.util.LazyLoader``; it finds no other module.  It keeps the
    protocol of importlib.abc.MetaPathFinder without deriving from it: importing importlib.abc
    loads importlib.resources, which would cost every command, ``--help`` too."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        from importlib.util import LazyLoader

        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is None:
                continue
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = LazyLoader(spec.loader)
            return spec
        return None


def defer_numpy_tools() -> None:
    """Install the LazyFinder of NUMPY_TOOLS, once; before SciPy is imported it spares each
    command the loading of numpy.testing and numpy.f2py (module docstring)."""
    if not any(isinstance(finder, LazyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, LazyFinder(NUMPY_TOOLS))
