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
from analyzer.policies.builtin_nb import (
    POLICY_ARGS,
    BuiltinId,
    ask_game_at_address,
    builtin_address,
    call_at_address,
)
from analyzer.policies.greedy_nb import greedy_nb, greedy_params
from analyzer.policies.random_nb import random_nb
from analyzer.policies.registry import resolve_policy
from analyzer.rules.state_nb import new_game_nb
from tests.positions import CARDS


@numba.njit
def ask_at_nb(address, kind, options, n_options, state, cards, params, rng):
    return call_at_address(address, kind, options, n_options, state, cards, params, rng)


@numba.njit
def ask_game_nb(address, kind, n_options, g, cards):
    return ask_game_at_address(address, kind, n_options, g, cards)


@numba.njit
def probe_nb(kind, options, n_options, state, cards, params, rng):
    """A policy that reports what it was handed, as digits, and advances its stream."""
    layout, hands, info = state
    rng[0] += 1
    return (kind + 10 * n_options + 100 * info.shape[0] + 10_000 * options[0, 3]
            + 100_000 * layout[0, 0] + 1_000_000 * hands[0, 0] + 10_000_000 * info[1]
            + 100_000_000 * cards.shape[0] + 100_000_000_000 * int(params[0]))


def _address_of(func) -> int:
    func.compile(POLICY_ARGS)
    compiled = func.overloads[POLICY_ARGS]
    return compiled.library.get_pointer_to_function(compiled.fndesc.mangled_name)


@numba.njit
def many_asks_nb(address, cards, params, n):
    g = new_game_nb(cards.shape[0], 1, 0, 0, params)
    total = 0
    for _ in range(n):
        total += ask_game_at_address(address, 3, 5, g, cards)
    return total


def test_a_game_asks_a_builtin_with_its_own_arrays_and_the_public_info():
    g = new_game_nb(CARDS.cards.shape[0], 1, 0, 0, np.array([7.0]))
    g.options[0, 3] = 4
    g.layout[0, 0] = 5
    g.hands[0, 0] = 6
    g.info[1] = 8
    g.info[N_POLICY_INFO] = 9  # beyond the public block: not shown
    before = int(g.policy_rng[0])
    choice = ask_game_nb(_address_of(probe_nb), 3, 2, g, CARDS.cards)
    expected = (3 + 10 * 2 + 100 * N_POLICY_INFO + 10_000 * 4 + 100_000 * 5 + 1_000_000 * 6
                + 10_000_000 * 8 + 100_000_000 * CARDS.cards.shape[0] + 700_000_000_000)
    assert choice == expected
    assert int(g.policy_rng[0]) == before + 1  # the game's own stream, not a copy


def test_lending_a_games_arrays_to_a_policy_keeps_reference_counts_balanced():
    from numba.core.runtime import _nrt_python, rtsys

    address = _address_of(probe_nb)
    params = np.array([0.0])
    many_asks_nb(address, CARDS.cards, params, 1)  # compile
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        many_asks_nb(address, CARDS.cards, params, 500)
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    allocated = after.mi_alloc - before.mi_alloc
    assert allocated > 0  # the game's arrays
    assert after.mi_free - before.mi_free == allocated  # each freed once, none kept


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
