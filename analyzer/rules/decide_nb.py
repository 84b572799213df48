"""Asking the policy: the one place a kernel calls a policy.

A policy reaches the kernels as ``policy``, either a jitted function (a user's policy) or,
for a built-in one, the int64 address of its compiled code. ``ask_policy`` (a decision on
the game) and ``call_policy`` (a policy on its arguments) are the extension points: their
overloads here call a jitted function; ``policies/builtin_nb.py`` adds those for an
address. Kernels that receive a jitted function cannot be cached on disk by numba; kernels
that receive an address can.
"""

from __future__ import annotations

from numba import types
from numba.extending import overload

from analyzer.core.codes import N_POLICY_INFO, EnginePolicy, Expansion, Info, Outcome, Reason
from analyzer.core.jit import borrowing_jit
from analyzer.rules.log_nb import log_decision_nb
from analyzer.rules.state_nb import refresh_view_nb


def call_policy(policy, kind, options, n_options, state, cards, params, rng):
    """``policy(kind, options, n_options, state, cards, params, rng)`` (jitted code only).

    Its overloads are inlined where it is called: a call boundary would cost an atomic
    reference-count update per array argument, the largest single cost of a decision.
    """
    raise NotImplementedError("call_policy is for jitted code")


@overload(call_policy, inline="always")
def _call_jitted_policy(policy, kind, options, n_options, state, cards, params, rng):
    if isinstance(policy, types.Integer | types.Array | types.BaseNamedTuple):
        return None  # built-in addresses, rollout scripts and engine policies: policies/

    def impl(policy, kind, options, n_options, state, cards, params, rng):
        return policy(kind, options, n_options, state, cards, params, rng)

    return impl


def ask_policy(policy, g, cards, kind, n_options):
    """``call_policy`` with the arguments a decision on ``g`` passes (jitted code only).
    Its overload here builds them; ``policies/builtin_nb.py`` adds one for an address that
    lends them from ``g`` without reference counts.
    """
    raise NotImplementedError("ask_policy is for jitted code")


@overload(ask_policy, inline="always")
def _ask_with_arrays(policy, g, cards, kind, n_options):
    if isinstance(policy, types.Integer):
        return None  # built-in addresses: policies/builtin_nb.py

    def impl(policy, g, cards, kind, n_options):
        # the policy sees only the public block of info (docs/engine.md)
        state = (g.layout, g.hands, g.info[:N_POLICY_INFO])
        return call_policy(policy, kind, g.options, n_options, state, cards, g.params,
                           g.policy_rng)

    return impl


NOT_AN_ENGINE_POLICY = -2


def engine_choice(policy, g, cards, kind, n_options):
    """A choice by a policy that reads the whole game ``g`` (jitted code only), or
    ``NOT_AN_ENGINE_POLICY``. ``policies/search_nb.py`` adds the overload for EnginePolicy;
    for every other policy this one returns the constant, and the branch compiles away.
    """
    raise NotImplementedError("engine_choice is for jitted code")


def _is_engine_policy(policy) -> bool:
    return isinstance(policy, types.BaseNamedTuple) and policy.instance_class is EnginePolicy


@overload(engine_choice, inline="always")
def _not_an_engine_policy(policy, g, cards, kind, n_options):
    if _is_engine_policy(policy):
        return None

    def impl(policy, g, cards, kind, n_options):
        return NOT_AN_ENGINE_POLICY

    return impl


@borrowing_jit
def ask_nb(policy, g, cards, kind, n_options):
    """Ask ``policy`` to choose among ``g.options[:n_options]``; log and return the index.

    A single legal option is taken without asking (docs/engine.md). An index outside the
    options ends the game with ``Outcome.ERROR`` (the runner reports it) and returns -1.
    """
    if n_options == 1:
        log_decision_nb(g, kind, 0)
        return 0
    if g.info[Info.EXPANSIONS] & (Expansion.POSTCARDS | Expansion.EMPTINESS) != 0:
        refresh_view_nb(g)
    choice = engine_choice(policy, g, cards, kind, n_options)
    if choice == NOT_AN_ENGINE_POLICY:
        choice = ask_policy(policy, g, cards, kind, n_options)
    if choice < 0 or choice >= n_options:
        g.info[Info.OUTCOME] = Outcome.ERROR
        g.info[Info.REASON] = Reason.ILLEGAL_DECISION
        g.info[Info.ERROR_KIND] = kind
        g.info[Info.ERROR_CHOICE] = choice
        g.info[Info.ERROR_OPTIONS] = n_options
        return -1
    log_decision_nb(g, kind, choice)
    return choice


@borrowing_jit
def set_option_nb(options, i, a, b, c, d):
    """Write option row ``i``."""
    options[i, 0] = a
    options[i, 1] = b
    options[i, 2] = c
    options[i, 3] = d
