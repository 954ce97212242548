"""Values worked out from a read-only numpy array, kept while the array lives.

A run asks some figures of the same arrays many times: the median magnitude of a problem's
values at every verification (engine/table/units.py), the verification of a method's table when
claims.py maps it to the user's units (engine/solvers/finish.py).  Such a figure is a function of
the array's contents alone, and a read-only array's contents cannot change, so it is kept by the
array's identity until the array is freed (weakref.finalize drops it then, before its id can be
another array's).  A writeable array is never served: it could have changed since.
"""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

import numpy as np

T = TypeVar("T")


class ArrayMemo(Generic[T]):
    """A value per read-only array, kept while the array lives."""

    def __init__(self) -> None:
        self._kept: dict[int, T] = {}

    def __contains__(self, array: np.ndarray) -> bool:
        return not array.flags.writeable and id(array) in self._kept

    def __getitem__(self, array: np.ndarray) -> T:
        """The value kept for ``array`` (KeyError where ``array in memo`` is False)."""
        if array.flags.writeable:
            raise KeyError("a writeable array has no kept value")
        return self._kept[id(array)]

    def keep(self, array: np.ndarray, value: T) -> None:
        """Keep ``value`` for ``array`` (in place of any kept before) while the array lives; a
        writeable array is left alone."""
        if array.flags.writeable:
            return
        key = id(array)
        if key not in self._kept:
            weakref.finalize(array, self._kept.pop, key, None)
        self._kept[key] = value


__all__ = ["ArrayMemo"]
