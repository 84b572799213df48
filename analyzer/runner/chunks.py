"""Play games of a plan: the unit of work of every executor, local or distributed."""

from __future__ import annotations

import numpy as np

from analyzer.errors import mark_policy_call
from analyzer.policies.loader import game_note, has_game_note, policy_failure
from analyzer.runner.local import batch_kernel, check_legal, compile_kernels
from analyzer.runner.plan import PREPARING_WORKER, RunPlan
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.results import from_kernel_rows, from_traces
from analyzer.runner.tally import tally_results


def play_range(plan: RunPlan, first: int, n: int) -> np.ndarray:
    """Structured results (RESULT_DTYPE) of games ``first .. first + n - 1``, on this thread.

    When a user's policy raises, the exception goes on with a note of the first game of the
    range that raises (``loader.game_note``), found by halving the range (the reference
    engine, which plays game by game, names it itself): the user can then play that game
    alone (``urbion show``, ``trace``) to see what the policy met.
    """
    try:
        return _play_games(plan, first, n)
    except Exception as err:
        if policy_failure(plan.policy_spec(), err) is None or has_game_note(err):
            raise  # not the policy's, or the reference engine named the game already
        err.add_note(game_note(plan.seed, _first_raising_game(plan, first, n)))
        raise


def _first_raising_game(plan: RunPlan, first: int, n: int) -> int:
    """The first game of ``first .. first + n - 1`` (which raises as a whole) that raises
    when played: halving the range, at most ``n`` games played again."""
    low, high = first, first + n  # the first raising game lies in low .. high - 1
    while high - low > 1:
        middle = (low + high) // 2
        try:
            _play_games(plan, low, middle - low)
        except Exception:
            high = middle
        else:
            low = middle
    return low


def _play_games(plan: RunPlan, first: int, n: int) -> np.ndarray:
    """``play_range`` without the search for a raising game."""
    spec = plan.policy_spec()
    card_set = plan.card_set
    if plan.engine != "fast":
        return from_traces(run_reference(card_set, spec, plan.seed, n, first,
                                         variant=card_set.variant))
    try:
        rows = batch_kernel(spec)(spec.kernel_arg, spec.params, card_set.cards,
                                  card_set.city_ids, card_set.dream_ids, card_set.rules,
                                  plan.seed, first, n)
    except Exception as err:
        if not isinstance(err, MemoryError):  # the machine's, whoever asked for memory
            mark_policy_call(err)
        raise
    check_legal(rows, card_set, spec, plan.seed, first)
    return from_kernel_rows(rows, first)


def slices(plan: RunPlan, index: int, parts: int) -> list[tuple[int, int]]:
    """Chunk ``index`` cut into at most ``parts`` (first game, games) slices."""
    first, n = plan.chunk_games(index)
    bounds = np.linspace(0, n, min(parts, n) + 1).astype(np.int64)
    return [(first + int(lo), int(hi - lo)) for lo, hi in zip(bounds[:-1], bounds[1:],
                                                              strict=True)]


def payload_of(results: np.ndarray, summary_only: bool) -> np.ndarray:
    """What a chunk sends back: its per-game results, or only their tally."""
    return tally_results(results) if summary_only else results


def chunk_payload(plan: RunPlan, index: int, summary_only: bool) -> np.ndarray:
    """Play chunk ``index`` on this thread; its payload."""
    first, n = plan.chunk_games(index)
    return payload_of(play_range(plan, first, n), summary_only)


def prepare_kernels(plan: RunPlan, dask_worker=None) -> None:
    """Compile (or load from the disk cache) what the plan's chunks run, playing no game
    of the run, so that timings count games only. On a Dask worker (``Client.run`` hands
    it over as ``dask_worker``), the messages name the worker by its address."""
    token = PREPARING_WORKER.set(None if dask_worker is None else dask_worker.address)
    try:
        spec = plan.policy_spec()
        if plan.engine == "fast":
            compile_kernels(plan.card_set, spec)
        else:
            play_range(plan, plan.first_game, 1)  # the first game: a policy that raises
    finally:
        PREPARING_WORKER.reset(token)
