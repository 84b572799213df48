"""Results depend only on (seed, game): not on workers, chunks or batch boundaries."""

from __future__ import annotations

import numpy as np

import analyzer
from analyzer.cards import default_card_set
from analyzer.policies.registry import resolve_policy
from analyzer.runner.run import run_fast


def test_same_seed_same_results_and_other_seed_differs():
    a = analyzer.simulate(games=300, seed=11, policy="greedy")
    b = analyzer.simulate(games=300, seed=11, policy="greedy")
    c = analyzer.simulate(games=300, seed=12, policy="greedy")
    assert a.equals(b)
    assert not a["turns"].equals(c["turns"])


def test_workers_1_equals_workers_2():
    a = analyzer.simulate(games=500, seed=3, policy="random", workers=1)
    b = analyzer.simulate(games=500, seed=3, policy="random", workers=2)
    assert a.equals(b)


def test_chunk_size_does_not_matter():
    cards, policy = default_card_set(), resolve_policy("greedy")
    whole = run_fast(cards, policy, seed=5, games=240, chunk=240)
    pieces = run_fast(cards, policy, seed=5, games=240, chunk=7)
    assert np.array_equal(whole, pieces)


def test_game_played_alone_equals_the_same_game_in_a_batch():
    batch = analyzer.simulate(games=50, seed=9, policy="greedy")
    alone = analyzer.simulate(games=1, seed=9, policy="greedy", first_game=37)
    assert alone.iloc[0].drop("game").equals(batch.iloc[37].drop("game"))
    assert alone["game"].iloc[0] == 37
    trace = analyzer.trace(seed=9, game=37, policy="greedy")[0]
    assert trace["result"]["turns"] == batch["turns"].iloc[37]
    assert trace["result"]["pacified"] == batch["pacified"].iloc[37]
