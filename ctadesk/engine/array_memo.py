"""Values worked out from a read-only numpy array, kept while the array lives.

A run asks some figures of the same arrays many times: the median magnitude of a problem's
values at every verification (engine/table/units.py), the verification of a method's table when
claims.py maps it to the user's units (engine/solvers/finish.py).  Such a figure is a function of
the array's contents alone, and a read-only array's contents cannot change, so it is kept by the
array's identity until the array is freed (a weak reference's callback drops it then, before its
id can be another array's).  A writeable array is never served: it could have changed since.
"""

from __future__ import annotations

import functools
import weakref
from typing import Generic, TypeVar

import numpy as np

T = TypeVar("T")


class ArrayMemo(Generic[T]):
    """A value per read-only array, kept while the array lives."""

    def __init__(self) -> None:
        #: id(array) -> (a weak reference to the array, whose callback drops the entry; the value)
        self._kept: dict[int, tuple[weakref.ref, T]] = {}

    def __contains__(self, array: np.ndarray) -> bool:
        return not array.flags.writeable and id(array) in self._kept

    def __getitem__(self, array: np.ndarray) -> T:
        """The value kept for ``array`` (KeyError where ``array in memo`` is False)."""
        if array.flags.writeable:
            raise KeyError("a writeable array has no kept value")
        return self._kept[id(array)][1]

    def keep(self, array: np.ndarray, value: T) -> None:
        """Keep ``value`` for ``array`` (in place of any kept before) while the array lives; a
        writeable array is left alone.  A weak reference with a callback, not weakref.finalize,
        whose registry took about 1 microsecond a call (a first solve keeps four or five)."""
        if array.flags.writeable:
            return
        key = id(array)
        found = self._kept.get(key)
        reference = found[0] if found is not None else weakref.ref(array, functools.partial(self._drop, key))
        self._kept[key] = (reference, value)

    def _drop(self, key: int, reference: weakref.ref) -> None:
        """The callback of ``reference``, to the array kept as ``key``, as that array is freed."""
        found = self._kept.get(key)
        if found is not None and found[0] is reference:
            del self._kept[key]


__all__ = ["ArrayMemo"]
