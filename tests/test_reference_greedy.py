"""greedy's plain-Python twin (analyzer/reference/greedy.py) against greedy's kernel.

tests/test_agreement.py compares whole traces with the default weights, under which greedy
reveals no Book (BOOKS_KEEP 0.5). Here greedy keeps Books too, so that every kind of
decision reaches both implementations.
"""

from __future__ import annotations

import collections
from dataclasses import replace

import pytest

from analyzer.cards import default_card_set
from analyzer.cards.loader import parse_expansions
from analyzer.core.codes import Decision
from analyzer.policies.greedy_nb import greedy_params
from analyzer.policies.random_nb import random_nb
from analyzer.policies.registry import resolve_policy
from analyzer.reference import greedy as plain
from analyzer.runner.reference_runner import reference_policy, run_reference
from analyzer.runner.tracing import fast_trace

ALL_SEVEN = default_card_set().with_expansions(parse_expansions("all"))
SEEDS = 150


def book_keeping_greedy(cards):
    """greedy revealing up to four Books at setup (R09.1)."""
    spec = resolve_policy("greedy")
    return replace(spec, params_for_cards=lambda table: greedy_params({"BOOKS_KEEP": 4},
                                                                      table)).for_cards(cards)


def test_the_reference_engine_plays_greedy_and_weighted_with_the_plain_twin():
    for name in ("greedy", "weighted"):
        assert isinstance(reference_policy(resolve_policy(name), ALL_SEVEN), plain.PlainGreedy)
    assert reference_policy(resolve_policy("random"), ALL_SEVEN) is random_nb


@pytest.mark.parametrize("variant", ["solo", "team"])
def test_plain_greedy_agrees_with_the_kernel_on_every_kind_of_decision(variant, monkeypatch):
    cards = ALL_SEVEN.with_variant(variant)
    policy = book_keeping_greedy(cards)
    reached: collections.Counter = collections.Counter()
    for kind, decide in list(plain.DECISIONS.items()):
        def counted(position, decide=decide, kind=kind):
            reached[kind] += 1
            return decide(position)
        monkeypatch.setitem(plain.DECISIONS, kind, counted)
    for seed in range(SEEDS):
        fast = fast_trace(cards, policy, seed, seed % 3)
        reference = run_reference(cards, policy, seed, 1, seed % 3, variant=variant)[0]
        assert fast == reference, f"seed {seed}"
    solo_only = set() if variant == "team" else {Decision.SWAP_POLARITY}
    missing = set(Decision) - solo_only - set(reached)
    assert not missing, f"never reached: {[Decision._fields[k] for k in missing]}"


def test_a_tie_broken_the_other_way_in_one_greedy_alone_fails_agreement(monkeypatch):
    """Both take the first of equal scores; taking the last in the twin must show."""
    def last_best(scores):
        return max(range(len(scores)), key=lambda i: (scores[i], i))

    monkeypatch.setattr(plain, "first_best", last_best)
    cards = default_card_set()
    policy = resolve_policy("greedy").for_cards(cards)
    differ = [seed for seed in range(30)
              if fast_trace(cards, policy, seed, 0) != run_reference(cards, policy, seed, 1)[0]]
    assert differ, "the agreement test would not see greedy's two copies part"


@pytest.mark.parametrize("expansions, variant, seeds",
                         [("none", "solo", 200), ("all", "solo", 100), ("all", "team", 100)])
def test_plain_weighted_agrees_with_the_kernel(expansions, variant, seeds):
    """weighted's tuned weights are far from greedy's (it never clears a balanced city, and
    prices postcards ten times higher): other branches of the same scores."""
    cards = default_card_set().with_expansions(parse_expansions(expansions)).with_variant(variant)
    policy = resolve_policy("weighted").for_cards(cards)
    for seed in range(seeds):
        fast = fast_trace(cards, policy, seed, seed % 4)
        assert fast == run_reference(cards, policy, seed, 1, seed % 4, variant=variant)[0], \
            f"seed {seed}"


def test_weights_at_their_bound_keep_both_copies_alike():
    """A weights file of 1e18 and more made the kernel's search for the cheapest Chaos
    option, which started at 1e18, keep its first option where the twin took the cheapest;
    the searches start at infinity now, weights are bounded by MAX_WEIGHT (1e12) so that no
    sum overflows, and at the bound both copies agree."""
    from analyzer.core.greedy_terms import MAX_WEIGHT

    extreme = {"CHAOS_POINT": MAX_WEIGHT, "CLEAR": MAX_WEIGHT, "REVEAL_CARD": MAX_WEIGHT,
               "POSTCARD": -MAX_WEIGHT, "WISE": MAX_WEIGHT, "BALANCE": -MAX_WEIGHT}
    spec = resolve_policy("greedy")
    policy = replace(spec, params_for_cards=lambda table: greedy_params(extreme, table))
    for variant in ("solo", "team"):
        cards = ALL_SEVEN.with_variant(variant)
        played = policy.for_cards(cards)
        for seed in range(40):
            fast = fast_trace(cards, played, seed, 1)
            assert fast == run_reference(cards, played, seed, 1, 1, variant=variant)[0], \
                f"{variant} seed {seed}"
    for too_big in (1.01 * MAX_WEIGHT, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="must be a finite number from -1e12 to 1e12"):
            greedy_params({"CLEAR": too_big})


def test_past_the_bound_the_searches_for_the_cheapest_option_still_agree():
    """Params built by hand, beyond MAX_WEIGHT: with Chaos costs of 1e18 and more, the
    kernel's searches that started at 1e18 kept option 0 in these games of seed 0."""
    from analyzer.core.codes import GreedyWeight as W

    def huge(table):
        params = greedy_params(None, table)
        params[W.CHAOS_POINT], params[W.CLEAR], params[W.REVEAL_CARD] = 1e18, 1e19, 1e19
        return params

    cards = default_card_set()
    policy = replace(resolve_policy("greedy"), params_for_cards=huge).for_cards(cards)
    for game in (3, 174, 186, 221, 249):
        assert fast_trace(cards, policy, 0, game) == run_reference(cards, policy, 0, 1, game)[0]
