"""Entry kernels: a batch of games, and one game with its log.

Each exists twice from one body: ``*_nb`` cached on disk, for built-in policies passed by
the address of their code (policies/builtin_nb.py), and ``*_callable_nb`` compiled in
memory, for a user's jitted policy (numba cannot cache a kernel that takes a function).
The kernels release the GIL; the runner spreads slices of a batch over threads (a numba
``prange`` kernel would take several more seconds to compile and hide the worker count
from the runner).
"""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import N_RESULT
from analyzer.core.jit import cached_jit, jit
from analyzer.rules.game_nb import play_game_nb, result_row_nb
from analyzer.rules.state_nb import new_game_nb


def _play_batch(policy, params, cards, city_ids, dream_ids, rules, seed, first_game,
                n_games):
    """Play games ``first_game .. first_game + n_games - 1`` of the batch ``seed`` with the
    cards ``city_ids`` and ``dream_ids`` in play and the ``rules`` bits (the expansions and
    the team variant, ``CardSet.rules``).

    Returns
    -------
    numpy.ndarray
        int64, shape (n_games, N_RESULT): one result row per game, columns per ``Result``.
    """
    results = np.zeros((n_games, N_RESULT), dtype=np.int64)
    for i in range(n_games):
        g = new_game_nb(cards.shape[0], seed, first_game + i, 0, params)
        play_game_nb(policy, g, cards, city_ids, dream_ids, rules)
        result_row_nb(g, results[i])
    return results


def _play_one(policy, params, cards, city_ids, dream_ids, rules, seed, game, log_cap,
              out):
    """Play one game into ``out`` (int64 (N_RESULT,)); return its arrays, log included."""
    g = new_game_nb(cards.shape[0], seed, game, log_cap, params)
    play_game_nb(policy, g, cards, city_ids, dream_ids, rules)
    result_row_nb(g, out)
    return g


play_batch_nb = cached_jit()(_play_batch)
play_one_nb = cached_jit()(_play_one)
play_batch_callable_nb = jit(_play_batch)
play_one_callable_nb = jit(_play_one)
