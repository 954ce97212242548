"""ArrayMemo: a value per read-only array, served while the array is read-only, dropped with it."""

import gc

import numpy as np

from ctadesk.engine.array_memo import ArrayMemo


def test_a_value_is_kept_for_a_read_only_array_until_it_is_freed():
    memo: ArrayMemo[str] = ArrayMemo()
    array = np.arange(3.0)
    array.flags.writeable = False
    memo.keep(array, "first")
    memo.keep(array, "second")                  # in place of the first
    assert array in memo and memo[array] == "second"
    key = id(array)
    del array
    gc.collect()
    assert key not in memo._kept


def test_a_writeable_array_is_neither_kept_nor_served():
    memo: ArrayMemo[int] = ArrayMemo()
    array = np.arange(3.0)
    memo.keep(array, 1)
    assert array not in memo and not memo._kept
    array.flags.writeable = False
    memo.keep(array, 2)
    array.flags.writeable = True                # it could change from here on
    assert array not in memo
