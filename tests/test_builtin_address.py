"""Built-in policies called through the address of their compiled code (builtin_nb.py)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from analyzer.core.codes import (
    HAND_SIZE,
    LAYOUT_COLS,
    MAX_ROWS,
    MAX_SEATS,
    N_POLICY_INFO,
    BooksChoice,
    Decision,
    Info,
)
from analyzer.policies.builtin_nb import BuiltinId, builtin_address, call_at_address
from analyzer.policies.greedy_nb import greedy_nb, greedy_params
from analyzer.policies.random_nb import random_nb
from analyzer.policies.registry import resolve_policy
from tests.positions import CARDS


@numba.njit
def ask_at_nb(address, kind, options, n_options, state, cards, params, rng):
    return call_at_address(address, kind, options, n_options, state, cards, params, rng)


def _view():
    layout = np.full((MAX_ROWS, LAYOUT_COLS), -1, dtype=np.int64)
    hands = np.full((MAX_SEATS, HAND_SIZE), -1, dtype=np.int64)
    info = np.zeros(N_POLICY_INFO, dtype=np.int64)
    return layout, hands, info


def test_random_at_its_address_draws_what_random_by_name_draws():
    options = np.zeros((64, 4), dtype=np.int64)
    rng_a = np.array([12345, 0], dtype=np.uint64)
    rng_b = rng_a.copy()
    params = np.zeros(0, dtype=np.float64)
    address = builtin_address(BuiltinId.RANDOM)
    for n in (2, 3, 7, 11, 40):
        by_address = ask_at_nb(address, Decision.PHASE1, options, n, _view(), CARDS.cards,
                               params, rng_a)
        by_name = random_nb(Decision.PHASE1, options, n, _view(), CARDS.cards, params, rng_b)
        assert by_address == by_name
    assert list(rng_a) == list(rng_b)  # the stream advanced alike: the arrays were shared


@pytest.mark.parametrize("keep, expected", [(0.5, 1), (2.0, 0)])
def test_greedy_at_its_address_reads_options_view_and_params(keep, expected):
    # R09.1: greedy reveals a Book while that keeps their number within BOOKS_KEEP
    options = np.full((64, 4), -1, dtype=np.int64)
    options[0, 0] = BooksChoice.REVEAL
    options[1, 0] = BooksChoice.STOP
    params = greedy_params({"BOOKS_KEEP": keep})
    layout, hands, info = _view()
    info[Info.BOOKS] = 0
    rng = np.zeros(2, dtype=np.uint64)
    state = (layout, hands, info)
    by_address = ask_at_nb(builtin_address(BuiltinId.GREEDY), Decision.BOOKS, options, 2,
                           state, CARDS.cards, params, rng)
    assert by_address == greedy_nb(Decision.BOOKS, options, 2, state, CARDS.cards, params, rng)
    assert by_address == expected


def test_a_call_with_other_argument_types_is_refused_when_compiled():
    options = np.zeros((64, 4), dtype=np.float64)  # not the int64 options of docs/engine.md
    with pytest.raises(TypingError, match="compiled for"):
        ask_at_nb(builtin_address(BuiltinId.RANDOM), 0, options, 2, _view(), CARDS.cards,
                  np.zeros(0), np.zeros(2, dtype=np.uint64))


def test_the_kernels_get_the_address_of_the_builtin_they_name():
    assert resolve_policy("greedy").kernel_arg == builtin_address(BuiltinId.GREEDY)
    assert resolve_policy("random").kernel_arg == builtin_address(BuiltinId.RANDOM)
    assert builtin_address(BuiltinId.GREEDY) != builtin_address(BuiltinId.RANDOM)
