"""Tests of the reference engine and replayer with the first four expansions.

City Squares & Metas, Chromatic Chaos, Temples & Harmony, Hanging Gardens & Wizards
(docs/engine.md, "Expansions I"; RULINGS R02.4, R02.5, R07, R08). As in test_reference.py,
the rules are checked by evidence computed here, not by the code under test:

- hand-built traces whose ``check`` entries were worked out by hand from the rulebook, one
  scenario per ruling, each replayed when legal and rejected when tampered with;
- a policy that re-derives every option list it is offered from the state it is shown, in
  the contract's order, and the order in which the follow-up decisions must come;
- invariants recomputed from each trace alone, and an audit of every card's zone, by id.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import numpy as np
import pytest

from analyzer.cards import default_card_set
from analyzer.cards.loader import parse_card_set
from analyzer.core.codes import (
    Act,
    CardField,
    CardType,
    ChaosHow,
    Decision,
    Expansion,
    Info,
    Outcome,
    Stream,
)
from analyzer.core.rng import PyStream, below_nb
from analyzer.policies.random_nb import random_nb
from analyzer.reference import play_reference, replay
from analyzer.reference.cards import CardBook
from analyzer.reference.engine import SoloGame
from tests.test_reference import (
    CHAOS_IDS,
    CITY_ELEMENTS,
    DREAMS,
    LEANING,
    LEANING_ROWS,
    _expect_replay_error,
    _RandomDecider,
    _RandomShuffler,
    _ZoneAudit,
    census,
    chaos,
    check,
    observed,
    pass_,
    row,
)

FULL_SET = default_card_set()
SINGLE = [Expansion.SQUARES_METAS, Expansion.CHROMATIC_CHAOS, Expansion.TEMPLES_HARMONY,
          Expansion.GARDENS_WIZARDS]
ALL_FOUR = sum(SINGLE)
MASKS = [*SINGLE, ALL_FOUR]
MASK_IDS = ["squares_metas", "chromatic_chaos", "temples_harmony", "gardens_wizards", "all"]
N_RANDOM_GAMES = 120

# ---------------------------------------------------------------------- hand-built games
#
# The small card table of test_reference.py (cities 0-5, Sognae 10-19, Incubi 30-39,
# Chaos 50-53), with the expansions' cards added: City Square 6, Temple 7 (fire), Hanging
# Garden 8, Temple 9 (water); Chromatic Chaos 60-63 (4); Metas 70 (fire +3/-3), 71 (earth
# +2/-2), 72 (air +2/-2); Harmony 75 (+2/-2), 76 (+1/-1); Wizards 80 (+2 earth), 81 (-2
# fire), 82 (+3 water), 83 (-1 air).

ALL_ELEMENTS = ["earth", "water", "fire", "air"]
EXPANSION_CITIES = {6: ("square", ALL_ELEMENTS), 7: ("temple", ["fire"]), 8: ("garden", []),
                    9: ("temple", ["water"])}
CHROMATIC_IDS = (60, 61, 62, 63)
METAS = {70: ("fire", 3, -3), 71: ("earth", 2, -2), 72: ("air", 2, -2)}
HARMONY = {75: (2, -2), 76: (1, -1)}
WIZARDS = {80: ("earth", 2), 81: ("fire", -2), 82: ("water", 3), 83: ("air", -1)}
KIND_EXPANSION = {"square": "squares_metas", "temple": "temples_harmony",
                  "garden": "gardens_wizards", "chromatic": "chromatic_chaos",
                  "meta": "squares_metas", "harmony": "temples_harmony",
                  "wizard": "gardens_wizards"}
TRACE_ORDER = ["squares_metas", "chromatic_chaos", "temples_harmony", "gardens_wizards"]


def xcard(card_id: int) -> dict:
    """One card of the scenario table as a trace ``cards`` entry."""
    if card_id in CITY_ELEMENTS:
        return {"id": card_id, "type": "city", "kind": "base",
                "elements": CITY_ELEMENTS[card_id]}
    if card_id in EXPANSION_CITIES:
        kind, elements = EXPANSION_CITIES[card_id]
        return {"id": card_id, "type": "city", "kind": kind, "elements": elements}
    if card_id in CHAOS_IDS:
        return {"id": card_id, "type": "chaos", "value": 5}
    if card_id in CHROMATIC_IDS:
        return {"id": card_id, "type": "chromatic", "value": 4}
    if card_id in METAS:
        element, sognae, incubi = METAS[card_id]
        return {"id": card_id, "type": "meta", "element": element, "sognae_value": sognae,
                "incubi_value": incubi}
    if card_id in HARMONY:
        sognae, incubi = HARMONY[card_id]
        return {"id": card_id, "type": "harmony", "sognae_value": sognae,
                "incubi_value": incubi}
    if card_id in WIZARDS:
        element, value = WIZARDS[card_id]
        return {"id": card_id, "type": "wizard", "polarity": "sognae" if value > 0 else "incubi",
                "element": element, "value": value}
    card_type, element, value = DREAMS[card_id]
    return {"id": card_id, "type": card_type, "element": element, "value": value}


def xscenario(city_deck, dream_deck, log, outcome, turns, pacified, deck_left,
              expansions=None) -> dict:
    """A trace of the scenario table; the header names the expansions its cards need,
    unless ``expansions`` is given."""
    cards = [xcard(i) for i in sorted(city_deck + dream_deck)]
    if expansions is None:
        needed = {KIND_EXPANSION.get(c.get("kind")) for c in cards}
        needed |= {KIND_EXPANSION.get(c["type"]) for c in cards}
        expansions = [name for name in TRACE_ORDER if name in needed]
    return {
        "format": "urbion-trace/1", "seed": 0, "game": 0, "variant": "solo",
        "expansions": expansions, "policy": "scripted", "card_set": "mini",
        "cards": cards,
        "setup": {"city_deck": city_deck, "dream_deck": dream_deck,
                  "postcard_deck": [], "book_deck": []},
        "log": log,
        "result": {"outcome": outcome,
                   "reason": "all_pacified" if outcome == "win" else "deck_empty",
                   "card_set": "mini", "turns": turns, "pacified": pacified,
                   "deck_left": deck_left},
    }


def side(s) -> dict:
    return {"do": "side", "side": s}


def place(card, row_index, s) -> dict:
    return {"do": "place", "card": card, "row": row_index, "side": s}


def chromatic(row_index=None, s=None) -> dict:
    if row_index is None:
        return {"do": "chromatic", "discard": True}
    return {"do": "chromatic", "row": row_index, "side": s}


def revealed(row_index=None, s=None) -> dict:
    if row_index is None:
        return {"do": "revealed", "discard": True}
    return {"do": "revealed", "row": row_index, "side": s}


def act(discard, *acts) -> dict:
    return {"do": "act", "discard": list(discard), "acts": list(acts)}


def zs(*groups) -> dict:
    """A census act with its zero-sum groups."""
    return {"census": {"zero_sum": [list(g) for g in groups]}}


def replays(trace) -> None:
    assert replay(trace) == trace["result"]


def with_entry(trace, index, entry) -> dict:
    changed = copy.deepcopy(trace)
    changed["log"][index] = entry
    return changed


# ---- R02.4: Metas and Harmony dealt to a city


def meta_deal_trace(first="R", second="L", third="R") -> dict:
    rows = [row(0, [], [70, 30]), row(1, [75, 50], []), row(2, [], [71, 51]),
            row(3, [12], [32])]
    log = [side(first),  # Meta 70, card 1 of row 0: asked with card 2 (Incubi 30) seen
           side(second),  # Harmony 75, card 2 of row 1: the Chaos (card 1) joins it
           side(third),  # Meta 71, card 1 of row 2: the Chaos (card 2) joins it
           check(0, rows, [11, 13, 31, 33], 0, 0, 0),
           pass_(11),
           check(1, rows, [13, 31, 33], 0, 0, 1)]
    deck = [70, 30, 50, 75, 71, 51, 12, 32, 11, 13, 31, 33]
    return xscenario([0, 1, 2, 3], deck, log, "loss", 1, 0, 0)


def test_R02_4_meta_and_harmony_dealt_take_the_chosen_side_and_a_chaos_joins_them():
    trace = meta_deal_trace()
    replays(trace)
    assert trace["expansions"] == ["squares_metas", "temples_harmony"]
    rows = observed(trace)[0]["rows"]
    # Exact order: the partner first, then the Chaos; the Meta before card 2 of its row.
    assert rows[:3] == [row(0, [], [70, 30]), row(1, [75, 50], []), row(2, [], [71, 51])]


def chosen_codes(trace: dict, kind: int) -> list[tuple]:
    """The option rows (what a policy sees) of the decisions of one kind, in order."""
    codes = []

    def narrate(event, details):
        if event == "decision" and details["kind"] == kind:
            codes.append(tuple(details["code"]))

    replay(trace, narrate=narrate)
    return codes


def test_R02_4_the_side_decision_of_a_meta_or_harmony_names_the_card():
    assert chosen_codes(meta_deal_trace(), Decision.DEAL_SIDE) == [
        (1, 0, 70, 30), (0, 1, 75, 50), (1, 2, 71, 51)]


@pytest.mark.parametrize("sides, entry", [(("L", "L", "R"), 3), (("R", "R", "R"), 3),
                                          (("R", "L", "L"), 3)])
def test_R02_4_the_logged_side_decides_where_the_meta_and_its_chaos_go(sides, entry):
    # Another side is legal, but then the opening layout differs from the check.
    _expect_replay_error(meta_deal_trace(*sides), f"log entry {entry}:", "check rows differs")


def test_R02_4_a_meta_dealt_needs_its_side_decision():
    trace = meta_deal_trace()
    del trace["log"][2]
    _expect_replay_error(trace, "log entry 2:", "DEAL_SIDE")
    trace = meta_deal_trace()
    trace["log"][0] = {"do": "side", "side": "X"}
    _expect_replay_error(trace, "log entry 0:", "not a legal DEAL_SIDE")


# ---- R02.5: Chromatic Chaos held while dealing and drawing the opening hand


def held_trace(shuffle=(17, 35, 50), first=(2, "L"), second=(0, "R"), reveal=(3, "L"),
               before_shuffle=False) -> dict:
    rows = [row(0, [10], [30, 61]), row(1, [14], [34, 35]), row(2, [12, 60], [32]),
            row(3, [16, 17], [36])]
    resolution = [chromatic(*first),  # 60, held while dealing row 0
                  revealed(*reveal),  # 17 (air): rows 1 and 3 show air
                  chromatic(*second),  # 61, held while drawing the opening hand
                  revealed(1, "R")]  # 35 (fire): rows 1 and 2 show fire
    log = [chaos("aside"), {"shuffle": list(shuffle)}, *resolution]
    if before_shuffle:
        log = [chaos("aside"), *resolution, {"shuffle": list(shuffle)}]
    log += [check(0, rows, [11, 13, 31, 33], 1, 0, 0),
            pass_(11),
            chaos("reveal"),  # 50, back from the shuffle: the deck is empty, nothing shown
            check(1, rows, [13, 31, 33], 0, 0, 2)]
    deck = [60, 10, 30, 14, 34, 12, 32, 16, 36, 11, 61, 50, 13, 31, 33, 17, 35]
    return xscenario([0, 1, 2, 3], deck, log, "loss", 1, 0, 0)


def test_R02_5_chromatic_chaos_drawn_in_setup_is_held_and_resolved_after_the_opening_hand():
    trace = held_trace()
    replays(trace)
    first = observed(trace)[0]
    assert first["rows"][2] == row(2, [12, 60], [32])
    assert first["hand"] == [11, 13, 31, 33]  # the replacements, in the order drawn


def test_R02_5_held_chromatic_chaos_are_resolved_first_held_first():
    # 61 first would put 61 (not 60) in row 2: the check then differs.
    _expect_replay_error(held_trace(first=(0, "R"), second=(2, "L")), "log entry 6:",
                         "check rows differs")


def test_R02_5_held_chromatic_chaos_wait_for_the_R03_2_shuffle():
    _expect_replay_error(held_trace(before_shuffle=True), "log entry 1:",
                         "expected a shuffle")
    # The revealed card is the top of the shuffled deck: with 50 on top it is a Chaos.
    _expect_replay_error(held_trace(shuffle=(50, 17, 35)), "log entry 3:",
                         "not a legal DRAW_CHAOS")


def test_R02_5_a_held_card_reveals_by_the_placement_rules():
    # 17 is air; city 0 (row 0) shows earth and water only.
    _expect_replay_error(held_trace(reveal=(0, "L")), "log entry 3:", "not a legal REVEALED")


def census_refill_trace(groups_first=(), groups_second=((12, 18, 60),), payer=82,
                        second="census") -> dict:
    """A Wizard's two censuses; the first one's refill holds a Chromatic Chaos."""
    second_act = zs(*groups_second) if second == "census" else {second: [0, 1]}
    log = [check(0, [row(0, [10], [30])] + LEANING_ROWS[1:], [82, 11, 13, 33], 5, 0, 0),
           act([payer], zs(*groups_first), second_act),
           chromatic(0, "R"),  # 60, held while dealing row 0 (City 4): 12, 31 dealt
           revealed(0, "L"),  # 18 (earth): City 4 shows earth
           check(1, [row(4, [], [31])] + LEANING_ROWS[1:], [11, 13, 33, 32], 0, 1, 6),
           pass_(11),
           check(2, [row(4, [], [31])] + LEANING_ROWS[1:], [13, 33, 32], 0, 1, 7)]
    deck = [10, 30] + LEANING[2:] + [82, 11, 13, 33, 60, 12, 31, 18, 32]
    if payer != 82:  # the same game paid with another card
        deck = [c if c != 82 else 19 for c in deck]
        deck[deck.index(11)] = 82
        log[0]["check"]["hand"] = [19, 82, 13, 33]
        for k in (4, 6):
            log[k]["check"]["hand"] = [82 if c == 11 else c for c in log[k]["check"]["hand"]]
        log[5] = pass_(82)
    return xscenario([0, 1, 2, 3, 4], deck, log, "loss", 2, 1, 0)


def test_R02_5_R05_10_chromatic_held_in_a_census_refill_is_resolved_after_dealing():
    trace = census_refill_trace()
    replays(trace)
    # The census act entry comes first, then the decisions its refill asked for.
    assert [e.get("do") for e in trace["log"][1:4]] == ["act", "chromatic", "revealed"]


def test_R02_5_a_setup_lost_while_dealing_leaves_held_chromatic_chaos_in_no_zone():
    log = [check(0, [row(0, [10], [])], [], 0, 0, 0)]
    trace = xscenario([0], [60, 10, 61], log, "loss", 0, 0, 0)
    replays(trace)
    log[0]["check"]["discard"] = 2
    _expect_replay_error(trace, "log entry 0:", "check discard differs")


# ---- R07: Chromatic Chaos


def test_R07_2_R06_3_a_chromatic_chaos_with_an_empty_deck_reveals_nothing_and_play_goes_on():
    # 60 is held while dealing; the opening hand takes the last card. Revealing from the
    # empty deck would lose the game in setup; instead turn 1 is played.
    rows = [row(0, [10, 60], [30])]
    log = [chromatic(0, "L"),
           check(0, rows, [11, 12, 31, 32], 0, 0, 0),
           pass_(11),
           check(1, rows, [12, 31, 32], 0, 0, 1)]
    trace = xscenario([0], [60, 10, 30, 11, 12, 31, 32], log, "loss", 1, 0, 0)
    replays(trace)


def chromatic_reveal_trace(chaos_entry=None, meta_place=(1, "R")) -> dict:
    rows = [row(0, [11], [30, 61]), row(1, [14, 60, 50], [35, 70]), row(2, [15], [34, 63]),
            row(3, [17, 16], [36, 62])]
    log = [check(0, LEANING_ROWS, [10, 12, 13, 31], 8, 0, 0),
           pass_(10),
           chromatic(1, "L"),  # 60: row 1 now leans left (+5 against -2)
           chaos_entry or chaos("place", 1),  # it reveals 50, a Chaos: DRAW_CHAOS
           chromatic(0, "R"),  # 61
           chromatic(3, "R"),  # it reveals 62, another Chromatic Chaos
           revealed(3, "L"),  # which reveals 16 (air): row 1's left is full, only row 3
           chromatic(2, "R"),  # 63
           revealed(*meta_place),  # it reveals Meta 70 (fire): rows 1 (R) and 2 (L, R)
           check(1, rows, [12, 13, 31, 32], 0, 0, 1),
           pass_(12),
           check(2, rows, [13, 31, 32], 0, 0, 2)]
    deck = LEANING + [10, 12, 13, 31, 60, 50, 61, 62, 16, 63, 70, 32]
    return xscenario([0, 1, 2, 3], deck, log, "loss", 2, 0, 0)


def test_R07_1_R07_2_a_chromatic_chaos_is_placed_then_reveals_and_places_the_top_card():
    trace = chromatic_reveal_trace()
    replays(trace)
    assert chosen_codes(trace, Decision.CHROMATIC) == [(1, 0, 60, -1), (0, 1, 61, -1),
                                                       (3, 1, 62, -1), (2, 1, 63, -1)]
    assert chosen_codes(trace, Decision.REVEALED) == [(3, 0, 16, -1), (1, 1, 70, -1)]
    assert observed(trace)[1]["rows"][1] == row(1, [14, 60, 50], [35, 70])


def test_R07_2_a_revealed_chaos_is_resolved_as_if_drawn():
    # The Chaos goes to the more influential side, which the Chromatic Chaos made the left.
    _expect_replay_error(chromatic_reveal_trace(chaos_entry=revealed(1, "L")), "log entry 3:",
                         "not a legal DRAW_CHAOS")
    _expect_replay_error(chromatic_reveal_trace(chaos_entry=chaos("clear", 1)),
                         "log entry 3:", "not a legal DRAW_CHAOS")
    replaced = chromatic_reveal_trace(chaos_entry=chaos("place", 0))  # legal: row 0 leans L
    _expect_replay_error(replaced, "log entry 9:", "check rows differs")


@pytest.mark.parametrize("where", [(0, "R"), (1, "L"), (3, "R")])
def test_R07_2_a_revealed_meta_follows_the_placement_rules(where):
    # Row 0 and row 3 show no fire; row 1's left is full.
    _expect_replay_error(chromatic_reveal_trace(meta_place=where), "log entry 8:",
                         "not a legal REVEALED")


def test_R07_2_a_revealed_meta_takes_the_side_the_log_chose():
    trace = chromatic_reveal_trace(meta_place=(2, "L"))
    _expect_replay_error(trace, "log entry 9:", "check rows differs")
    trace["log"][9]["check"]["rows"][1] = row(1, [14, 60, 50], [35])
    trace["log"][9]["check"]["rows"][2] = row(2, [15, 70], [34, 63])
    trace["log"][11]["check"]["rows"] = trace["log"][9]["check"]["rows"]
    replays(trace)


def full_row_trace(chromatic_entry=None, revealed_entry=None) -> dict:
    """One city; both its sides fill up, then a Chromatic Chaos is drawn."""
    log = [check(0, [row(0, [10], [30])], [11, 12, 31, 32], 6, 0, 0),
           place(11, 0, "L"),
           check(1, [row(0, [10, 11], [30])], [12, 31, 32, 13], 5, 0, 0),
           place(12, 0, "L"),
           check(2, [row(0, [10, 11, 12], [30])], [31, 32, 13, 33], 4, 0, 0),
           place(31, 0, "R"),
           check(3, [row(0, [10, 11, 12], [30, 31])], [32, 13, 33, 18], 3, 0, 0),
           place(32, 0, "R"),
           chromatic_entry or chromatic(),  # 60: no side has room
           revealed_entry or revealed(),  # 14: no room even ignoring the element
           check(4, [row(0, [10, 11, 12], [30, 31, 32])], [13, 33, 18, 38], 0, 0, 2),
           pass_(13),
           check(5, [row(0, [10, 11, 12], [30, 31, 32])], [33, 18, 38], 0, 0, 3)]
    deck = [10, 30, 11, 12, 31, 32, 13, 33, 18, 60, 14, 38]
    return xscenario([0], deck, log, "loss", 5, 0, 0)


def test_R07_1_R07_2_with_every_side_full_both_the_chromatic_and_the_revealed_are_discarded():
    trace = full_row_trace()
    replays(trace)
    assert chosen_codes(trace, Decision.CHROMATIC) == [(-1, -1, 60, -1)]
    assert chosen_codes(trace, Decision.REVEALED) == [(-1, -1, 14, -1)]
    _expect_replay_error(full_row_trace(chromatic_entry=chromatic(0, "L")), "log entry 8:",
                         "not a legal CHROMATIC")
    _expect_replay_error(full_row_trace(revealed_entry=revealed(0, "L")), "log entry 9:",
                         "not a legal REVEALED")


def garden_reveal_trace(reveal=(0, "L"), last=(3, "R")) -> dict:
    rows1 = [row(8, [10, 16], [30]), row(7, [14], [34]), row(9, [12, 60], [32]),
             row(0, [11], [31])]
    rows2 = rows1[:3] + [row(0, [11], [31, 61])]
    log = [check(0, [row(8, [10], [30]), row(7, [14], [34]), row(9, [12], [32]),
                     row(0, [11], [31])], [13, 33, 15, 35], 4, 0, 0),
           pass_(13),
           chromatic(2, "L"),  # 60
           revealed(*reveal),  # 16 (air): no city shows air, so any left side with room
           check(1, rows1, [33, 15, 35, 17], 1, 0, 1),
           pass_(33),
           chromatic(*last),  # 61, the last card: nothing left to reveal (R06.3)
           check(2, rows2, [15, 35, 17], 0, 0, 2)]
    deck = [10, 30, 14, 34, 12, 32, 11, 31, 13, 33, 15, 35, 60, 16, 17, 61]
    return xscenario([8, 7, 9, 0], deck, log, "loss", 2, 0, 0)


def test_R07_2_a_revealed_card_no_city_shows_is_placed_ignoring_the_element():
    trace = garden_reveal_trace()
    assert trace["expansions"] == ["chromatic_chaos", "temples_harmony", "gardens_wizards"]
    replays(trace)  # R08.5: the Hanging Garden takes it
    for where in [(1, "L"), (3, "L")]:
        other = garden_reveal_trace(reveal=where)
        _expect_replay_error(other, "log entry 4:", "check rows differs")  # legal too
    _expect_replay_error(garden_reveal_trace(reveal=(0, "R")), "log entry 3:",
                         "not a legal REVEALED")


def test_R07_1_a_chromatic_chaos_goes_to_any_side_with_room():
    # Row 3 leans neither way that matters: any side of any city is legal (R07.1).
    trace = garden_reveal_trace(last=(3, "L"))
    trace["log"][-1]["check"]["rows"][3] = row(0, [11, 61], [31])
    replays(trace)


# ---- R08.1, R08.2: Metas and Harmony from hand and in the layout


def harmony_census_trace(where=(0, "R")) -> dict:
    lean = LEANING_ROWS[1:]
    log = [check(0, [row(0, [18], [30])] + lean, [75, 10, 12, 13], 4, 0, 0),
           place(75, *where),
           check(1, [row(0, [18], [30, 75])] + lean, [10, 12, 13, 31], 3, 0, 0),
           census(10),  # row 0: +3 -1 -2 = 0, pacified; City 4 dealt 16, 37
           check(2, [row(4, [16], [37])] + lean, [12, 13, 31, 32], 0, 1, 4),
           pass_(12),
           check(3, [row(4, [16], [37])] + lean, [13, 31, 32], 0, 1, 5)]
    deck = [18, 30] + LEANING[2:] + [75, 10, 12, 13, 31, 16, 37, 32]
    return xscenario([0, 1, 2, 3, 4], deck, log, "loss", 3, 1, 0)


def test_R08_1_a_harmony_placed_right_counts_its_incubi_value():
    replays(harmony_census_trace())


def test_R08_2_a_meta_or_harmony_in_hand_may_take_either_side():
    # Placed left it is legal too, but counts +2: the layout differs.
    _expect_replay_error(harmony_census_trace(where=(0, "L")), "log entry 2:",
                         "check rows differs")


def meta_hand_trace(entry) -> dict:
    log = [check(0, LEANING_ROWS, [70, 10, 12, 13], 0, 0, 0), entry]
    return xscenario([0, 1, 2, 3], LEANING + [70, 10, 12, 13], log, "loss", 1, 0, 0)


@pytest.mark.parametrize("where", [(1, "L"), (1, "R"), (2, "L"), (2, "R")])
def test_R08_2_a_meta_from_hand_goes_to_either_side_of_a_city_showing_its_element(where):
    trace = meta_hand_trace(place(70, *where))
    rows = copy.deepcopy(LEANING_ROWS)
    rows[where[0]][where[1]].append(70)
    trace["log"].append(check(1, rows, [10, 12, 13], 0, 0, 0))
    replays(trace)


@pytest.mark.parametrize("where", [(0, "L"), (0, "R"), (3, "R")])
def test_R08_2_a_meta_from_hand_still_needs_its_element(where):
    _expect_replay_error(meta_hand_trace(place(70, *where)), "log entry 1:",
                         "not a legal PHASE1")


# ---- R08.3: Wizards


def wizard_two_acts_trace(payer=80, acts=None) -> dict:
    rows = [row(4, [16], [37]), row(2, [15], [34]), row(3, [17], [36])]
    log = [check(0, LEANING_ROWS, [80, 12, 13, 31], 3, 0, 0),
           act([payer], *(acts or [{"exchange": [30, 35]}, zs()])),
           check(1, rows, [12, 13, 31, 32], 0, 2, 5),
           pass_(12),
           check(2, rows, [13, 31, 32], 0, 2, 6)]
    return xscenario([0, 1, 2, 3, 4], LEANING + [80, 12, 13, 31, 16, 37, 32], log,
                     "loss", 2, 2, 0)


def test_R08_3_a_wizard_gives_two_base_actions_exchange_then_census():
    # The exchange balances rows 0 (+2 -2) and 1 (+1 -1); the census pacifies both.
    replays(wizard_two_acts_trace())
    assert chosen_codes(wizard_two_acts_trace(), Decision.SECOND_ACT) == [
        (Act.CENSUS, -1, -1, -1)]


def test_R08_3_only_a_wizard_gives_a_second_action():
    trace = wizard_two_acts_trace()
    trace["log"][0]["check"]["hand"] = [12, 80, 13, 31]
    trace["log"][1]["discard"] = [12]
    for k in (2, 4):
        trace["log"][k]["check"]["hand"] = [80 if c == 12 else c for c in
                                            trace["log"][k]["check"]["hand"]]
    trace["log"][3] = pass_(80)
    _expect_replay_error(trace, "log entry 1:", "never allowed", "R08.3")


@pytest.mark.parametrize("acts, fragment", [
    ([{"exchange": [30, 35]}, zs(), zs()], "at most 2 acts"),
    ([{"exchange": [30, 35]}, {"rebuild": [0, 1]}], "not a base action"),
    ([{"exchange": [30, 35]}], "check"),  # without the census the layout differs
])
def test_R08_3_a_wizard_acts_at_most_twice_and_only_with_base_actions(acts, fragment):
    _expect_replay_error(wizard_two_acts_trace(acts=acts), "log entry", fragment)


def test_R08_3_each_census_of_a_wizard_keeps_its_own_zero_sum_groups():
    replays(census_refill_trace())
    # The group exists only after the first census's refill and its Chromatic Chaos.
    _expect_replay_error(census_refill_trace(groups_first=((12, 18, 60),), groups_second=()),
                         "log entry 1:", "zero-sum group [12, 18, 60]")
    _expect_replay_error(census_refill_trace(payer=19), "log entry 1:", "never allowed")


def wizard_place_trace(entry) -> dict:
    log = [check(0, LEANING_ROWS, [81, 10, 12, 13], 0, 0, 0), entry]
    return xscenario([0, 1, 2, 3], LEANING + [81, 10, 12, 13], log, "loss", 1, 0, 0)


def test_R08_3_a_wizard_is_placed_as_the_sognae_or_incubi_its_value_says():
    trace = wizard_place_trace(place(81, 1, "R"))  # -2 fire: an Incubi
    trace["log"].append(check(1, [LEANING_ROWS[0], row(1, [14], [35, 81])] + LEANING_ROWS[2:],
                              [10, 12, 13], 0, 0, 0))
    replays(trace)
    for where in [(1, "L"), (0, "R"), (3, "R")]:
        _expect_replay_error(wizard_place_trace(place(81, *where)), "log entry 1:",
                             "not a legal PHASE1")


# ---- R08.4: special actions


def rebuild_trace(discard=(10, 31), rows=(0, 2), expansions=None, later=(13, 2, "L")) -> dict:
    swapped = [row(2, [11], [30]), row(1, [14], [35]), row(0, [15], [34]), row(3, [17], [36])]
    after = copy.deepcopy(swapped)
    after[later[1]][later[2]].append(later[0])
    log = [check(0, LEANING_ROWS, [10, 12, 31, 13], 2, 0, 0),
           act(discard, {"rebuild": list(rows)}),
           check(1, swapped, [12, 13, 32, 33], 0, 0, 2),  # two cards paid, two drawn
           place(*later),  # 13 (water): row 2 now holds City 0 (earth, water)
           check(2, after, [12, 32, 33], 0, 0, 2)]
    deck = LEANING + [10, 12, 31, 13, 32, 33]
    names = ["gardens_wizards"] if expansions is None else expansions
    # a trace lists cards of every expansion it names: a City card of each, at the bottom
    # of the City deck, where this game of no pacified city never reaches
    bottom = [card for card, name in ((6, "squares_metas"), (8, "gardens_wizards"))
              if name in names]
    return xscenario([0, 1, 2, 3, *bottom], deck, log, "loss", 2, 0, 0, expansions=names)


def test_R08_4_rebuild_paid_with_two_cards_sharing_an_element_swaps_city_cards():
    replays(rebuild_trace())
    assert chosen_codes(rebuild_trace(), Decision.PHASE1)[0] == (Act.REBUILD, 10, 31, -1)
    assert chosen_codes(rebuild_trace(), Decision.REBUILD_ROWS) == [(0, 2, -1, -1)]
    replays(rebuild_trace(discard=(31, 10), rows=(2, 0)))  # a payment and rows are sets


def test_R08_4_after_a_rebuild_placements_follow_the_moved_city_cards():
    # Row 0 now holds City 2 (earth, fire): no water any more.
    _expect_replay_error(rebuild_trace(later=(13, 0, "L")), "log entry 3:",
                         "not a legal PHASE1")


def test_R08_4_special_actions_need_gardens_and_wizards_in_play():
    _expect_replay_error(rebuild_trace(expansions=[]), "log entry 1:", "not a legal PHASE1")
    _expect_replay_error(rebuild_trace(expansions=["squares_metas"]), "log entry 1:",
                         "not a legal PHASE1")


def test_R08_4_two_cards_must_share_an_element():
    # 10 is earth, 12 water.
    _expect_replay_error(rebuild_trace(discard=(10, 12)), "log entry 1:", "not a legal PHASE1")
    _expect_replay_error(rebuild_trace(discard=(10,)), "log entry 1:", "not a legal PHASE1")


@pytest.mark.parametrize("rows", [(0, 0), (0, 4), (1,)])
def test_R08_4_rebuild_needs_two_different_rows(rows):
    _expect_replay_error(rebuild_trace(rows=rows), "log entry 1:", "rebuild")


def change_sides_win_trace(card=50) -> dict:
    log = [chaos("place", 0),  # 51, opening hand: the right side leads (-7)
           check(0, [row(2, [], [31, 50, 51])], [81, 11, 10, 19], 2, 0, 0),
           act([81], {"change_sides": card}),
           check(1, [row(2, [card], [31, 101 - card])], [11, 10, 19, 12], 1, 0, 1),
           place(11, 0, "L"),  # +5 +2 against -2 -5: balanced only if the Chaos turned
           check(2, [row(2, [card, 11], [31, 101 - card])], [10, 19, 12, 13], 0, 0, 1),
           census(10),
           check(3, [], [19, 12, 13], 0, 1, 6)]
    deck = [31, 50, 51, 81, 11, 10, 19, 12, 13]
    return xscenario([2], deck, log, "win", 3, 1, 0)


def test_R08_4_change_sides_moves_a_chaos_and_flips_its_sign():
    replays(change_sides_win_trace())
    replays(change_sides_win_trace(card=51))


def change_sides_full_trace(card=50) -> dict:
    log = [chaos("place", 0),  # 50, opening hand: the left side leads (+7)
           check(0, [row(2, [11, 51, 50], [])], [31, 14, 35, 81], 3, 0, 0),
           act([81], {"change_sides": 51}),
           check(1, [row(2, [11, 50], [51])], [31, 14, 35, 82], 2, 0, 1),
           place(14, 0, "L"),  # the left side is full again
           check(2, [row(2, [11, 50, 14], [51])], [31, 35, 82, 83], 1, 0, 1),
           act([83], {"change_sides": card}),
           check(3, [row(2, [11, 14], [51, 50])], [31, 35, 82, 33], 0, 0, 2),
           pass_(31),
           check(4, [row(2, [11, 14], [51, 50])], [35, 82, 33], 0, 0, 3)]
    deck = [11, 51, 50, 31, 14, 35, 81, 82, 83, 33]
    return xscenario([2], deck, log, "loss", 4, 0, 0)


def test_R08_4_change_sides_is_refused_onto_a_full_side():
    trace = change_sides_full_trace()
    replays(trace)
    assert chosen_codes(trace, Decision.CHANGE_SIDES_CARD) == [(51, 0, 0, -1), (50, 0, 0, -1)]
    assert chosen_codes(trace, Decision.PHASE1)[0] == (Act.CHANGE_SIDES, 81, -1, -1)
    # The moved card is appended to its new side; the others keep their order.
    assert [c["rows"][0] for c in observed(trace)[1:4]] == [
        row(2, [11, 50], [51]), row(2, [11, 50, 14], [51]), row(2, [11, 14], [51, 50])]
    # 51 lies right, and the left side is full.
    _expect_replay_error(change_sides_full_trace(card=51), "log entry 6:", "change_sides 51",
                         "R08.4")
    # 11 is no Chaos.
    _expect_replay_error(change_sides_full_trace(card=11), "log entry 6:", "change_sides 11")


# ---- R08.5, R08.6: City Squares, Temples, Hanging Gardens


def city_kinds_trace(first=(16, 0, "L"), second=(75, 1, "R"), third=(81, 1, "R")) -> dict:
    rows0 = [row(6, [10], [30]), row(7, [14], [34]), row(8, [12], [32]), row(0, [11], [31])]
    rows1 = copy.deepcopy(rows0)
    rows1[0]["L"].append(16)
    rows2 = copy.deepcopy(rows1)
    rows2[1]["R"].append(75)
    rows3 = copy.deepcopy(rows2)
    rows3[1]["R"].append(81)
    log = [check(0, rows0, [16, 75, 81, 15], 3, 0, 0),
           place(*first),  # air, next to the City Square (all four elements)
           check(1, rows1, [75, 81, 15, 17], 2, 0, 0),
           place(*second),  # a Harmony, next to the fire Temple
           check(2, rows2, [81, 15, 17, 37], 1, 0, 0),
           place(*third),  # a fire Wizard, next to the fire Temple
           check(3, rows3, [15, 17, 37, 13], 0, 0, 0),
           pass_(15),
           check(4, rows3, [17, 37, 13], 0, 0, 1)]
    deck = [10, 30, 14, 34, 12, 32, 11, 31, 16, 75, 81, 15, 17, 37, 13]
    return xscenario([6, 7, 8, 0], deck, log, "loss", 4, 0, 0)


def test_R08_5_squares_show_every_element_temples_one_and_gardens_none():
    trace = city_kinds_trace()
    assert trace["expansions"] == ["squares_metas", "temples_harmony", "gardens_wizards"]
    replays(trace)


@pytest.mark.parametrize("entry, first, second, third", [
    (1, (16, 1, "L"), None, None),  # air next to the fire Temple
    (1, (16, 2, "L"), None, None),  # anything next to a Hanging Garden
    (3, None, (75, 2, "R"), None),  # even a Harmony (all four elements)
    (5, None, None, (81, 2, "R")),  # or a Wizard
    (5, None, None, (81, 3, "R")),  # fire next to City 0 (earth, water)
])
def test_R08_5_a_hanging_garden_or_a_temple_refuses_a_card_from_hand(entry, first, second,
                                                                      third):
    trace = city_kinds_trace(first or (16, 0, "L"), second or (75, 1, "R"),
                             third or (81, 1, "R"))
    _expect_replay_error(trace, f"log entry {entry}:", "not a legal PHASE1")


def test_R08_5_the_city_kinds_in_the_cards_table_need_their_expansion():
    trace = city_kinds_trace()
    trace["expansions"] = ["squares_metas", "temples_harmony"]
    _expect_replay_error(trace, "cards[", "garden", "gardens_wizards")
    trace = city_kinds_trace()
    trace["cards"][next(i for i, c in enumerate(trace["cards"]) if c["id"] == 7)][
        "elements"] = ["fire", "air"]
    _expect_replay_error(trace, "cards[", "temple")


def square_win_trace() -> dict:
    log = [check(0, [row(0, [10], [30]), row(6, [11], [32])], [12, 13, 36, 34], 2, 0, 0),
           census(12),  # pacifies City 0 only: the City Square is still to do
           check(1, [row(6, [11], [32])], [13, 36, 34, 35], 1, 1, 3),
           place(36, 0, "R"),  # air: the City Square shows every element
           check(2, [row(6, [11], [32, 36])], [13, 34, 35, 33], 0, 1, 3),
           census(13),
           check(3, [], [34, 35, 33], 0, 2, 7)]
    deck = [10, 30, 11, 32, 12, 13, 36, 34, 35, 33]
    return xscenario([0, 6], deck, log, "win", 3, 2, 0)


def test_R08_6_the_win_needs_the_expansion_cities_too():
    replays(square_win_trace())
    early = square_win_trace()
    early["log"][2] = check(1, [], [13, 33, 34, 35], 1, 1, 3)
    early["log"] = early["log"][:3]
    early["result"].update(outcome="win", reason="all_pacified", turns=1, pacified=1)
    _expect_replay_error(early, "log entry 2:", "check")


@pytest.mark.parametrize("mask, cities, dreams", [
    (0, 12, 72), (Expansion.SQUARES_METAS, 16, 80), (Expansion.CHROMATIC_CHAOS, 12, 80),
    (Expansion.TEMPLES_HARMONY, 16, 82), (Expansion.GARDENS_WIZARDS, 16, 88),
    (ALL_FOUR, 24, 114)])
def test_R08_6_each_expansion_adds_its_cards_to_the_decks_and_the_trace(mask, cities, dreams):
    card_set = FULL_SET.with_expansions(mask)
    trace = play_reference(card_set, 4, 1, random_nb, "random")
    deal = PyStream(4, 1, Stream.DEAL)
    city_deck = [int(c) for c in card_set.city_ids]
    deal.shuffle(city_deck)
    dream_deck = [int(c) for c in card_set.dream_ids]
    deal.shuffle(dream_deck)
    assert (len(city_deck), len(dream_deck)) == (cities, dreams)
    assert trace["setup"]["city_deck"] == city_deck
    assert trace["setup"]["dream_deck"] == dream_deck
    assert trace["expansions"] == [n for k, n in enumerate(TRACE_ORDER) if mask >> k & 1]
    assert trace["cards"] == card_set.describe()
    assert len(trace["cards"]) == cities + dreams
    replays(trace)


# ---------------------------------------------------------------------- replay header


def test_replay_rejects_unknown_repeated_or_cardless_expansions():
    trace = meta_deal_trace()
    for names, fragment in [(["squares_metas", "books"], "'books' cannot be replayed"),
                            (["squares_metas", "nope"], "unknown expansion 'nope'"),
                            (["squares_metas", "temples_harmony", "squares_metas"],
                             "listed twice"),
                            ("squares_metas", "a list of expansion names")]:
        changed = copy.deepcopy(trace)
        changed["expansions"] = names
        _expect_replay_error(changed, "expansions:", fragment)


def test_replay_rejects_expansion_cards_whose_expansion_is_not_named():
    trace = meta_deal_trace()
    trace["expansions"] = ["temples_harmony"]
    _expect_replay_error(trace, "cards[", "meta", "squares_metas")


@pytest.mark.parametrize("card_id, key, value, fragment", [
    (70, "incubi_value", 3, "incubi_value"), (75, "sognae_value", 0, "sognae_value"),
    (81, "polarity", "sognae", "polarity"), (81, "element", "ether", "element"),
    (60, "value", -4, "chromatic card 60 value: -4 is not a whole number from 1 to 9")])
def test_replay_rejects_malformed_expansion_cards(card_id, key, value, fragment):
    trace = xscenario([0, 1, 2, 3], [70, 75, 81, 60], [], "loss", 0, 0, 0)
    entry = next(c for c in trace["cards"] if c["id"] == card_id)
    entry[key] = value
    _expect_replay_error(trace, "cards[", fragment)


# ---------------------------------------------------------------------- random play


def _dreams_in_play(cards: np.ndarray, expansions: int) -> int:
    owner = {CardType.CHROMATIC: Expansion.CHROMATIC_CHAOS, CardType.META:
             Expansion.SQUARES_METAS, CardType.HARMONY: Expansion.TEMPLES_HARMONY,
             CardType.WIZARD: Expansion.GARDENS_WIZARDS}
    n = 0
    for t in cards[:, CardField.TYPE]:
        t = int(t)
        if t in (CardType.SOGNAE, CardType.INCUBI, CardType.CHAOS):
            n += 1
        elif t in owner and expansions & owner[t]:
            n += 1
    return n


class CheckingPolicy:
    """Uniformly random, after re-deriving every option list from the visible state.

    Written from docs/engine.md independently of the engine: placed values, sides, the
    option lists of every decision kind in order, and which decision must come next.
    """

    def __init__(self, mask: int) -> None:
        self.mask = mask
        self.expect_next: int | None = None
        self.second_due = False
        self.turn = 0
        self.seen = Counter()

    # -- the visible state

    def _value(self, card: int, side: int) -> int:
        t = int(self.cards[card, CardField.TYPE])
        v = int(self.cards[card, CardField.VALUE])
        if t in (CardType.CHAOS, CardType.CHROMATIC):
            return v if side == 0 else -v
        if t in (CardType.META, CardType.HARMONY):
            return v if side == 0 else int(self.cards[card, CardField.VALUE2])
        return v

    def _hand_sides(self, card: int) -> list[int]:
        t = int(self.cards[card, CardField.TYPE])
        v = int(self.cards[card, CardField.VALUE])
        if t in (CardType.META, CardType.HARMONY):
            return [0, 1]
        if t == CardType.SOGNAE or (t == CardType.WIZARD and v > 0):
            return [0]
        if t == CardType.INCUBI or (t == CardType.WIZARD and v < 0):
            return [1]
        raise AssertionError(f"card {card} of type {t} cannot come from hand")

    def _type(self, card: int) -> int:
        return int(self.cards[card, CardField.TYPE])

    def _shows(self, city: int, card: int) -> bool:
        return bool(self.cards[city, CardField.ELEMENTS] & self.cards[card, CardField.ELEMENTS])

    def _total(self, r: int, side: int) -> int:
        return sum(self._value(c, side) for c in self.rows[r][1 + side])

    def _room(self, r: int, side: int) -> bool:
        return len(self.rows[r][1 + side]) < 3

    def _more_influential(self, r: int) -> int | None:
        left, right = abs(self._total(r, 0)), abs(self._total(r, 1))
        return None if left == right else (0 if left > right else 1)

    def _balanced(self, r: int) -> bool:
        dreams = self.rows[r][1] + self.rows[r][2]
        return bool(dreams) and self._total(r, 0) + self._total(r, 1) == 0

    def _pairs(self) -> list[tuple]:
        out = []
        for s in (0, 1):
            spots = [c for _, left, right in self.rows for c in (left, right)[s]]
            out += [(a, b, s, -1) for i, a in enumerate(spots) for b in spots[i + 1:]]
        return out

    def _change_targets(self) -> list[tuple]:
        return [(c, r, s, -1) for r, rowx in enumerate(self.rows) for s in (0, 1)
                for c in rowx[1 + s]
                if self._type(c) in (CardType.CHAOS, CardType.CHROMATIC) and self._room(r, 1 - s)]

    # -- the option lists

    def _phase1(self) -> list[tuple]:
        special = bool(self.mask & Expansion.GARDENS_WIZARDS)
        rebuild = special and len(self.rows) >= 2
        change = special and bool(self._change_targets())
        pairs = bool(self._pairs())
        out = []
        for card in self.hand:
            for r, (city, _, _) in enumerate(self.rows):
                for s in self._hand_sides(card):
                    if self._shows(city, card) and self._room(r, s):
                        out.append((Act.PLACE, card, r, s))
            out += [(Act.PASS, card, -1, -1), (Act.CENSUS, card, -1, -1)]
            if pairs:
                out.append((Act.EXCHANGE, card, -1, -1))
            if special and self._type(card) == CardType.WIZARD:
                out += [(Act.REBUILD, card, -1, -1)] * rebuild
                out += [(Act.CHANGE_SIDES, card, -1, -1)] * change
        if special:
            for i, a in enumerate(self.hand):
                for b in self.hand[i + 1:]:
                    if self.cards[a, CardField.ELEMENTS] & self.cards[b, CardField.ELEMENTS]:
                        out += [(Act.REBUILD, a, b, -1)] * rebuild
                        out += [(Act.CHANGE_SIDES, a, b, -1)] * change
        return out

    def _chaos(self, kind: int, card: int) -> list[tuple]:
        assert self._type(card) == CardType.CHAOS
        out = []
        for r in range(len(self.rows)):
            s = self._more_influential(r)
            if s is not None and self._room(r, s):
                out.append((ChaosHow.PLACE, r, s, card))
        if kind == Decision.HAND_CHAOS:
            return out or [(ChaosHow.ASIDE, -1, -1, card)]
        out += [(ChaosHow.CLEAR, r, -1, card) for r in range(len(self.rows))
                if self._balanced(r)]
        return out + [(ChaosHow.REVEAL, -1, -1, card)]

    def _revealed(self, card: int) -> list[tuple]:
        assert self._type(card) not in (CardType.CHAOS, CardType.CHROMATIC, CardType.CITY)
        for by_element in (True, False):
            out = [(r, s, card, -1) for r, (city, _, _) in enumerate(self.rows)
                   for s in self._hand_sides(card)
                   if self._room(r, s) and (not by_element or self._shows(city, card))]
            if out:
                return out
        return [(-1, -1, card, -1)]

    def _zero_sum(self, r: int) -> list[tuple]:
        out = [(0, r, -1, -1)]
        slots = {k: (c, 0) for k, c in enumerate(self.rows[r][1])}
        slots |= {3 + k: (c, 1) for k, c in enumerate(self.rows[r][2])}
        for mask in range(1, 64):
            bits = [b for b in range(6) if mask >> b & 1]
            if all(b in slots for b in bits) and sum(self._value(*slots[b]) for b in bits) == 0:
                out.append((mask, r, -1, -1))
        return out

    def expected(self, kind: int, first: tuple) -> list[tuple]:
        if kind == Decision.PHASE1:
            return self._phase1()
        if kind in (Decision.HAND_CHAOS, Decision.DRAW_CHAOS):
            return self._chaos(kind, first[3])
        if kind == Decision.DEAL_SIDE:
            card = first[2]
            assert card == -1 or self._type(card) in (CardType.META, CardType.HARMONY)
            # the other card dealt to the row, drawn but not placed: not on the layout
            partner = first[3] if card != -1 else -1
            assert partner == -1 or self._type(partner) in (
                CardType.CHAOS, CardType.SOGNAE, CardType.INCUBI, CardType.META,
                CardType.HARMONY, CardType.WIZARD)
            assert all(partner not in (*left, *right) for _, left, right in self.rows)
            if card != -1:
                # R02.4: card 1 waits for card 2 and sees it; card 2 sees card 1 placed
                _, left, right = self.rows[first[1]]
                assert (partner != -1) == (not left and not right)
            return [(0, first[1], card, partner), (1, first[1], card, partner)]
        if kind == Decision.CHROMATIC:
            card = first[2]
            assert self._type(card) == CardType.CHROMATIC
            return [(r, s, card, -1) for r in range(len(self.rows)) for s in (0, 1)
                    if self._room(r, s)] or [(-1, -1, card, -1)]
        if kind == Decision.REVEALED:
            return self._revealed(first[2])
        if kind == Decision.ZERO_SUM:
            return self._zero_sum(first[1])
        if kind == Decision.EXCHANGE_PAIR:
            return self._pairs()
        if kind == Decision.SECOND_ACT:
            return ([(Act.PASS, -1, -1, -1), (Act.CENSUS, -1, -1, -1)]
                    + [(Act.EXCHANGE, -1, -1, -1)] * bool(self._pairs()))
        if kind == Decision.REBUILD_ROWS:
            n = len(self.rows)
            return [(a, b, -1, -1) for a in range(n) for b in range(a + 1, n)]
        if kind == Decision.CHANGE_SIDES_CARD:
            return self._change_targets()
        raise AssertionError(f"unknown decision kind {kind}")

    # -- the order of decisions

    def __call__(self, kind, options, n_options, state, cards, params, rng):
        layout, hands, info = state
        if info[Info.TURN] < self.turn:  # a new game
            self.expect_next, self.second_due = None, False
        self.turn = int(info[Info.TURN])
        self.cards = cards
        assert info[Info.EXPANSIONS] == self.mask
        n_rows = int(info[Info.N_ROWS])
        self.rows = [(int(layout[r, 0]), [int(c) for c in layout[r, 1:4] if c >= 0],
                      [int(c) for c in layout[r, 4:7] if c >= 0]) for r in range(n_rows)]
        self.hand = [int(c) for c in hands[0] if c >= 0]
        assert (options[n_options:] == -1).all()
        offered = [tuple(int(x) for x in options[i]) for i in range(n_options)]
        # Dream cards in zones: all of them at a settled decision, fewer while one is moving.
        in_zones = (sum(len(r[1]) + len(r[2]) for r in self.rows) + len(self.hand)
                    + int(info[Info.DECK_N]) + int(info[Info.DISCARD_N]))
        settled = kind in (Decision.PHASE1, Decision.ZERO_SUM, Decision.EXCHANGE_PAIR,
                           Decision.SECOND_ACT, Decision.REBUILD_ROWS,
                           Decision.CHANGE_SIDES_CARD)
        n_dreams = _dreams_in_play(cards, self.mask)
        assert in_zones == n_dreams if settled else in_zones < n_dreams, Decision._fields[kind]
        if kind == Decision.PHASE1:
            assert len(self.hand) == 4
        if kind != Decision.ZERO_SUM:
            assert all(city >= 0 for city, _, _ in self.rows), "a placeholder row outlived"
        expected = self.expected(kind, offered[0])
        assert offered == expected, (Decision._fields[kind], offered, expected)
        choice = int(below_nb(rng, n_options))
        self._order(kind, offered[choice])
        self.seen[Decision._fields[kind]] += 1
        return choice

    def _order(self, kind: int, option: tuple) -> None:
        """Follow-up decisions come where the contract puts them. A follow-up with a single
        option is taken without asking (docs/engine.md), so it is expected only when it
        has more than one."""
        if self.expect_next is not None:
            assert kind == self.expect_next, (Decision._fields[kind], self.expect_next)
            self.expect_next = None
        if kind == Decision.PHASE1:
            assert not self.second_due, "a Wizard's second action was never asked"
            act_code, card, x = option[0], option[1], option[2]
            wizard = self._type(card) == CardType.WIZARD
            self.second_due = wizard and act_code in (Act.CENSUS, Act.EXCHANGE)
            if act_code in (Act.REBUILD, Act.CHANGE_SIDES) and x == -1:
                assert wizard, "a special action paid with one card that is no Wizard"
            n = len(self.rows)
            follow = {Act.EXCHANGE: (Decision.EXCHANGE_PAIR, len(self._pairs())),
                      Act.REBUILD: (Decision.REBUILD_ROWS, n * (n - 1) // 2),
                      Act.CHANGE_SIDES: (Decision.CHANGE_SIDES_CARD,
                                         len(self._change_targets()))}.get(act_code)
            if follow is not None:
                self._expect(*follow)
        elif kind == Decision.SECOND_ACT:
            assert self.second_due, "SECOND_ACT without a Wizard's base action"
            self.second_due = False
            if option[0] == Act.EXCHANGE:
                self._expect(Decision.EXCHANGE_PAIR, len(self._pairs()))
        elif kind == Decision.EXCHANGE_PAIR and self.second_due:
            self.expect_next = Decision.SECOND_ACT

    def _expect(self, kind: int, n_options: int) -> None:
        if n_options > 1:
            self.expect_next = kind
        elif kind == Decision.EXCHANGE_PAIR and self.second_due:
            self.expect_next = Decision.SECOND_ACT  # the single pair was taken unasked


def _random_traces(mask: int, games: int, seed: int = 2000) -> list[dict]:
    card_set = FULL_SET.with_expansions(mask)
    return [play_reference(card_set, seed + g, g % 5, random_nb, "random")
            for g in range(games)]


@pytest.fixture(scope="module")
def random_traces() -> dict[int, list[dict]]:
    return {mask: _random_traces(mask, N_RANDOM_GAMES) for mask in MASKS}


SIDE_TYPES = {"L": {"sognae", "chaos", "chromatic", "meta", "harmony", "wizard+"},
              "R": {"incubi", "chaos", "chromatic", "meta", "harmony", "wizard-"}}


def _type_name(card: dict) -> str:
    if card["type"] == "wizard":
        return "wizard+" if card["value"] > 0 else "wizard-"
    return card["type"]


def check_invariants(trace: dict) -> None:
    """Zones, sides and acts, computed from the trace alone."""
    cards = {card["id"]: card for card in trace["cards"]}
    n_cities = sum(card["type"] == "city" for card in cards.values())
    n_dreams = len(cards) - n_cities
    special = "gardens_wizards" in trace["expansions"]
    for card in cards.values():
        needs = KIND_EXPANSION.get(card.get("kind")) or KIND_EXPANSION.get(card["type"])
        assert needs is None or needs in trace["expansions"]
    checks = [entry["check"] for entry in trace["log"] if "check" in entry]
    result = trace["result"]
    assert [c["turn"] for c in checks] == list(range(result["turns"] + 1))
    for number, chk in enumerate(checks):
        final = number == len(checks) - 1
        seen = list(chk["hand"])
        assert all(cards[c]["type"] in ("sognae", "incubi", "meta", "harmony", "wizard")
                   for c in chk["hand"])
        for rowx in chk["rows"]:
            assert cards[rowx["city"]]["type"] == "city"
            for s in ("L", "R"):
                assert len(rowx[s]) <= 3
                assert all(_type_name(cards[c]) in SIDE_TYPES[s] for c in rowx[s])
                seen += rowx[s]
        assert len(seen) == len(set(seen))
        in_zones = len(seen) + chk["dream_deck"] + chk["discard"]
        if not final:
            assert len(chk["hand"]) == 4 and in_zones == n_dreams
        else:
            # Lost while dealing: a waiting card 1 and held Chromatic Chaos are in no zone
            # (and, in setup, opening-hand Chaos set aside).
            assert in_zones == n_dreams or result["reason"] == "deck_empty"
    assert (result["outcome"] == "win") == (checks[-1]["success"] == n_cities)
    for entry in trace["log"]:
        if entry.get("do") != "act":
            continue
        names = [next(iter(a)) for a in entry["acts"]]
        paid = entry["discard"]
        if len(paid) == 2:
            assert special and names in (["rebuild"], ["change_sides"])
            elements = [{cards[c].get("element")} if cards[c]["type"] != "harmony"
                        else set(ALL_ELEMENTS) for c in paid]
            assert elements[0] & elements[1]
        elif len(names) == 2 or names[0] in ("rebuild", "change_sides"):
            assert special and cards[paid[0]]["type"] == "wizard"
            assert len(names) == 1 or set(names) <= {"census", "exchange"}


@pytest.mark.parametrize("mask", MASKS, ids=MASK_IDS)
def test_random_play_replays_cleanly_for_each_expansion_and_all_four(random_traces, mask):
    for trace in random_traces[mask]:
        assert replay(trace) == trace["result"]
        check_invariants(trace)
    for trace in random_traces[mask][:20]:
        copied = json.loads(json.dumps(trace))
        assert copied == trace and replay(copied) == trace["result"]


def _log_features(trace: dict) -> Counter:
    seen = Counter()
    setup_done = False
    for entry in trace["log"]:
        if "check" in entry:
            setup_done = True
        do = entry.get("do")
        if do is None:
            continue
        seen[do] += 1
        if do in ("chromatic", "revealed") and entry.get("discard"):
            seen[f"{do} discard"] += 1
        if do == "chromatic" and not setup_done:
            seen["held in setup"] += 1
        if do == "act":
            seen[f"{len(entry['discard'])} paid"] += 1
            seen[f"{len(entry['acts'])} acts"] += 1
            for a in entry["acts"]:
                seen[next(iter(a))] += 1
    return seen


def test_random_play_reaches_every_new_decision(random_traces):
    seen = Counter()
    for mask in MASKS:
        for trace in random_traces[mask]:
            seen += _log_features(trace)
    for feature in ("chromatic", "revealed", "side", "held in setup", "2 paid", "2 acts",
                    "rebuild", "change_sides", "census", "exchange"):
        assert seen[feature] > 0, feature


@pytest.mark.parametrize("mask", MASKS, ids=MASK_IDS)
def test_options_match_the_visible_state(mask):
    card_set = FULL_SET.with_expansions(mask)
    policy = CheckingPolicy(mask)
    for game in range(25):
        trace = play_reference(card_set, 91, game, policy, "checked")
        assert replay(trace) == trace["result"]
        check_invariants(trace)
    assert policy.seen["PHASE1"] > 0


def tiny_expansion_set():
    """Few cards, one base city: sides fill up and games are won."""
    return parse_card_set(
        'name = "tiny-x"\n[cities]\nbase = [["earth", "water"]]\nsquare = 1\n'
        'temple = ["fire"]\ngarden = 1\n'
        "[dreams.sognae]\nearth = [1, 2]\nwater = [1]\nfire = [2]\nair = [1]\n"
        "[dreams.incubi]\nearth = [-1, -2]\nwater = [-1]\nfire = [-2]\nair = [-1]\n"
        "[dreams.chaos]\ncount = 2\nvalue = 5\n[dreams.chromatic]\ncount = 3\nvalue = 4\n"
        "[dreams.meta]\nearth = [[2, -2]]\nwater = []\nfire = [[1, -1]]\nair = []\n"
        "[dreams.harmony]\nvalues = [[1, -1], [2, -2]]\n"
        "[dreams.wizard]\nearth = [1, -1]\nwater = [2]\nfire = []\nair = [-2]\n",
        "test",
    )


def test_tiny_expansion_sets_reach_wins_and_discards():
    base = tiny_expansion_set()
    seen = Counter()
    for mask in MASKS:
        card_set = base.with_expansions(mask)
        policy = CheckingPolicy(mask)
        for game in range(150):
            trace = play_reference(card_set, 17, game, policy, "checked")
            assert replay(trace) == trace["result"]
            check_invariants(trace)
            seen[trace["result"]["outcome"]] += 1
            seen["setup loss"] += trace["result"]["turns"] == 0
            seen += _log_features(trace)
    assert seen["win"] > 0 and seen["2 acts"] > 0 and seen["2 paid"] > 0
    assert seen["chromatic discard"] > 0 and seen["revealed discard"] > 0


class _HeldZoneAudit(_ZoneAudit):
    """The base game's zone audit; held Chromatic Chaos are in transit, and nothing is
    held or moving between turns (at the end, several cards may be left held)."""

    def check_in_transit(self, game: SoloGame) -> None:
        assert set(game.held) <= set(game.in_transit)
        if game.outcome == Outcome.RUNNING:
            assert game.in_transit == [] and game.held == []


@pytest.mark.parametrize("mask", MASKS, ids=MASK_IDS)
def test_every_card_is_in_exactly_one_zone_at_every_check(mask):
    for card_set in (FULL_SET.with_expansions(mask), tiny_expansion_set().with_expansions(mask)):
        book = CardBook.from_card_set(card_set)
        assert len(book) == len(card_set.city_ids) + len(card_set.dream_ids)
        for game_index in range(30):
            rng = random.Random(game_index)
            cities, dreams = list(book.city_ids), list(book.dream_ids)
            rng.shuffle(cities)
            rng.shuffle(dreams)
            audit = _HeldZoneAudit()
            game = SoloGame(book, cities, dreams, _RandomDecider(rng), _RandomShuffler(rng),
                            audit, expansions=mask)
            audit.game = game
            game.play()
            assert audit.checks == game.turn + 1


def test_the_card_book_reads_values_and_sides_from_the_card_table():
    book = CardBook.from_card_set(FULL_SET.with_expansions(ALL_FOUR))
    by_type = {}
    for card_id in book.dream_ids:
        by_type.setdefault(book[card_id].type, []).append(card_id)
    meta = by_type[CardType.META][1]  # R14: earth +3/-3 is the second Meta
    assert (book.value_on(meta, 0), book.value_on(meta, 1), book.sides(meta)) == (3, -3, (0, 1))
    chromatic_card = by_type[CardType.CHROMATIC][0]
    assert (book.value_on(chromatic_card, 0), book.value_on(chromatic_card, 1)) == (4, -4)
    wizards = by_type[CardType.WIZARD][:4]  # earth +2, +3, -1, -2
    assert [book.value_on(w, book.natural_side(w)) for w in wizards] == [2, 3, -1, -2]
    assert [book.natural_side(w) for w in wizards] == [0, 0, 1, 1]
    harmony = by_type[CardType.HARMONY][-1]
    assert (book.value_on(harmony, 0), book.value_on(harmony, 1)) == (2, -2)
    garden = [c for c in book.city_ids if book[c].elements == 0]
    assert len(garden) == 4
    assert not any(book.shows_element(garden[0], d) for d in book.dream_ids)
    assert all(book.shows_element(c, harmony) for c in book.city_ids if c not in garden)
    base_only = CardBook.from_card_set(FULL_SET)
    assert len(base_only) == 84


def test_the_policy_sees_the_expansion_set():
    seen = []

    def policy(kind, options, n_options, state, cards, params, rng):
        seen.append(int(state[2][Info.EXPANSIONS]))
        return 0

    play_reference(FULL_SET.with_expansions(Expansion.CHROMATIC_CHAOS | Expansion.GARDENS_WIZARDS),
                   3, 0, policy, "first")
    assert seen and set(seen) == {Expansion.CHROMATIC_CHAOS | Expansion.GARDENS_WIZARDS}
