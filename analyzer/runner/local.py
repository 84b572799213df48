"""The fast engine's entry kernels for a policy, and the check of a batch's decisions."""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
from numba.core import types
from numba.core.dispatcher import Dispatcher

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
from analyzer.runner.compile_aside import policy_compiled_aside


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
    """Compile (or load from the disk cache) the batch kernel and the policy, playing no
    game. On a cold start a built-in policy compiles in a second process meanwhile
    (runner/compile_aside.py)."""
    kernel = batch_kernel(policy)
    args = (policy.params, card_set.cards, card_set.city_ids, card_set.dream_ids,
            card_set.rules, 0, 0, 0)
    if policy.cacheable:
        # the address is an int64 like any other; the policy is not compiled to take it
        kernel_types = batch_kernel_types(kernel, args)
        with policy_compiled_aside(policy.builtin_id, kernel, kernel_types):
            kernel.compile(kernel_types)
    kernel(policy.kernel_arg, *args)


def batch_kernel_types(kernel: Dispatcher, args: tuple) -> tuple:
    """The numba argument types of a call ``kernel(address, *args)``."""
    return (types.int64, *(kernel.typeof_pyval(a) for a in args))


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
                                card_set.city_ids, card_set.dream_ids, card_set.rules,
                                seed, game, 0, out)
    kind = Decision._fields[int(g.info[Info.ERROR_KIND])]
    # worded as the reference engine's IllegalDecision
    return PolicyError(
        f"policy {policy.name!r} made an illegal decision: returned "
        f"{int(g.info[Info.ERROR_CHOICE])} for a {kind} decision with "
        f"{int(g.info[Info.ERROR_OPTIONS])} options (seed {seed}, game {game}, "
        f"turn {int(g.info[Info.TURN])})"
    )
