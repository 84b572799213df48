"""``search`` and ``clairvoyant``: Phase I decisions chosen by playing each candidate out.

At each Phase I decision with a choice, the best few options by the ``weighted`` policy's
score (greedy's features, tuned weights) are the candidates. Each is played out to the end
of the game ``rollouts`` times on a copy of the game, ``weighted`` making every later
decision, and the candidate with the best average (a win counts 1, each City card
pacified ``PLAYOUT_PACIFIED_WEIGHT``) is taken; ties go to the candidate ``weighted`` prefers.
Every other decision is ``weighted``'s.

- ``search`` sees what a player sees: before each play-out the unseen cards (the Dream deck
  and the City deck) are put in an imagined order, drawn from the game's ROLLOUT stream
  keyed by the decision, and later reshuffles draw from that stream too. Play-out r uses the
  same imagined order for every candidate (common random numbers), so candidates are
  compared on the same futures.
- ``clairvoyant`` plays out on the true order of the decks and the true later shuffles: it
  knows the future. These play-outs are then deterministic, so one play-out per candidate
  is exact; its win rate is what knowing the deck is worth to a look-ahead of this kind
  (a lower bound on how winnable the deals are).

Parameters ride at the end of ``params``, after the weights: rollouts, candidates.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from analyzer.core.codes import (
    Decision,
    EnginePolicy,
    EnginePolicyId,
    Info,
    Outcome,
    Stream,
)
from analyzer.core.jit import jit
from analyzer.core.rng import new_stream_nb, next_u64_nb, shuffle_nb
from analyzer.policies.greedy_nb import W, greedy_nb, seat_scores_nb
from analyzer.rules.decide_nb import call_policy, engine_choice
from analyzer.rules.game_nb import finish_turn_nb, play_turn_nb
from analyzer.rules.state_nb import copy_game_nb, is_running_nb

#: Index in ``params`` of the search settings, after greedy's weights and card facts.
ROLLOUTS_INDEX = len(W)
CANDIDATES_INDEX = ROLLOUTS_INDEX + 1
#: A City card pacified in a play-out, against a win counted 1.
PLAYOUT_PACIFIED_WEIGHT = 0.01


@overload(engine_choice, inline="always")
def _engine_policy_choice(policy, g, cards, kind, n_options):
    if not (isinstance(policy, types.BaseNamedTuple) and policy.instance_class is EnginePolicy):
        return None

    def impl(policy, g, cards, kind, n_options):
        if kind == Decision.PHASE1:
            return search_phase1_nb(g, cards, n_options,
                                    policy.id == EnginePolicyId.CLAIRVOYANT)
        state = (g.layout, g.hands, g.info)
        return greedy_nb(kind, g.options, n_options, state, cards, g.params, g.policy_rng)

    return impl


@overload(call_policy, inline="always")
def _engine_policy_view(policy, kind, options, n_options, state, cards, params, rng):
    # typed for completeness only: engine_choice answers every decision of these policies
    if not (isinstance(policy, types.BaseNamedTuple) and policy.instance_class is EnginePolicy):
        return None

    def impl(policy, kind, options, n_options, state, cards, params, rng):
        return greedy_nb(kind, options, n_options, state, cards, params, rng)

    return impl


@overload(call_policy, inline="always")
def _scripted_then_greedy(policy, kind, options, n_options, state, cards, params, rng):
    # a play-out's policy: ``policy[0]`` is the option of its first Phase I, then greedy
    if not isinstance(policy, types.Array):
        return None

    def impl(policy, kind, options, n_options, state, cards, params, rng):
        if kind == Decision.PHASE1 and policy[0] >= 0:
            choice = policy[0]
            policy[0] = -1
            return choice
        return greedy_nb(kind, options, n_options, state, cards, params, rng)

    return impl


@jit
def candidates_nb(g, cards, n_options, k):
    """The ``k`` best Phase I options by greedy's score, best first (ties: option order):
    as ``greedy_nb.phase1_nb`` scores them, in the team game on the partner's hand too."""
    scores = np.empty(n_options, dtype=np.float64)
    seat_scores_nb(g.options, n_options, g.layout, g.hands, g.info, cards, g.params, scores)
    order = np.argsort(-scores, kind="mergesort")
    return order[:min(k, n_options)]


@jit
def imagine_unseen_nb(sim, rng):
    """Put the unseen cards of ``sim`` in an order drawn from ``rng``; later shuffles too."""
    info = sim.info
    top = info[Info.DECK_TOP]
    shuffle_nb(sim.deck, top, top + info[Info.DECK_N], rng)
    top = info[Info.CITY_TOP]
    shuffle_nb(sim.city_deck, top, top + info[Info.CITY_DECK_N], rng)
    top = info[Info.POSTCARD_TOP]
    shuffle_nb(sim.postcard_deck, top, top + info[Info.POSTCARD_N], rng)
    sim.deal_rng[0] = next_u64_nb(rng)
    sim.deal_rng[1] = 0


@jit
def play_out_nb(g, cards, option, imagined, rng):
    """Value of taking Phase I ``option`` now, then greedy to the end, on a copy of ``g``."""
    sim = copy_game_nb(g)
    if imagined:
        imagine_unseen_nb(sim, rng)
    # The turn goes on from its Phase I, scripted: its start (R13.3) has already happened.
    script = np.full(1, option, dtype=np.int64)
    finish_turn_nb(script, sim, cards)
    while is_running_nb(sim):
        play_turn_nb(script, sim, cards)
    won = 1.0 if sim.info[Info.OUTCOME] == Outcome.WIN else 0.0
    return won + PLAYOUT_PACIFIED_WEIGHT * sim.info[Info.SUCCESS_N]


@jit
def search_phase1_nb(g, cards, n_options, clairvoyant):
    """The Phase I option with the best average play-out (docs/policies.md)."""
    rollouts = max(1, int(g.params[ROLLOUTS_INDEX]))
    candidates = candidates_nb(g, cards, n_options, max(1, int(g.params[CANDIDATES_INDEX])))
    decision_key = next_u64_nb(g.policy_rng)  # drawn even when unused: later keys stay put
    best, best_value = candidates[0], -1.0
    if len(candidates) == 1:  # weighted's option: nothing to compare it with
        return best
    for option in candidates:
        total = 0.0
        for r in range(rollouts):
            rng = new_stream_nb(decision_key, r, Stream.ROLLOUT)
            total += play_out_nb(g, cards, option, not clairvoyant, rng)
        if total > best_value:
            best, best_value = option, total
    return best
