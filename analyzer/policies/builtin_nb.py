"""Built-in policies by integer id, called by name so that engine kernels can be cached."""

from __future__ import annotations

from typing import NamedTuple

from numba import types
from numba.extending import overload

from analyzer.policies.greedy_nb import greedy_nb
from analyzer.policies.random_nb import random_nb
from analyzer.rules.decide_nb import call_policy


class _BuiltinId(NamedTuple):
    RANDOM: int = 0
    GREEDY: int = 1


BuiltinId = _BuiltinId()


@overload(call_policy, inline="always")
def _call_builtin_policy(policy, kind, options, n_options, state, cards, params, rng):
    if not isinstance(policy, types.Integer):
        return None

    def impl(policy, kind, options, n_options, state, cards, params, rng):
        if policy == BuiltinId.GREEDY:
            return greedy_nb(kind, options, n_options, state, cards, params, rng)
        return random_nb(kind, options, n_options, state, cards, params, rng)

    return impl
