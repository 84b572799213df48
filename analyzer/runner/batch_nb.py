"""The batch kernel: games in parallel, each from its own (seed, game) streams."""

from __future__ import annotations

import numba
import numpy as np

from analyzer.core.codes import N_RESULT
from analyzer.core.jit import parallel_jit
from analyzer.rules.game_nb import play_game_nb, result_row_nb
from analyzer.rules.state_nb import new_game_nb


@parallel_jit
def play_batch_nb(policy, params, cards, city_ids, dream_ids, seed, first_game, n_games):
    """Play games ``first_game .. first_game + n_games - 1`` of the batch ``seed``.

    Returns
    -------
    numpy.ndarray
        int64, shape (n_games, N_RESULT): one result row per game, columns per ``Result``.
    """
    results = np.zeros((n_games, N_RESULT), dtype=np.int64)
    for i in numba.prange(n_games):
        g = new_game_nb(cards.shape[0], seed, first_game + i, 0, params)
        play_game_nb(policy, g, cards, city_ids, dream_ids)
        result_row_nb(g, results[i])
    return results
