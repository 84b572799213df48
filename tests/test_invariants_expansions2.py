"""Invariants of Books, Postcards & Wise Chaos, the Emptiness and the team game (R09-R13)
over random play, read from fast-engine traces; and every one of the 256 rule sets (128
expansion sets, solo and team) playing games to a legal end."""

from __future__ import annotations

import numpy as np
import pytest

import analyzer
from analyzer.cards import default_card_set
from analyzer.cards.loader import expansion_names, parse_expansions
from analyzer.core.codes import EXPANSION_NAMES, SWAP_REMOVES
from analyzer.policies.registry import resolve_policy
from analyzer.runner.run import run_fast

CARDS = default_card_set()
LAST_THREE = ("books", "postcards", "emptiness")
#: Each expansion alone, all seven together, and a few mixed sets; solo and team.
SAMPLE = [[name] for name in EXPANSION_NAMES] + [list(EXPANSION_NAMES), list(LAST_THREE),
                                                  ["chromatic_chaos", "postcards"],
                                                  ["gardens_wizards", "books", "emptiness"]]
LEFT_TYPES = {"sognae", "chaos", "chromatic", "meta", "harmony"}
RIGHT_TYPES = {"incubi", "chaos", "chromatic", "meta", "harmony"}
CHAOS_TYPES = {"chaos", "chromatic"}


def _may_lie(card: dict, side: str) -> bool:
    if card["type"] == "wizard":
        return card["polarity"] == ("sognae" if side == "L" else "incubi")
    return card["type"] in (LEFT_TYPES if side == "L" else RIGHT_TYPES)


def _hands(check: dict) -> list[list[int]]:
    return check["hands"] if "hands" in check else [check["hand"]]


class _Audit:
    """Walks one trace, checking each check entry against the one before."""

    def __init__(self, trace: dict, card_set) -> None:
        self.trace = trace
        self.by_id = {c["id"]: c for c in card_set.describe()}
        self.n_dreams = len(card_set.dream_ids)
        self.n_cities = len(card_set.city_ids)
        self.in_play = set(trace["expansions"])
        self.team = trace["variant"] == "team"
        self.removed = 0
        self.last: dict | None = None
        self.polarity = 0

    def run(self) -> None:
        checks = [e["check"] for e in self.trace["log"] if "check" in e]
        for entry in self.trace["log"]:
            if entry.get("do") == "swap_polarity":
                assert self.team and len(entry["removed"]) == SWAP_REMOVES
                assert self.last["discard"] >= SWAP_REMOVES, "R10.4: 8 discards needed"
                self.removed += SWAP_REMOVES
                self.polarity = 1 - self.polarity
            elif entry.get("do") == "place" and self.team:
                wanted = "L" if entry["seat"] == self.polarity else "R"
                assert entry["side"] == wanted, "R10.3: placed against the seat's polarity"
            elif "check" in entry:
                self.check(entry["check"], final=entry["check"] is checks[-1])
        self.result(checks[-1])

    def check(self, check: dict, final: bool) -> None:
        hands = _hands(check)
        assert len(hands) == (2 if self.team else 1)
        seen = [c for row in check["rows"] for c in row["L"] + row["R"]]
        seen += [c for hand in hands for c in hand]
        assert len(seen) == len(set(seen)), "a card in two places"
        for hand in hands:
            assert all(self.by_id[c]["type"] not in CHAOS_TYPES for c in hand)
        for row in check["rows"]:
            for side in ("L", "R"):
                assert len(row[side]) <= 3
                assert all(_may_lie(self.by_id[c], side) for c in row[side])
        counted = len(seen) + check["dream_deck"] + check["discard"] + self.removed
        if not final:
            assert counted == self.n_dreams, "a card outside every zone between turns"
        assert len(check["rows"]) + check["success"] <= self.n_cities
        self.expansion_counters(check)
        if self.team:
            assert check["polarity"] == self.polarity
        self.last = check

    def expansion_counters(self, check: dict) -> None:
        before = self.last
        if "postcards" in self.in_play:
            assert 0 <= check["wise_chaos"] <= 6  # R11.2
            if before is not None:
                assert check["wise_chaos"] <= before["wise_chaos"]
        else:
            assert "inhabitants" not in check and "wise_chaos" not in check
        if "emptiness" in self.in_play:
            empt = check["emptiness"]
            assert 0 <= empt["cards"] <= 8
            if empt["at"] is not None:
                assert 0 <= empt["at"] < len(check["rows"]) and not empt["flat"]
            if empt["cards"] == 0:
                assert empt["at"] is None and not empt["flat"], "R12.4: the figure leaves"
            if before is not None:
                assert empt["cards"] <= before["emptiness"]["cards"]
        else:
            assert "emptiness" not in check

    def result(self, final: dict) -> None:
        result = self.trace["result"]
        assert final["success"] == result["pacified"]
        if result["outcome"] == "win":
            assert result["pacified"] == self.n_cities
            assert final.get("inhabitants", 0) >= 0, "R11.9"
        elif result["reason"] == "inhabitants":
            assert result["pacified"] == self.n_cities and final["inhabitants"] < 0
        elif result["reason"] == "emptiness":
            assert "emptiness" in self.in_play
        else:
            assert result["reason"] == "deck_empty" and result["deck_left"] == 0


