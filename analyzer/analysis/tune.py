"""Tuning the ``weighted`` policy's weights by simulation with CMA-ES, on paired deals.

Every candidate plays the same games (common random numbers), so differences between
candidates are differences of play, not of luck. The objective is the win rate, with the
mean cities pacified as a small added term (a plateau of equal win counts still has a
slope; a city a game is worth 0.1 points of win rate, a trade-off rather than a strict
tie-break). Only the weights the tuned expansion set makes matter are searched
(``WEIGHT_USERS``), as log-factors of the start's weights (the shipped ``weighted`` ones
unless told otherwise), so they stay positive and each moves on its own scale; the others
keep their start value. The result is judged on held-out deals that tuning never saw.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analyzer.cards import CardSet
from analyzer.core.codes import Outcome
from analyzer.errors import PolicyError
from analyzer.policies.builtin_nb import BuiltinId
from analyzer.policies.greedy_nb import GREEDY_WEIGHTS, WEIGHT_USERS, greedy_nb, greedy_params
from analyzer.policies.registry import PolicySpec
from analyzer.runner.run import run_fast

#: The pacified term: a whole city pacified on average is worth this much win rate.
TUNING_PACIFIED_WEIGHT = 1e-3
#: Search box for each weight, as a factor of its start value: e**-3 .. e**3.
LOG_BOUND = 3.0
SIGMA0 = 0.5
#: What ``--start`` accepts: greedy's hand-set weights, the shipped tuned ones, or a file.
START_CHOICES = "greedy, weighted or weighted:FILE.toml"


def start_weights(start: str) -> dict[str, float]:
    """The full weight table tuning starts from: ``greedy``, ``weighted`` (the shipped
    file) or ``weighted:FILE`` (a file over the shipped weights)."""
    from analyzer.policies.weights import load_weights

    if start == "greedy":
        return dict(GREEDY_WEIGHTS)
    if start == "weighted":
        return load_weights(None)
    if start.startswith("weighted:"):
        path = start.removeprefix("weighted:")
        if not path.strip():
            raise PolicyError(f"tuning start {start!r} names no weights file "
                              "(weighted:FILE.toml, or weighted for the shipped weights)")
        return load_weights(path)
    raise PolicyError(f"tuning starts from {START_CHOICES}, not {start!r}")


def tuned_names(card_set: CardSet) -> tuple[str, ...]:
    """The weights that matter in ``card_set``'s games (its expansions and variant), in
    ``GREEDY_WEIGHTS`` order."""
    played = set(card_set.expansion_names()) | ({"team"} if card_set.variant == "team"
                                                else set())
    return tuple(name for name in GREEDY_WEIGHTS
                 if not WEIGHT_USERS[name] or played & set(WEIGHT_USERS[name]))


def check_searchable(start: dict[str, float], names: tuple[str, ...]) -> None:
    """Refuse a start whose tuned weights are not positive: factors cannot move a 0."""
    bad = [name for name in names if not start[name] > 0]
    if bad:
        listed = ", ".join(f"{name} = {start[name]:g}" for name in bad)
        raise PolicyError("tuning searches factors of the start's weights, so each weight "
                          f"it tunes must be positive: {listed}")


def weights_from(x: np.ndarray, start: dict[str, float],
                 names: tuple[str, ...]) -> dict[str, float]:
    """The full weight table: ``start`` with each of ``names`` scaled by e**x (x float64,
    (len(names),))."""
    weights = dict(start)
    for name, v in zip(names, x, strict=True):
        weights[name] = start[name] * math.exp(float(v))
    return weights


def weighted_spec(weights: dict[str, float], card_set: CardSet, name: str) -> PolicySpec:
    """The weighted policy with ``weights``, fitted to ``card_set``."""
    in_play = card_set.cards[card_set.dream_ids]  # as PolicySpec.for_cards fits them
    return PolicySpec(name, greedy_nb, greedy_params(weights, in_play),
                      builtin_id=BuiltinId.GREEDY)


def fitness(results: np.ndarray) -> float:
    """What tuning maximises: win rate plus the small pacified term."""
    won = (results["outcome"] == Outcome.WIN).mean()
    return float(won + TUNING_PACIFIED_WEIGHT * results["pacified"].mean())


@dataclass
class TuneOutcome:
    """The best weights found (the full table), their fitness on the tuning deals, the
    search's size, and the names of the weights it searched."""

    weights: dict[str, float]
    fitness: float
    evaluations: int
    tuned: tuple[str, ...]
    #: False when no candidate did better than the start on the tuning games: ``weights``
    #: are then the start's
    improved: bool = True


def tune_weights(card_set: CardSet, games: int, seed: int, evaluations: int,
                 workers: int | None = None,
                 on_evaluation: Callable[[], None] | None = None,
                 start: dict[str, float] | None = None) -> TuneOutcome:
    """Search the weights ``card_set`` makes matter with CMA-ES, from ``start`` (greedy's
    weights when None); every candidate plays games 0..games-1 of ``seed``, and exactly
    ``evaluations`` candidates are played unless the search converges first."""
    import cma

    start = dict(GREEDY_WEIGHTS if start is None else start)
    names = tuned_names(card_set)
    check_searchable(start, names)
    options = {"seed": seed % (2**31 - 2) + 1, "maxfevals": evaluations, "verbose": -9,
               "bounds": [-LOG_BOUND, LOG_BOUND], "tolflatfitness": 20, "tolfun": 0,
               "tolx": 1e-6}
    strategy = cma.CMAEvolutionStrategy(np.zeros(len(names)), SIGMA0, options)
    # the start is the first candidate: the result is never worse on these deals
    best_x = np.zeros(len(names))
    best_fit = fitness(run_fast(card_set, weighted_spec(start, card_set, "start"), seed,
                                games, workers=workers))
    done = 1
    if on_evaluation:
        on_evaluation()
    while not strategy.stop() and done < evaluations:
        # the budget is exact: a last generation it cannot pay for whole is played in part,
        # and ends the search untold (CMA-ES learns only from whole generations)
        candidates = strategy.ask()[:evaluations - done]
        scores = []
        for x in candidates:
            spec = weighted_spec(weights_from(x, start, names), card_set, "candidate")
            score = fitness(run_fast(card_set, spec, seed, games, workers=workers))
            scores.append(-score)  # CMA-ES minimises
            done += 1
            if score > best_fit:
                best_x, best_fit = np.array(x), score
            if on_evaluation:
                on_evaluation()
        if len(candidates) == strategy.popsize:
            strategy.tell(candidates, scores)
    return TuneOutcome(weights_from(best_x, start, names), best_fit, done, names,
                       bool(np.any(best_x != 0)))
