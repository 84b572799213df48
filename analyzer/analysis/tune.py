"""Tuning the ``weighted`` policy's weights by simulation with CMA-ES, on paired deals.

Every candidate plays the same games (common random numbers), so differences between
candidates are differences of play, not of luck. The objective is the win rate, with the
mean cities pacified as a small added term (a plateau of equal win counts still has a
slope; a city a game is worth 0.1 points of win rate, a trade-off rather than a strict
tie-break). Weights are searched as log-factors of greedy's, so they stay positive and each
moves on its own scale. The result is judged on held-out deals that tuning never saw.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analyzer.cards import CardSet
from analyzer.policies.builtin_nb import BuiltinId
from analyzer.policies.greedy_nb import GREEDY_WEIGHTS, greedy_nb, greedy_params
from analyzer.policies.registry import PolicySpec
from analyzer.runner.run import run_fast

NAMES = tuple(GREEDY_WEIGHTS)
#: The pacified term: a whole city pacified on average is worth this much win rate.
PACIFIED_WEIGHT = 1e-3
#: Search box for each weight, as a factor of greedy's: e**-3 .. e**3.
LOG_BOUND = 3.0
SIGMA0 = 0.5


def weights_from(x: np.ndarray) -> dict[str, float]:
    """Weights from log-factors ``x`` (float64, (len(NAMES),)) of greedy's weights."""
    return {name: GREEDY_WEIGHTS[name] * math.exp(float(v)) for name, v in zip(NAMES, x,
                                                                               strict=True)}


def weighted_spec(weights: dict[str, float], card_set: CardSet, name: str) -> PolicySpec:
    """The weighted policy with ``weights``, fitted to ``card_set``."""
    return PolicySpec(name, greedy_nb, greedy_params(weights, card_set.cards),
                      builtin_id=BuiltinId.GREEDY)


def fitness(results: np.ndarray) -> float:
    """What tuning maximises: win rate plus the small pacified term."""
    won = (results["outcome"] == 1).mean()
    return float(won + PACIFIED_WEIGHT * results["pacified"].mean())


@dataclass
class TuneOutcome:
    """The best weights found, their fitness on the tuning deals, and the search's size."""

    weights: dict[str, float]
    fitness: float
    evaluations: int


def tune_weights(card_set: CardSet, games: int, seed: int, evaluations: int,
                 workers: int | None = None,
                 on_evaluation: Callable[[], None] | None = None) -> TuneOutcome:
    """Search weights with CMA-ES; every candidate plays games 0..games-1 of ``seed``, and
    exactly ``evaluations`` candidates are played unless the search converges first."""
    import cma

    options = {"seed": seed % (2**31 - 2) + 1, "maxfevals": evaluations, "verbose": -9,
               "bounds": [-LOG_BOUND, LOG_BOUND], "tolflatfitness": 20, "tolfun": 0,
               "tolx": 1e-6}
    strategy = cma.CMAEvolutionStrategy(np.zeros(len(NAMES)), SIGMA0, options)
    # greedy's own weights are the first candidate: the result is never worse on these deals
    start = weighted_spec(weights_from(np.zeros(len(NAMES))), card_set, "greedy")
    best_x, best_fit, done = np.zeros(len(NAMES)), fitness(
        run_fast(card_set, start, seed, games, workers=workers)), 1
    if on_evaluation:
        on_evaluation()
    while not strategy.stop() and done < evaluations:
        # the budget is exact: a last generation it cannot pay for whole is played in part,
        # and ends the search untold (CMA-ES learns only from whole generations)
        candidates = strategy.ask()[:evaluations - done]
        scores = []
        for x in candidates:
            spec = weighted_spec(weights_from(x), card_set, "candidate")
            score = fitness(run_fast(card_set, spec, seed, games, workers=workers))
            scores.append(-score)  # CMA-ES minimises
            done += 1
            if score > best_fit:
                best_x, best_fit = np.array(x), score
            if on_evaluation:
                on_evaluation()
        if len(candidates) == strategy.popsize:
            strategy.tell(candidates, scores)
    return TuneOutcome(weights_from(best_x), best_fit, done)
