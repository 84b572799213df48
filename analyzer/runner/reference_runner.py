"""Batches on the plain-Python reference engine (slow; for checking and small runs)."""

from __future__ import annotations

from analyzer.cards import CardSet
from analyzer.errors import PolicyError
from analyzer.policies.registry import PolicySpec
from analyzer.reference import IllegalDecision, play_reference


def run_reference(card_set: CardSet, policy: PolicySpec, seed: int, games: int,
                  first_game: int = 0, variant: str = "solo") -> list[dict]:
    """Traces of games ``first_game ..`` of batch ``seed`` played by the reference engine,
    in the ``variant`` ``"solo"`` or ``"team"`` (R10)."""
    try:
        return [play_reference(card_set, seed, g, policy.func, policy.name, policy.params,
                               variant=variant)
                for g in range(first_game, first_game + games)]
    except IllegalDecision as err:
        raise PolicyError(str(err)) from None
