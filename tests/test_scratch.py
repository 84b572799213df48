"""``stack_array``: scratch tables on a kernel's stack (analyzer/core/scratch.py)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from analyzer.core.scratch import stack_array

ROWS, COLS = 5, 3


@numba.njit(_nrt=False)
def _filled_without_counting(shift):
    table = stack_array((ROWS, COLS), np.int64)
    total = 0
    for _ in range(50):  # a loop asks again: the same slot, refilled
        for r in range(ROWS):
            for c in range(COLS):
                table[r, c] = 10 * r + c + shift
        total += table[:, COLS - 1].sum()
    return total, table.strides, table.shape


@numba.njit
def _beside_counted_arrays(value):
    flags = stack_array(4, np.bool_)
    flags[:] = False
    flags[value % 4] = True
    heap = np.zeros(4)
    heap[flags] = value
    return heap


@numba.njit
def _shape_from_an_argument(n):
    return stack_array(n, np.float64).shape[0]


def test_stack_array_is_a_c_contiguous_table_of_the_constant_shape():
    total, strides, shape = _filled_without_counting(1)
    assert total == 50 * sum(10 * r + COLS - 1 + 1 for r in range(ROWS))
    assert shape == (ROWS, COLS)
    assert strides == (COLS * 8, 8)  # C order


def test_stack_array_works_in_a_kernel_that_counts_references():
    assert _beside_counted_arrays(6).tolist() == [0.0, 0.0, 6.0, 0.0]


def test_stack_array_refuses_a_shape_known_only_at_run_time():
    with pytest.raises(TypingError, match="constant shape"):
        _shape_from_an_argument(3)
