"""Batches on the plain-Python reference engine (slow; for checking and small runs)."""

from __future__ import annotations

from collections.abc import Callable

from analyzer.cards import CardSet
from analyzer.errors import PolicyError
from analyzer.policies.builtin_nb import BuiltinId
from analyzer.policies.loader import game_note, policy_failure
from analyzer.policies.registry import PolicySpec
from analyzer.reference import IllegalDecision, play_reference
from analyzer.reference.cards import CardBook
from analyzer.reference.greedy import PlainGreedy


def reference_policy(policy: PolicySpec, card_set: CardSet) -> Callable:
    """What the reference engine plays ``policy`` with: greedy's kernel (``greedy``,
    ``weighted``) by its plain-Python twin, any other policy as it is."""
    if policy.builtin_id == BuiltinId.GREEDY:
        return PlainGreedy(CardBook.from_card_set(card_set))
    return policy.func


def run_reference(card_set: CardSet, policy: PolicySpec, seed: int, games: int,
                  first_game: int = 0, variant: str = "solo") -> list[dict]:
    """Traces of games ``first_game ..`` of batch ``seed`` played by the reference engine,
    in the ``variant`` ``"solo"`` or ``"team"`` (R10)."""
    choose = reference_policy(policy, card_set)
    traces = []
    for g in range(first_game, first_game + games):
        try:
            traces.append(play_reference(card_set, seed, g, choose, policy.name,
                                         policy.params, variant=variant))
        except IllegalDecision as err:
            raise PolicyError(str(err)) from None
        except Exception as err:
            # the game a user's policy raised in (runner/chunks.py reads it, or finds it)
            if policy_failure(policy, err) is not None:
                err.add_note(game_note(seed, g))
            raise
    return traces
