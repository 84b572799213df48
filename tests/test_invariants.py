"""Invariants over random and greedy play, read from fast-engine traces."""

from __future__ import annotations

import numpy as np
import pytest

import analyzer
from analyzer.cards import default_card_set
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
