"""Invariants over random and greedy play, read from fast-engine traces."""

from __future__ import annotations

import numpy as np
import pytest

import analyzer
from analyzer.cards import default_card_set
from analyzer.cards.loader import parse_expansions
from analyzer.core.codes import N_RESULT, Info, Outcome, Reason
from analyzer.policies.registry import resolve_policy
from analyzer.rules.deck_nb import end_game_nb
from analyzer.rules.game_nb import play_turn_nb
from analyzer.runner.batch_nb import play_one_nb

CARDS = default_card_set()
N_DREAMS = len(CARDS.dream_ids)
N_CITIES = len(CARDS.city_ids)


def _checks(trace):
    return [e["check"] for e in trace["log"] if "check" in e]


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_every_card_in_exactly_one_zone_and_sides_hold_at_most_3(policy):
    types = {c["id"]: c["type"] for c in CARDS.describe()}
    for trace in analyzer.trace(seed=21, game=0, games=60, policy=policy):
        result = trace["result"]
        for check in _checks(trace):
            seen = [c for row in check["rows"] for c in row["L"] + row["R"]] + check["hand"]
            assert len(seen) == len(set(seen)), "a card in two places"
            for row in check["rows"]:
                assert len(row["L"]) <= 3 and len(row["R"]) <= 3
                assert all(types[c] in ("sognae", "chaos") for c in row["L"])
                assert all(types[c] in ("incubi", "chaos") for c in row["R"])
            counted = len(seen) + check["dream_deck"] + check["discard"]
            # a Chaos waiting for its partner when the deck ran out is in no zone
            lost_waiting = N_DREAMS - counted
            assert lost_waiting == 0 or (check is _checks(trace)[-1] and lost_waiting == 1
                                         and result["reason"] == "deck_empty")
            cities = len(check["rows"]) + check["success"]
            assert cities <= N_CITIES


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_a_finished_game_stays_finished(policy):
    spec = resolve_policy(policy)
    for game in range(20):
        out = np.zeros(N_RESULT, dtype=np.int64)
        g = play_one_nb(spec.kernel_arg, spec.params, CARDS.cards, CARDS.city_ids,
                        CARDS.dream_ids, CARDS.expansions, 8, game, 0, out)
        before = [np.array(a) for a in (g.layout, g.hands, g.info, g.deck, g.discard)]
        assert g.info[Info.OUTCOME] in (Outcome.WIN, Outcome.LOSS)
        play_turn_nb(spec.kernel_arg, g, CARDS.cards)
        end_game_nb(g, Outcome.WIN if g.info[Info.OUTCOME] == Outcome.LOSS else Outcome.LOSS,
                    Reason.NONE)
        after = [g.layout, g.hands, g.info, g.deck, g.discard]
        assert all(np.array_equal(x, y) for x, y in zip(before, after, strict=True))


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_the_trace_ends_with_one_final_check_matching_the_result(policy):
    for trace in analyzer.trace(seed=4, game=0, games=60, policy=policy):
        log = trace["log"]
        result = trace["result"]
        assert "check" in log[-1], "the log ends with the final check"
        final = log[-1]["check"]
        assert final["turn"] == result["turns"]
        assert final["success"] == result["pacified"]
        assert final["dream_deck"] == result["deck_left"]
        turns = [e["check"]["turn"] for e in log if "check" in e]
        assert turns[:-1] == list(range(len(turns) - 1)), "one check per turn, in order"
        if result["outcome"] == "win":
            assert result["pacified"] == N_CITIES
        else:
            assert result["reason"] == "deck_empty" and result["deck_left"] == 0


FIRST_FOUR = ("squares_metas", "chromatic_chaos", "temples_harmony", "gardens_wizards")
ALL_SIXTEEN = [[name for bit, name in enumerate(FIRST_FOUR) if mask >> bit & 1]
               for mask in range(16)]
LEFT_TYPES = {"sognae", "chaos", "chromatic", "meta", "harmony"}
RIGHT_TYPES = {"incubi", "chaos", "chromatic", "meta", "harmony"}


def _may_lie(card: dict, side: str) -> bool:
    """R01.1, R08.1: Sognae left, Incubi right, a Wizard by its polarity; Chaos, Chromatic
    Chaos, Metas and Harmony either side."""
    if card["type"] == "wizard":
        return card["polarity"] == ("sognae" if side == "L" else "incubi")
    return card["type"] in (LEFT_TYPES if side == "L" else RIGHT_TYPES)


@pytest.mark.parametrize("expansions", ALL_SIXTEEN, ids=lambda e: "+".join(e) or "base")
def test_invariants_of_every_combination_of_the_first_four_expansions(expansions):
    """Every card in exactly one zone, at most 3 dreams a side, each dream on a side it may
    lie on, no card from hand next to a Hanging Garden, every city in play accounted for, and
    a result that matches the final check, over random play."""
    card_set = CARDS.with_expansions(parse_expansions(expansions))
    by_id = {c["id"]: c for c in card_set.describe()}
    n_dreams, n_cities = len(card_set.dream_ids), len(card_set.city_ids)
    gardens = {i for i, c in by_id.items() if c["type"] == "city" and c["kind"] == "garden"}
    for trace in analyzer.trace(seed=77, game=0, games=25, policy="random",
                                expansions=expansions):
        assert trace["expansions"] == expansions
        checks = _checks(trace)
        for check in checks:
            seen = [c for row in check["rows"] for c in row["L"] + row["R"]] + check["hand"]
            assert len(seen) == len(set(seen)), "a card in two places"
            assert all(by_id[c]["type"] not in ("chaos", "chromatic") for c in check["hand"])
            for row in check["rows"]:
                for side in ("L", "R"):
                    assert len(row[side]) <= 3
                    assert all(_may_lie(by_id[c], side) for c in row[side]), (side, row)
            lost = n_dreams - len(seen) - check["dream_deck"] - check["discard"]
            if check is not checks[-1]:
                assert lost == 0, "a card outside every zone between turns"
            assert len(check["rows"]) + check["success"] <= n_cities
        final, result = checks[-1], trace["result"]
        assert final["success"] == result["pacified"]
        if result["outcome"] == "win":
            assert result["pacified"] == n_cities  # R08.6
        for entry in trace["log"]:
            if entry.get("do") == "place":
                row = _row_before(trace, entry)
                assert row not in gardens, "R08.5: a card from hand next to a Hanging Garden"


def _row_before(trace: dict, entry: dict) -> int:
    """The city at the placed row, from the last check before the placement."""
    last = None
    for e in trace["log"]:
        if e is entry:
            break
        if "check" in e:
            last = e["check"]
    return last["rows"][entry["row"]]["city"]
