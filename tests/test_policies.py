"""Policies: built-ins by name, and a jitted function of one's own through the same API."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import analyzer
from analyzer.core.codes import Decision
from analyzer.errors import PolicyError
from analyzer.policies.registry import BUILTIN_POLICIES, PolicySpec


@numba.njit
def breaks_on_turn_3(kind, options, n_options, state, cards, params, rng):
    """Plays the first option, and an index past the options on Phase I of turn 3."""
    layout, hands, info = state
    if kind == Decision.PHASE1 and info[0] == 3:
        return n_options
    return 0


def test_builtins_are_listed_with_descriptions():
    assert {"random", "greedy"} <= set(BUILTIN_POLICIES)
    assert all(p.description for p in BUILTIN_POLICIES.values())


def test_an_illegal_decision_names_policy_seed_game_turn_and_decision():
    spec = PolicySpec("breaker", breaks_on_turn_3, np.zeros(0))
    with pytest.raises(PolicyError) as err:
        analyzer.simulate(games=20, seed=4, policy=spec)
    message = str(err.value)
    for part in ("'breaker'", "seed 4", "game 0", "turn 3", "PHASE1", "returned"):
        assert part in message


def test_greedy_beats_random_by_far():
    greedy = analyzer.simulate(games=3000, seed=1, policy="greedy")
    rand = analyzer.simulate(games=3000, seed=1, policy="random")
    assert rand["won"].sum() == 0
    assert greedy["won"].mean() > 0.03
    assert greedy["pacified"].mean() > rand["pacified"].mean() + 5