@pytest.mark.parametrize("variant", ["solo", "team"])
@pytest.mark.parametrize("expansions", SAMPLE, ids=lambda e: "+".join(e))
def test_invariants_of_the_last_expansions_and_the_team_game(expansions, variant):
    """Every card in one zone (discards removed by a polarity swap counted out), sides of at
    most 3 on sides they may take, placements by polarity (R10.3), swaps only from 8
    discards, Wise Chaos and Emptiness cards only going down, the figure on a row or the
    pile, and a result that matches the final check (R11.9, R12.2, R13)."""
    card_set = CARDS.with_expansions(parse_expansions(expansions)).with_variant(variant)
    traces = analyzer.trace(seed=91, game=0, games=20, policy="random", expansions=expansions,
                            variant=variant)
    for trace in traces:
        assert trace["variant"] == variant
        _Audit(trace, card_set).run()


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_every_one_of_the_256_rule_sets_plays_50_games_to_a_legal_end(policy):
    """All 128 expansion sets, solo and team: 50 games each end in a win or a loss for a
    reason their rules allow, with the expansions' result columns in range."""
    spec = resolve_policy(policy)
    for variant in ("solo", "team"):
        for mask in range(128):
            card_set = CARDS.with_expansions(mask).with_variant(variant)
            results = run_fast(card_set, spec.for_cards(card_set), seed=mask, games=50)
            _check_results(results, mask, variant, len(card_set.city_ids))


def _check_results(results: np.ndarray, mask: int, variant: str, n_cities: int) -> None:
    names = set(expansion_names(mask))
    where = f"{'+'.join(sorted(names)) or 'base'} {variant}"
    reasons = set(results["reason"].tolist())
    allowed = {1, 2} | ({3} if "emptiness" in names else set()) | \
        ({4} if "postcards" in names else set())
    assert reasons <= allowed, where
    assert (results["pacified"] <= n_cities).all(), where
    assert (results["seats"] == (2 if variant == "team" else 1)).all(), where
    assert ((results["books_kept"] > 0) <= ("books" in names)).all(), where
    assert ((results["wise_used"] > 0) <= ("postcards" in names)).all(), where
    assert (results["wise_used"] <= 6).all(), where
    assert ((results["allies"] > 0) <= ("emptiness" in names)).all(), where
    assert ((results["polarity_swaps"] > 0) <= (variant == "team")).all(), where
    if "emptiness" in names:
        assert ((0 <= results["emptiness_left"]) & (results["emptiness_left"] <= 8)).all()
    else:
        assert (results["emptiness_left"] == 0).all(), where
    if "postcards" not in names:
        assert (results["inhabitants"] == 0).all(), where
