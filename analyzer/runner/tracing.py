"""Traces of single games from the fast engine (``urbion-trace/1``)."""

from __future__ import annotations

import numpy as np

from analyzer.cards import CardSet
from analyzer.core.codes import N_RESULT, REASON_NAMES, TRACE_FORMAT, Info, Outcome
from analyzer.errors import mark_policy_call
from analyzer.policies.registry import PolicySpec
from analyzer.runner import interrupts
from analyzer.runner.local import illegal_decision_error, one_game_kernel
from analyzer.trace.fast_log import LogDecoder

FIRST_LOG_CAP = 8192


def trace_header(card_set: CardSet, policy_name: str, seed: int, game: int) -> dict:
    """The keys every trace starts with (TRACE.md)."""
    return {
        "format": TRACE_FORMAT,
        "seed": seed,
        "game": game,
        "variant": card_set.variant,
        "expansions": card_set.expansion_names(),
        "policy": policy_name,
        "card_set": card_set.name,
        "cards": card_set.describe(),
    }


def fast_trace(card_set: CardSet, policy: PolicySpec, seed: int, game: int) -> dict:
    """Play game ``game`` of batch ``seed`` with the fast engine and return its trace."""
    cap = FIRST_LOG_CAP
    while True:
        out = np.zeros(N_RESULT, dtype=np.int64)
        try:
            g = one_game_kernel(policy)(policy.kernel_arg, policy.params, card_set.cards,
                                        card_set.city_ids, card_set.dream_ids,
                                        card_set.rules, seed, game, cap, out)
        except Exception as err:
            if interrupts.interrupted_inside(err):  # the game runs on the main thread
                raise KeyboardInterrupt from None
            mark_policy_call(err)
            raise
        if not g.info[Info.LOG_OVERFLOW]:
            break
        cap *= 4
    if g.info[Info.OUTCOME] == Outcome.ERROR:
        raise illegal_decision_error(card_set, policy, seed, game)
    decoder = LogDecoder(g.log[: g.info[Info.LOG_N]], card_set.expansions,
                         card_set.variant == "team")
    log = decoder.decode()
    trace = trace_header(card_set, policy.name, seed, game)
    trace["setup"] = {"city_deck": decoder.city_deck, "dream_deck": decoder.dream_deck,
                      "postcard_deck": decoder.postcard_deck, "book_deck": decoder.book_deck}
    trace["log"] = log
    trace["result"] = {
        "outcome": "win" if g.info[Info.OUTCOME] == Outcome.WIN else "loss",
        "reason": REASON_NAMES[int(g.info[Info.REASON])],
        "card_set": card_set.name,
        "turns": int(g.info[Info.TURN]),
        "pacified": int(g.info[Info.SUCCESS_N]),
        "deck_left": int(g.info[Info.DECK_N]),
    }
    return trace
