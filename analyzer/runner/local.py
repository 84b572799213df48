"""Run a batch on this machine: chunks of games, each spread over GIL-free threads."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from analyzer.cards import CardSet
from analyzer.core.codes import N_RESULT, Decision, Info, Outcome, Result
from analyzer.errors import PolicyError
from analyzer.policies.registry import PolicySpec
from analyzer.runner.batch_nb import (
    play_batch_callable_nb,
    play_batch_nb,
    play_one_callable_nb,
    play_one_nb,
)
from analyzer.runner.results import RESULT_DTYPE, from_kernel_rows

DEFAULT_CHUNK = 200_000


def default_workers() -> int:
    """All cores of this machine."""
    return os.cpu_count() or 1


def batch_kernel(policy: PolicySpec) -> Callable:
    """The batch kernel for ``policy``: cached for built-ins, in memory for the rest."""
    return play_batch_nb if policy.cacheable else play_batch_callable_nb


def one_game_kernel(policy: PolicySpec) -> Callable:
    """The single-game kernel (with log) for ``policy``."""
    return play_one_nb if policy.cacheable else play_one_callable_nb


def compile_kernels(card_set: CardSet, policy: PolicySpec) -> None:
    """Compile (or load from the disk cache) the batch kernel by playing no game."""
    batch_kernel(policy)(policy.kernel_arg, policy.params, card_set.cards, card_set.city_ids,
                         card_set.dream_ids, 0, 0, 0)


def _play_slices(card_set: CardSet, policy: PolicySpec, seed: int, first_game: int, games: int,
                 pool: ThreadPoolExecutor, workers: int) -> np.ndarray:
    """Play ``games`` games split into one slice per worker; rows in game order."""
    kernel = batch_kernel(policy)
    bounds = np.linspace(0, games, workers + 1).astype(np.int64)

    def play(k: int) -> np.ndarray:
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        return kernel(policy.kernel_arg, policy.params, card_set.cards, card_set.city_ids,
                      card_set.dream_ids, seed, first_game + lo, hi - lo)

    return np.concatenate(list(pool.map(play, range(workers))))


def run_fast(card_set: CardSet, policy: PolicySpec, seed: int, games: int, first_game: int = 0,
             workers: int | None = None, chunk: int = DEFAULT_CHUNK) -> np.ndarray:
    """Play games ``first_game ..`` with the fast engine; structured results (RESULT_DTYPE).

    Games go in chunks of ``chunk``, each split over ``workers`` threads (the kernels
    release the GIL). Results depend only on (seed, game), never on ``workers`` or ``chunk``.
    """
    workers = max(1, workers or default_workers())
    parts = [np.empty(0, dtype=RESULT_DTYPE)]
    done = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while done < games:
            n = min(chunk, games - done)
            rows = _play_slices(card_set, policy, seed, first_game + done, n, pool,
                                min(workers, n))
            check_legal(rows, card_set, policy, seed, first_game + done)
            parts.append(from_kernel_rows(rows, first_game + done))
            done += n
    return np.concatenate(parts)


def check_legal(rows: np.ndarray, card_set: CardSet, policy: PolicySpec, seed: int,
                first_game: int) -> None:
    """Raise PolicyError naming the first game where the policy chose an illegal option."""
    bad = np.flatnonzero(rows[:, Result.OUTCOME] == Outcome.ERROR)
    if len(bad):
        raise illegal_decision_error(card_set, policy, seed, first_game + int(bad[0]))


def illegal_decision_error(card_set: CardSet, policy: PolicySpec, seed: int,
                           game: int) -> PolicyError:
    """Replay the game alone to name the turn, the decision and the index returned."""
    out = np.zeros(N_RESULT, dtype=np.int64)
    g = one_game_kernel(policy)(policy.kernel_arg, policy.params, card_set.cards,
                                card_set.city_ids, card_set.dream_ids, seed, game, 0, out)
    kind = Decision._fields[int(g.info[Info.ERROR_KIND])]
    return PolicyError(
        f"policy {policy.name!r} made an illegal decision: seed {seed}, game {game}, "
        f"turn {int(g.info[Info.TURN])}, decision {kind}, returned "
        f"{int(g.info[Info.ERROR_CHOICE])}"
    )
