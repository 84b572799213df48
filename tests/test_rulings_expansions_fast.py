"""The four first expansions' rulings (R02.4, R02.5, R05.10, R06.2c, R07, R08, R13.1) on
hand-built positions, run on the fast engine's kernels (docs/engine.md, "Expansions I").

Expected layouts, hands, piles and decks are worked out by hand from the rulebook, the
rulings and the contract; card ids are those of the default card set (R14).
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.codes import (
    N_POLICY_INFO,
    Act,
    ChaosHow,
    CityKind,
    Decision,
    Expansion,
    Info,
    Outcome,
    Reason,
    Side,
)
from analyzer.policies.greedy_nb import greedy_nb, greedy_params
from analyzer.rules.census_nb import census_nb, zero_sum_options_nb
from analyzer.rules.chaos_nb import draw_chaos_options_nb, resolve_draw_chaos_nb
from analyzer.rules.chromatic_nb import chromatic_options_nb, revealed_options_nb
from analyzer.rules.game_nb import phase2_nb, play_turn_nb
from analyzer.rules.phase1_nb import (
    exchange_nb,
    exchange_options_nb,
    phase1_nb,
    phase1_options_nb,
    second_act_nb,
)
from analyzer.rules.setup_nb import deal_row_nb, opening_hand_nb, resolve_held_nb, setup_nb
from analyzer.rules.state_nb import is_balanced_nb, placed_value_nb, row_total_nb
from tests.positions import (
    CARDS,
    asked_counts,
    chaos_ids,
    chromatic_ids,
    city,
    decisions,
    deck_left,
    discarded,
    expansion_city,
    fresh_game,
    hand,
    harmony,
    held,
    incubi,
    meta,
    options,
    position,
    recording_nb,
    scripted_nb,
    side,
    sognae,
    stacked_setup,
    wizard,
)

C = CARDS.cards
L, R = Side.L, Side.R
E, W, F, A = 1, 2, 4, 8  # earth, water, fire, air
EW, EF, WA, FA = E | W, E | F, W | A, F | A
CH = chaos_ids()  # 76-83
CC = chromatic_ids()  # 96-103
SQUARE = expansion_city(CityKind.SQUARE)  # 84
TEMPLE = {e: expansion_city(CityKind.TEMPLE, e) for e in (E, W, F, A)}  # 88-91
GARDEN = expansion_city(CityKind.GARDEN)  # 92
SM, CHROMATIC, TH, GW = (Expansion.SQUARES_METAS, Expansion.CHROMATIC_CHAOS,
                         Expansion.TEMPLES_HARMONY, Expansion.GARDENS_WIZARDS)
ALL4 = SM | CHROMATIC | TH | GW
NO_GW = SM | CHROMATIC | TH
D = Decision


def test_card_ids_of_the_default_set_used_here():
    assert (CH[0], CC[0], SQUARE, GARDEN) == (76, 96, 84, 92)
    assert [TEMPLE[e] for e in (E, W, F, A)] == [88, 89, 90, 91]
    assert (meta(2, E), meta(3, E), meta(2, W), meta(3, F)) == (104, 105, 106, 109)
    assert (harmony(1), harmony(2)) == (112, 117)
    assert (wizard(2, E), wizard(-1, E), wizard(-2, F)) == (122, 124, 133)
    assert (sognae(1), sognae(3), incubi(-1), incubi(-2)) == (12, 16, 44, 47)


# --- R08.1: placed values by side --------------------------------------------------------


@pytest.mark.parametrize("card, left, right", [
    (105, 3, -3),  # Meta earth +3/-3: VALUE on L, VALUE2 on R
    (106, 2, -2),  # Meta water +2/-2
    (112, 1, -1),  # Harmony +1/-1
    (117, 2, -2),  # Harmony +2/-2
    (96, 4, -4),  # Chromatic Chaos (R07)
    (123, 3, 3),  # Wizard earth +3: its own signed value
    (133, -2, -2),  # Wizard fire -2
])
def test_R08_1_placed_value_is_the_value_of_the_side(card, left, right):
    assert placed_value_nb(C, card, L) == left
    assert placed_value_nb(C, card, R) == right


# --- R02.4 / R08.1: dealing a Meta or Harmony ---------------------------------------------


@pytest.mark.parametrize("meta_first", [True, False])
@pytest.mark.parametrize("choice", [0, 1])
def test_R02_4_a_dealt_meta_lies_on_the_side_chosen_with_that_sides_value(meta_first, choice):
    m, s = meta(3, E), sognae(1, A)  # 105 (+3/-3) on a fire/air city: elements ignored
    deck = [m, s] if meta_first else [s, m]
    g = position([(city(FA), [], [])], deck=deck, script=[choice], expansions=SM)
    deal_row_nb(scripted_nb, g, C, 0)
    # card 2 is revealed before the Meta's side is chosen: a Sognae not placed yet is named
    partner = s if meta_first else -1
    assert options(g, 2) == [(L, 0, m, partner), (R, 0, m, partner)]
    if choice == 0:
        assert side(g, 0, L) == ([m, s] if meta_first else [s, m])
        assert side(g, 0, R) == []
        assert row_total_nb(g.layout, C, 0) == 3 + 1
    else:
        assert side(g, 0, L) == [s] and side(g, 0, R) == [m]
        assert row_total_nb(g.layout, C, 0) == 1 - 3
    assert deck_left(g) == [] and held(g) == []


@pytest.mark.parametrize("two_sided", [106, 117], ids=["meta", "harmony"])
@pytest.mark.parametrize("chaos_first", [True, False], ids=["chaos_first", "chaos_second"])
@pytest.mark.parametrize("choice", [0, 1], ids=["L", "R"])
def test_R02_4_a_chaos_dealt_with_a_meta_or_harmony_joins_its_chosen_side(
        two_sided, chaos_first, choice):
    x = two_sided  # Meta water +2/-2 or Harmony +2/-2
    deck = [CH[0], x] if chaos_first else [x, CH[0]]
    g = position([(city(EW), [], [])], deck=deck, script=[choice], expansions=SM | TH,
                 log_cap=64)
    deal_row_nb(scripted_nb, g, C, 0)
    # the Meta's question, not the Chaos', naming the Chaos that will join the side chosen
    assert options(g, 2) == [(L, 0, x, CH[0]), (R, 0, x, CH[0])]
    assert decisions(g) == [(D.DEAL_SIDE, choice, 0, x, CH[0])]
    chosen = (L, R)[choice]
    assert side(g, 0, chosen) == [x, CH[0]]
    assert side(g, 0, 1 - chosen) == []
    assert row_total_nb(g.layout, C, 0) == (2 + 5 if chosen == L else -2 - 5)


def test_R02_4_two_metas_dealt_each_take_their_own_chosen_side():
    m1, m2 = meta(2, E), harmony(1)
    g = position([(city(EW), [], [])], deck=[m1, m2], script=[1, 0], expansions=SM | TH,
                 log_cap=64)
    deal_row_nb(scripted_nb, g, C, 0)
    assert decisions(g) == [(D.DEAL_SIDE, R, 0, m1, m2), (D.DEAL_SIDE, L, 0, m2, -1)]
    assert side(g, 0, L) == [m2] and side(g, 0, R) == [m1]
    assert row_total_nb(g.layout, C, 0) == 1 - 2


def test_R02_4_a_meta_dealt_first_waits_in_no_zone_when_the_deck_runs_out():
    """rules-notes 17: card 1 waits for card 2 as a Chaos does; with no card 2 the game is
    lost before any side is chosen."""
    m = meta(3, E)
    g = position([(city(FA), [], [])], deck=[m], script=[0], expansions=SM, log_cap=64)
    deal_row_nb(scripted_nb, g, C, 0)
    assert decisions(g) == []
    assert side(g, 0, L) == [] and side(g, 0, R) == []
    assert g.info[Info.OUTCOME] == Outcome.LOSS and g.info[Info.REASON] == Reason.DECK_EMPTY


@pytest.mark.parametrize("partner, expected", [
    (-1, L),  # alone, +3 and -3 are as far from balance: ties go left
    (sognae(3), R),  # a Sognae +3 still to come: -3 balances the city
    (incubi(-3), L),
])
def test_R02_4_greedy_chooses_a_dealt_metas_side_with_card_2_in_view(partner, expected):
    m = meta(3, E)
    g = position([(city(FA), [], [])], expansions=SM)
    g.options[0] = (L, 0, m, partner)
    g.options[1] = (R, 0, m, partner)
    params = greedy_params(cards=C)
    state = (g.layout, g.hands, g.info[:N_POLICY_INFO])
    choice = greedy_nb(D.DEAL_SIDE, g.options, 2, state, C, params, np.zeros(2, np.uint64))
    assert choice == expected


def test_R08_3_a_dealt_wizard_lies_on_the_side_of_its_sign():
    w_minus, w_plus = wizard(-2, F), wizard(3, W)  # 133, 127
    g = position([(city(EW), [], [])], deck=[w_minus, w_plus], expansions=GW, log_cap=64)
    deal_row_nb(scripted_nb, g, C, 0)
    assert side(g, 0, L) == [w_plus] and side(g, 0, R) == [w_minus]
    assert decisions(g) == []  # nothing to choose
    assert row_total_nb(g.layout, C, 0) == 1


def test_R08_1_a_meta_dealt_in_a_census_refill_takes_the_chosen_side_with_its_chaos():
    m = meta(3, F)  # 109
    g = position([(city(EW), [sognae(2)], [incubi(-2)])], deck=[m, CH[0], sognae(1, A)],
                 city_deck=[city(FA)], script=[1], expansions=SM)
    census_nb(scripted_nb, g, C, 1)
    assert g.layout[0, 0] == city(FA) and g.info[Info.SUCCESS_N] == 1
    assert side(g, 0, L) == [] and side(g, 0, R) == [m, CH[0]]
    assert row_total_nb(g.layout, C, 0) == -3 - 5
    assert deck_left(g) == [sognae(1, A)]


# --- R08.1 / R08.5: placing from hand -------------------------------------------------------


def test_R08_1_a_harmony_from_hand_goes_on_either_side_of_any_city_with_an_element():
    h = harmony(1)
    full = [sognae(1), sognae(2), sognae(3)]
    g = position([(city(EW), [], []),
                  (TEMPLE[F], [], []),
                  (GARDEN, [], []),
                  (SQUARE, full, [])],
                 hand=[h], expansions=ALL4)
    n = phase1_options_nb(g, C, 0)
    assert options(g, n) == [
        (Act.PLACE, h, 0, L), (Act.PLACE, h, 0, R),
        (Act.PLACE, h, 1, L), (Act.PLACE, h, 1, R),
        (Act.PLACE, h, 3, R),  # Square: its left side is full; Garden: no element
        (Act.PASS, h, -1, -1), (Act.CENSUS, h, -1, -1), (Act.EXCHANGE, h, -1, -1)]
    g = position([(city(EW), [], []), (TEMPLE[F], [sognae(1, F)], [])],
                 hand=[h], script=[3], expansions=ALL4)  # (PLACE, h, 1, R)
    phase1_nb(scripted_nb, g, C, 0)
    assert side(g, 1, R) == [h] and hand(g) == []
    assert is_balanced_nb(g.layout, C, 1)  # +1 and the Harmony's -1


def test_R08_1_a_meta_from_hand_needs_its_element_and_counts_its_incubi_value_on_the_right():
    m = meta(3, F)  # 109: fire, +3/-3
    full = [incubi(-1), incubi(-2), incubi(-3)]
    g = position([(city(EW), [], []),  # no fire
                  (TEMPLE[F], [sognae(3, F)], []),
                  (city(FA), [], full),  # right side full
                  (SQUARE, [], [])], hand=[m], expansions=SM | TH)
    n = phase1_options_nb(g, C, 0)
    places = [o for o in options(g, n) if o[0] == Act.PLACE]
    assert places == [(Act.PLACE, m, 1, L), (Act.PLACE, m, 1, R),
                      (Act.PLACE, m, 2, L),
                      (Act.PLACE, m, 3, L), (Act.PLACE, m, 3, R)]
    g = position([(city(EW), [], []), (TEMPLE[F], [sognae(3, F)], [])], hand=[m], script=[1],
                 expansions=SM | TH)  # (PLACE, m, 1, R)
    phase1_nb(scripted_nb, g, C, 0)
    assert side(g, 1, R) == [m]
    assert row_total_nb(g.layout, C, 1) == 3 - 3 and is_balanced_nb(g.layout, C, 1)


def test_R08_5_gardens_take_nothing_from_hand_squares_anything_temples_their_element():
    h, s_earth, i_water, m_water = harmony(2), sognae(1), incubi(-1, W), meta(2, W)
    g = position([(GARDEN, [], []), (SQUARE, [], []), (TEMPLE[W], [], [])],
                 hand=[h, s_earth, i_water, m_water], expansions=SM | TH | GW)
    n = phase1_options_nb(g, C, 0)
    places = [o for o in options(g, n) if o[0] == Act.PLACE]
    assert places == [
        (Act.PLACE, h, 1, L), (Act.PLACE, h, 1, R), (Act.PLACE, h, 2, L), (Act.PLACE, h, 2, R),
        (Act.PLACE, s_earth, 1, L),  # not at the water Temple
        (Act.PLACE, i_water, 1, R), (Act.PLACE, i_water, 2, R),
        (Act.PLACE, m_water, 1, L), (Act.PLACE, m_water, 1, R),
        (Act.PLACE, m_water, 2, L), (Act.PLACE, m_water, 2, R)]


def test_R08_5_a_garden_gets_dreams_by_dealing():
    g = position([(GARDEN, [], [])], deck=[incubi(-2, F), sognae(4, W)], expansions=GW)
    deal_row_nb(scripted_nb, g, C, 0)
    assert side(g, 0, L) == [sognae(4, W)] and side(g, 0, R) == [incubi(-2, F)]


def test_R08_1_an_exchange_keeps_each_side_value():
    m = meta(3, E)  # +3/-3
    g = position([(city(EW), [CC[0]], [m]), (city(EF), [sognae(1)], [incubi(-2)])],
                 script=[1], expansions=SM | CHROMATIC)
    n = exchange_options_nb(g)
    assert [o[:3] for o in options(g, n)] == [(CC[0], sognae(1), L), (m, incubi(-2), R)]
    exchange_nb(scripted_nb, g, C)
    assert side(g, 0, R) == [incubi(-2)] and side(g, 1, R) == [m]
    assert row_total_nb(g.layout, C, 0) == 4 - 2
    assert row_total_nb(g.layout, C, 1) == 1 - 3


def test_R08_1_the_more_influential_side_counts_a_meta_by_its_side():
    g = position([(city(EW), [sognae(2)], [meta(3, E)])], expansions=SM)  # +2 against -3
    n = draw_chaos_options_nb(g, C, CH[0], False)
    assert options(g, n) == [(ChaosHow.PLACE, 0, R, CH[0]), (ChaosHow.REVEAL, -1, -1, CH[0])]


def test_R05_5_zero_sum_sets_count_metas_and_chromatic_by_their_side():
    m = meta(3, E)  # on the right: -3
    g = position([(city(EW), [sognae(1), CC[0]], [m, incubi(-1)])], expansions=SM | CHROMATIC)
    n = zero_sum_options_nb(g, C, 0)
    # L0 +1 (bit 1), L1 +4 (bit 2), R0 -3 (bit 8), R1 -1 (bit 16)
    assert [o[0] for o in options(g, n)] == [0, 1 | 16, 2 | 8 | 16]


# --- R02.5: Chromatic Chaos held while dealing or drawing the opening hand ---------------


def test_R02_5_a_chromatic_dealt_to_a_row_is_held_and_replaced():
    s, i, z = sognae(2, W), incubi(-3, A), sognae(1, F)
    g = position([(city(EW), [], [])], deck=[CC[0], s, CC[1], i, z], expansions=CHROMATIC)
    deal_row_nb(scripted_nb, g, C, 0)
    assert side(g, 0, L) == [s] and side(g, 0, R) == [i]
    assert held(g) == [CC[0], CC[1]]
    assert deck_left(g) == [z] and discarded(g) == []


def test_R02_5_a_chaos_dealt_with_a_held_chromatic_joins_the_replacement():
    i, z = incubi(-2, W), sognae(1, F)
    g = position([(city(EW), [], [])], deck=[CH[0], CC[0], i, z], expansions=CHROMATIC)
    deal_row_nb(scripted_nb, g, C, 0)
    assert side(g, 0, R) == [i, CH[0]] and side(g, 0, L) == []
    assert held(g) == [CC[0]] and deck_left(g) == [z]


def test_R02_5_a_chromatic_drawn_into_the_opening_hand_is_held():
    cards = [sognae(1, W), sognae(2, W), sognae(3, W), sognae(4, W)]
    z = incubi(-1, F)
    g = position([(city(EW), [sognae(1)], [incubi(-1)])],
                 deck=[cards[0], CC[0], *cards[1:], z], expansions=CHROMATIC)
    opening_hand_nb(scripted_nb, g, C, 0)
    assert hand(g) == cards and held(g) == [CC[0]] and deck_left(g) == [z]
    assert side(g, 0, L) == [sognae(1)] and side(g, 0, R) == [incubi(-1)]


def test_R02_5_resolve_held_places_each_in_draw_order_then_reveals():
    y1, y2 = incubi(-2, W), sognae(3, E)
    g = position([(city(EW), [], []), (GARDEN, [], [])], deck=[y1, y2, sognae(1, A)],
                 script=[3, 0], expansions=CHROMATIC | GW, log_cap=64)
    g.held[0], g.held[1] = CC[0], CC[1]
    g.info[Info.HELD_N] = 2
    resolve_held_nb(scripted_nb, g, C)
    # CC0 -> Garden R, reveals y1 (water, only EW shows it) -> EW R
    # CC1 -> EW L, reveals y2 (earth) -> EW L
    assert decisions(g) == [(D.CHROMATIC, 1, R, CC[0], -1), (D.REVEALED, 0, R, y1, -1),
                            (D.CHROMATIC, 0, L, CC[1], -1), (D.REVEALED, 0, L, y2, -1)]
    assert side(g, 0, L) == [CC[1], y2] and side(g, 0, R) == [y1]
    assert side(g, 1, R) == [CC[0]] and side(g, 1, L) == []
    assert held(g) == [] and deck_left(g) == [sognae(1, A)]


def test_R02_5_setup_resolves_the_held_chromatic_after_the_opening_hand_in_draw_order():
    rows = [city(EW), city(EF), city(WA), city(FA)]  # 0, 2, 8, 10
    dealt = [sognae(1), incubi(-1), sognae(2), incubi(-2),
             sognae(3), incubi(-3), sognae(4), incubi(-1, W)]
    opening = [sognae(1, W), sognae(2, W), sognae(3, W), sognae(4, W)]
    y1, y2, z = incubi(-2, F), sognae(1, F), sognae(1, A)
    order = [CC[0], *dealt[:2], *dealt[2:], opening[0], CC[1], *opening[1:], y1, y2, z]
    g = fresh_game(script=[7, 0, 0, 1], log_cap=512)
    city_ids, dream_ids = stacked_setup(g, rows, order)
    setup_nb(scripted_nb, g, C, city_ids, dream_ids, CHROMATIC)
    assert g.info[Info.OUTCOME] == Outcome.RUNNING
    assert [int(x) for x in g.layout[:, 0]] == rows and g.info[Info.TOTAL_CITIES] == 4
    # held [CC0, CC1]; only then, after the hand: CC0 -> row 3 R (option 7 of 8), reveals
    # y1 (fire: rows 1 and 3, R) -> row 1; CC1 -> row 0 L, reveals y2 (fire, L) -> row 3
    assert decisions(g) == [(D.CHROMATIC, 3, R, CC[0], -1), (D.REVEALED, 1, R, y1, -1),
                            (D.CHROMATIC, 0, L, CC[1], -1), (D.REVEALED, 3, L, y2, -1)]
    assert hand(g) == opening
    assert [(side(g, r, L), side(g, r, R)) for r in range(4)] == [
        ([dealt[0], CC[1]], [dealt[1]]),
        ([dealt[2]], [dealt[3], y1]),
        ([dealt[4]], [dealt[5]]),
        ([dealt[6], y2], [dealt[7], CC[0]])]
    assert held(g) == [] and deck_left(g) == [z] and discarded(g) == []


def test_R05_10_a_chromatic_drawn_in_a_census_refill_is_resolved_at_the_end_of_the_census():
    a, b, c, d = sognae(1, A), incubi(-1, A), sognae(2, A), incubi(-2, A)
    y, z = sognae(4, W), sognae(1, F)
    fa1, fa2 = city(FA), city(FA, skip=[city(FA)])
    g = position([(city(EW), [sognae(2)], [incubi(-2)]),
                  (city(EF), [sognae(1)], [incubi(-1)]),
                  (city(WA), [sognae(3)], [])],
                 deck=[CC[0], a, b, c, d, y, z], city_deck=[fa1, fa2], script=[5],
                 expansions=CHROMATIC, log_cap=64)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 2
    assert discarded(g) == [sognae(2), incubi(-2), sognae(1), incubi(-1)]
    # both refills are dealt first (CC0 held, replaced by a); then CC0 -> row 2 R
    # (option 5 of 6) and reveals y (water: only row 2's city shows it)
    assert decisions(g) == [(D.ZERO_SUM, 0, 2, -1, -1), (D.CHROMATIC, 2, R, CC[0], -1),
                            (D.REVEALED, 2, L, y, -1)]
    assert [(int(g.layout[r, 0]), side(g, r, L), side(g, r, R)) for r in range(3)] == [
        (fa1, [a], [b]), (fa2, [c], [d]), (city(WA), [sognae(3), y], [CC[0]])]
    assert held(g) == [] and deck_left(g) == [z]


def test_R02_5_the_replacement_of_a_held_chromatic_is_a_draw_and_an_empty_deck_loses():
    g = position([(city(EW), [], [])], deck=[CC[0]], expansions=CHROMATIC)
    deal_row_nb(scripted_nb, g, C, 0)
    assert g.info[Info.OUTCOME] == Outcome.LOSS and g.info[Info.REASON] == Reason.DECK_EMPTY
    assert held(g) == [CC[0]] and side(g, 0, L) == [] and side(g, 0, R) == []


def test_R02_5_setup_resolves_the_held_chromatic_after_the_R03_2_shuffle():
    rows = [city(EW), city(EF), city(WA), city(FA)]
    dealt = [sognae(1), incubi(-1), sognae(2), incubi(-2),
             sognae(3), incubi(-3), sognae(1, W), incubi(-1, W)]  # every city balanced
    opening = [sognae(1, A), sognae(2, A), sognae(3, A), sognae(4, A)]
    order = [*dealt, CC[0], CH[0], *opening]
    g = fresh_game(script=[0, 0], log_cap=512)
    city_ids, dream_ids = stacked_setup(g, rows, order)
    setup_nb(scripted_nb, g, C, city_ids, dream_ids, CHROMATIC)
    # CC0 held; CH0 has no more influential side: set aside, then shuffled into the empty
    # deck; only then CC0 -> row 0 L, and it reveals CH0, resolved as in Phase II: placed
    # on row 0's more influential side (L: +1 +4 against -1)
    assert decisions(g) == [(D.HAND_CHAOS, ChaosHow.ASIDE, -1, -1, CH[0]),
                            (D.CHROMATIC, 0, L, CC[0], -1),
                            (D.DRAW_CHAOS, ChaosHow.PLACE, 0, L, CH[0])]
    assert side(g, 0, L) == [dealt[0], CC[0], CH[0]] and side(g, 0, R) == [dealt[1]]
    assert hand(g) == opening and deck_left(g) == [] and held(g) == []
    assert g.info[Info.OUTCOME] == Outcome.RUNNING


def test_R05_10_a_wizards_census_resolves_its_held_chromatic_before_the_second_act():
    w, a, b, y, z = wizard(2, E), sognae(1, A), incubi(-1, A), incubi(-2, A), sognae(1, F)
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(3)], [incubi(-1)])],
                 hand=[w], deck=[CC[0], a, b, y, z], city_deck=[city(FA)], script=[3, 3, 0],
                 expansions=CHROMATIC | GW, log_cap=64)
    phase1_nb(scripted_nb, g, C, 0)
    assert decisions(g) == [(D.PHASE1, Act.CENSUS, w, -1, -1), (D.ZERO_SUM, 0, 1, -1, -1),
                            (D.CHROMATIC, 1, R, CC[0], -1), (D.REVEALED, 0, R, y, -1),
                            (D.SECOND_ACT, Act.PASS, -1, -1, -1)]
    assert (side(g, 0, L), side(g, 0, R)) == ([a], [b, y])
    assert (side(g, 1, L), side(g, 1, R)) == ([sognae(3)], [incubi(-1), CC[0]])
    assert deck_left(g) == [z]


# --- R07.1: where a Chromatic Chaos goes ----------------------------------------------------


def test_R07_1_chromatic_options_are_every_side_with_room_of_any_city():
    full = [sognae(1), sognae(2), sognae(3)]
    g = position([(city(EW), full, [incubi(-1)]),
                  (GARDEN, [], []),
                  (TEMPLE[W], [sognae(4)], [incubi(-1, W), incubi(-2, W), incubi(-3, W)]),
                  (SQUARE, [], [])], expansions=ALL4)
    n = chromatic_options_nb(g, CC[0], False)
    assert options(g, n) == [(0, R, CC[0], -1), (1, L, CC[0], -1), (1, R, CC[0], -1),
                             (2, L, CC[0], -1), (3, L, CC[0], -1), (3, R, CC[0], -1)]


def test_R07_1_a_chromatic_with_no_side_with_room_is_discarded():
    full_l = [sognae(1), sognae(2), sognae(3)]
    full_r = [incubi(-1), incubi(-2), incubi(-3)]
    g = position([(city(EW), full_l, full_r)], expansions=CHROMATIC)
    n = chromatic_options_nb(g, CC[0], False)
    assert options(g, n) == [(-1, -1, CC[0], -1)]
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)
    assert discarded(g) == [CC[0]]
    assert side(g, 0, L) == full_l and side(g, 0, R) == full_r
    assert g.info[Info.OUTCOME] == Outcome.RUNNING


@pytest.mark.parametrize("choice, total", [(0, 2 - 1 + 4), (1, 2 - 1 - 4)], ids=["L", "R"])
def test_R07_1_a_chromatic_counts_plus_4_left_and_minus_4_right(choice, total):
    g = position([(city(EW), [sognae(2)], [incubi(-1)])], script=[choice],
                 expansions=CHROMATIC)
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)
    chosen = (L, R)[choice]
    assert side(g, 0, chosen)[-1] == CC[0]
    assert row_total_nb(g.layout, C, 0) == total


# --- R07.2: the revealed card ---------------------------------------------------------------


def test_R07_2_the_revealed_card_is_placed_by_the_placement_rules():
    y, z = incubi(-2, F), sognae(1, A)
    g = position([(city(EW), [], []), (city(FA), [], []), (SQUARE, [], []), (GARDEN, [], [])],
                 deck=[y, z], script=[6, 1], expansions=CHROMATIC | SM | GW, log_cap=64)
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)
    assert options(g, 2) == [(1, R, y, -1), (2, R, y, -1)]  # fire cities, Incubi side
    assert decisions(g) == [(D.CHROMATIC, 3, L, CC[0], -1), (D.REVEALED, 2, R, y, -1)]
    assert side(g, 3, L) == [CC[0]] and side(g, 2, R) == [y]
    assert deck_left(g) == [z] and discarded(g) == []


def test_R07_2_a_revealed_meta_or_harmony_takes_the_side_of_choice():
    m, h = meta(2, W), harmony(2)
    rows = [(city(EW), [], []), (city(FA), [], []), (TEMPLE[W], [], []), (GARDEN, [], [])]
    g = position(rows, expansions=ALL4)
    n = revealed_options_nb(g, C, m)
    assert options(g, n) == [(0, L, m, -1), (0, R, m, -1), (2, L, m, -1), (2, R, m, -1)]
    n = revealed_options_nb(g, C, h)
    assert options(g, n) == [(r, s, h, -1) for r in (0, 1, 2) for s in (L, R)]
    g = position(rows, deck=[m], script=[6, 3], expansions=ALL4)  # CC0 -> Garden L
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)
    assert side(g, 2, R) == [m] and row_total_nb(g.layout, C, 2) == -2


def test_R07_2_a_revealed_card_with_no_legal_city_is_placed_ignoring_its_element():
    y = sognae(3, F)
    full = [sognae(1, A), sognae(2, A), sognae(4, A)]
    g = position([(city(EW), [], []), (GARDEN, [], []), (city(FA), full, [])],
                 deck=[y], script=[1, 1], expansions=CHROMATIC | GW)
    n = revealed_options_nb(g, C, y)
    assert options(g, n) == [(0, L, y, -1), (1, L, y, -1)]  # the fire city's left is full
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)  # CC0 -> row 0 R, y -> Garden L
    assert side(g, 0, R) == [CC[0]] and side(g, 1, L) == [y]
    assert g.info[Info.DECK_N] == 0 and g.info[Info.OUTCOME] == Outcome.RUNNING


def test_R07_2_a_revealed_card_is_discarded_when_every_side_it_could_take_is_full():
    y, z = sognae(1, E), incubi(-1, A)
    full1 = [sognae(2), sognae(3), sognae(4)]
    full2 = [sognae(1, W), sognae(2, W), sognae(3, W)]
    g = position([(city(EW), full1, []), (GARDEN, full2, [])], deck=[y, z], script=[1],
                 expansions=CHROMATIC | GW)
    n = revealed_options_nb(g, C, y)
    assert options(g, n) == [(-1, -1, y, -1)]
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)  # CC0 -> Garden R (option 1 of 2)
    assert side(g, 1, R) == [CC[0]] and side(g, 0, R) == []
    assert discarded(g) == [y] and deck_left(g) == [z]


def test_R07_2_a_chromatic_revealing_a_chaos_resolves_it_as_drawn_in_phase_2():
    z = sognae(1, F)
    g = position([(city(EW), [sognae(3)], [incubi(-1)]),
                  (city(EF), [sognae(2)], [incubi(-2)])],
                 deck=[CH[0], z], script=[1, 1], expansions=CHROMATIC, log_cap=64)
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)
    # CC0 -> row 0 R (3 against -5: R more influential); CH0's options as in Phase II
    assert options(g, 3) == [(ChaosHow.PLACE, 0, R, CH[0]), (ChaosHow.CLEAR, 1, -1, CH[0]),
                             (ChaosHow.REVEAL, -1, -1, CH[0])]
    assert decisions(g) == [(D.CHROMATIC, 0, R, CC[0], -1),
                            (D.DRAW_CHAOS, ChaosHow.CLEAR, 1, -1, CH[0])]
    assert side(g, 0, L) == [sognae(3)] and side(g, 0, R) == [incubi(-1), CC[0]]
    assert side(g, 1, L) == [] and side(g, 1, R) == []
    assert discarded(g) == [sognae(2), incubi(-2), CH[0]] and deck_left(g) == [z]


def test_R07_2_a_chromatic_revealing_a_chromatic_resolves_it_then_its_reveal():
    y, z = incubi(-1), sognae(1, F)
    g = position([(city(EW), [], []), (GARDEN, [], [])], deck=[CC[1], y, z], script=[0, 3],
                 expansions=CHROMATIC | GW, log_cap=64)
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)
    assert decisions(g) == [(D.CHROMATIC, 0, L, CC[0], -1), (D.CHROMATIC, 1, R, CC[1], -1),
                            (D.REVEALED, 0, R, y, -1)]
    assert side(g, 0, L) == [CC[0]] and side(g, 0, R) == [y]
    assert side(g, 1, L) == [] and side(g, 1, R) == [CC[1]]
    assert discarded(g) == [] and deck_left(g) == [z]


def test_R07_2_R06_3_an_empty_deck_reveals_nothing_and_does_not_lose():
    g = position([(city(EW), [], [])], script=[1], expansions=CHROMATIC, log_cap=64)
    resolve_draw_chaos_nb(scripted_nb, g, C, CC[0], True)
    assert side(g, 0, R) == [CC[0]] and row_total_nb(g.layout, C, 0) == -4
    assert decisions(g) == [(D.CHROMATIC, 0, R, CC[0], -1)]
    assert g.info[Info.OUTCOME] == Outcome.RUNNING and g.info[Info.DECK_N] == 0


def test_R07_a_chromatic_drawn_in_phase_2_is_resolved_then_drawing_goes_on():
    kept = [sognae(1, W), sognae(2, W), sognae(3, W)]
    y, s, z = incubi(-1), sognae(1, A), incubi(-2, A)
    g = position([(city(EW), [], [])], hand=kept, deck=[CC[0], y, s, z], script=[1],
                 expansions=CHROMATIC)
    phase2_nb(scripted_nb, g, C, 0)
    assert side(g, 0, R) == [CC[0], y] and side(g, 0, L) == []
    assert hand(g) == [*kept, s] and deck_left(g) == [z]


# --- R06.2 c with Chromatic Chaos ---------------------------------------------------------


def test_R06_2c_a_reveal_keeps_a_chromatic_and_resolves_it_in_order():
    s1, i1, y, z = sognae(1, A), incubi(-1, A), incubi(-2), sognae(1, F)
    # an empty city: CH0 can only reveal; it reveals s1 CC0 i1 CH1
    g = position([(city(EW), [], [])], deck=[s1, CC[0], i1, CH[1], y, z], script=[0, 0],
                 expansions=CHROMATIC, log_cap=64)
    resolve_draw_chaos_nb(scripted_nb, g, C, CH[0], True)
    # CC0 first (-> L, reveals y -> R), then CH1 (L is now more influential: placed there)
    assert decisions(g) == [(D.DRAW_CHAOS, ChaosHow.REVEAL, -1, -1, CH[0]),
                            (D.CHROMATIC, 0, L, CC[0], -1), (D.REVEALED, 0, R, y, -1),
                            (D.DRAW_CHAOS, ChaosHow.PLACE, 0, L, CH[1])]
    assert side(g, 0, L) == [CC[0], CH[1]] and side(g, 0, R) == [y]
    assert discarded(g) == [s1, i1, CH[0]]  # neither Chaos nor Chromatic, then CH0
    assert deck_left(g) == [z]


# --- R08.3: Wizards' two base actions -------------------------------------------------------


def test_R08_3_a_wizard_census_asks_second_act_pass_census_exchange():
    w = wizard(2, E)  # 122
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(3)], [incubi(-1)])],
                 hand=[w], deck=[sognae(1, A), incubi(-1, A)], city_deck=[city(FA)],
                 script=[3, 0], expansions=GW, record=True, log_cap=64)
    n = phase1_options_nb(g, C, 0)
    assert options(g, n) == [(Act.PLACE, w, 0, L), (Act.PLACE, w, 1, L), (Act.PASS, w, -1, -1),
                             (Act.CENSUS, w, -1, -1), (Act.EXCHANGE, w, -1, -1),
                             (Act.REBUILD, w, -1, -1)]
    phase1_nb(recording_nb, g, C, 0)
    assert options(g, 3) == [(Act.PASS, -1, -1, -1), (Act.CENSUS, -1, -1, -1),
                             (Act.EXCHANGE, -1, -1, -1)]
    assert asked_counts(g) == [6, 3]
    assert decisions(g) == [(D.PHASE1, Act.CENSUS, w, -1, -1), (D.ZERO_SUM, 0, 1, -1, -1),
                            (D.SECOND_ACT, Act.PASS, -1, -1, -1)]
    assert discarded(g) == [w, sognae(2), incubi(-2)] and g.info[Info.SUCCESS_N] == 1


def test_R08_3_a_wizard_census_then_exchange():
    w, a, b, z = wizard(2, E), sognae(1, A), incubi(-1, A), sognae(1, F)
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(3)], [incubi(-1)])],
                 hand=[w], deck=[a, b, z], city_deck=[city(FA)], script=[3, 2, 1],
                 expansions=GW, log_cap=64)
    phase1_nb(scripted_nb, g, C, 0)
    # census: row 0 pacified, refilled with a | b; second act: exchange b with row 1's -1
    assert options(g, 2) == [(a, sognae(3), L, -1), (b, incubi(-1), R, -1)]
    assert decisions(g) == [(D.PHASE1, Act.CENSUS, w, -1, -1), (D.ZERO_SUM, 0, 1, -1, -1),
                            (D.SECOND_ACT, Act.EXCHANGE, -1, -1, -1),
                            (D.EXCHANGE_PAIR, b, incubi(-1), R, -1)]
    assert g.layout[0, 0] == city(FA)
    assert (side(g, 0, L), side(g, 0, R)) == ([a], [incubi(-1)])
    assert (side(g, 1, L), side(g, 1, R)) == ([sognae(3)], [b])
    assert discarded(g) == [w, sognae(2), incubi(-2)] and deck_left(g) == [z]
    assert g.info[Info.SUCCESS_N] == 1


def test_R08_3_a_wizard_exchange_then_census():
    w = wizard(-1, E)  # 124
    refill = [sognae(1, A), incubi(-1, A), sognae(2, A), incubi(-2, A)]
    fa1, fa2 = city(FA), city(FA, skip=[city(FA)])
    g = position([(city(EW), [sognae(3)], [incubi(-2)]), (city(EF), [sognae(2)], [incubi(-3)])],
                 hand=[w], deck=[*refill, sognae(1, F)], city_deck=[fa1, fa2],
                 script=[4, 0, 1], expansions=GW, log_cap=64)
    n = phase1_options_nb(g, C, 0)
    assert options(g, n)[4] == (Act.EXCHANGE, w, -1, -1)
    phase1_nb(scripted_nb, g, C, 0)
    # swapping +3 and +2 balances both cities; the second act's census pacifies both
    assert decisions(g) == [(D.PHASE1, Act.EXCHANGE, w, -1, -1),
                            (D.EXCHANGE_PAIR, sognae(3), sognae(2), L, -1),
                            (D.SECOND_ACT, Act.CENSUS, -1, -1, -1)]
    assert g.info[Info.SUCCESS_N] == 2
    assert discarded(g) == [w, sognae(2), incubi(-2), sognae(3), incubi(-3)]
    assert [(int(g.layout[r, 0]), side(g, r, L), side(g, r, R)) for r in range(2)] == [
        (fa1, [refill[0]], [refill[1]]), (fa2, [refill[2]], [refill[3]])]
    assert deck_left(g) == [sognae(1, F)]


def test_R08_3_the_second_act_may_be_a_second_census_and_has_no_exchange_without_a_pair():
    w = wizard(2, E)
    g = position([(city(EW), [sognae(2)], [incubi(-2)])], hand=[w],
                 deck=[sognae(1, A), incubi(-1, A)], city_deck=[city(FA)], script=[2, 1],
                 expansions=GW, record=True, log_cap=64)
    n = phase1_options_nb(g, C, 0)
    assert options(g, n) == [(Act.PLACE, w, 0, L), (Act.PASS, w, -1, -1),
                             (Act.CENSUS, w, -1, -1)]  # one row: no Rebuild, no Exchange
    phase1_nb(recording_nb, g, C, 0)
    # first census: EW pacified, FA dealt +1 | -1 (one dream a side: no Exchange)
    assert asked_counts(g) == [3, 2]
    assert options(g, 2) == [(Act.PASS, -1, -1, -1), (Act.CENSUS, -1, -1, -1)]
    # second census: FA pacified, the City deck is empty: the row goes
    assert g.info[Info.SUCCESS_N] == 2 and g.info[Info.N_ROWS] == 0
    assert discarded(g) == [w, sognae(2), incubi(-2), sognae(1, A), incubi(-1, A)]


def test_R08_3_second_act_options_directly():
    g = position([(city(EW), [sognae(2)], [incubi(-1)])], expansions=GW, record=True,
                 script=[0])
    second_act_nb(recording_nb, g, C)
    assert asked_counts(g) == [2]
    g = position([(city(EW), [sognae(2), sognae(3)], [incubi(-1)])], expansions=GW,
                 record=True, script=[0])
    second_act_nb(recording_nb, g, C)
    assert asked_counts(g) == [3]
    assert options(g, 3) == [(Act.PASS, -1, -1, -1), (Act.CENSUS, -1, -1, -1),
                             (Act.EXCHANGE, -1, -1, -1)]


@pytest.mark.parametrize("card, act", [
    (sognae(1), Act.CENSUS),  # not a Wizard
    (wizard(2, E), Act.PASS),  # a Wizard discarded for no action
], ids=["sognae_census", "wizard_pass"])
def test_R08_3_no_second_act_without_a_wizards_base_action(card, act):
    def game(script=()):
        return position([(city(EW), [sognae(2)], [incubi(-2)]),
                         (city(EF), [sognae(3)], [incubi(-1)])],
                        hand=[card], deck=[sognae(1, A), incubi(-1, A)], city_deck=[city(FA)],
                        expansions=GW, log_cap=64, script=script)

    g = game()
    n = phase1_options_nb(g, C, 0)
    g = game(script=[options(g, n).index((act, card, -1, -1))])
    phase1_nb(scripted_nb, g, C, 0)
    kinds = [d[0] for d in decisions(g)]
    assert kinds == ([D.PHASE1, D.ZERO_SUM] if act == Act.CENSUS else [D.PHASE1])
    assert discarded(g)[0] == card and hand(g) == []


def test_R08_3_no_second_act_once_the_wizards_census_has_won():
    w = wizard(2, E)
    g = position([(city(EW), [sognae(2)], [incubi(-2)])], hand=[w], success=11,
                 script=[2], expansions=GW, log_cap=64)
    phase1_nb(scripted_nb, g, C, 0)
    assert g.info[Info.OUTCOME] == Outcome.WIN
    assert decisions(g) == [(D.PHASE1, Act.CENSUS, w, -1, -1)]


# --- R08.4: special actions -------------------------------------------------------------------


def _special_position(expansions, script=(), log_cap=0):
    w, s_earth, i_fire = wizard(2, E), sognae(1), incubi(-1, F)  # 122, 12, 60
    return position([(city(EW), [sognae(3), CH[0]], [incubi(-1)]), (city(EF), [], [])],
                    hand=[w, s_earth, i_fire], expansions=expansions, script=script,
                    log_cap=log_cap), (w, s_earth, i_fire)


def test_R08_4_special_actions_only_with_gardens_and_wizards():
    base = []
    g, (w, s, i) = _special_position(NO_GW)
    for card, places in ((w, [(0, L), (1, L)]), (s, [(0, L), (1, L)]), (i, [(1, R)])):
        base.append([(Act.PLACE, card, r, sd) for r, sd in places]
                    + [(Act.PASS, card, -1, -1), (Act.CENSUS, card, -1, -1),
                       (Act.EXCHANGE, card, -1, -1)])
    n = phase1_options_nb(g, C, 0)
    assert options(g, n) == base[0] + base[1] + base[2]
    g, _ = _special_position(GW)
    n = phase1_options_nb(g, C, 0)
    assert options(g, n) == (
        base[0] + [(Act.REBUILD, w, -1, -1), (Act.CHANGE_SIDES, w, -1, -1)]  # the Wizard
        + base[1] + base[2]
        + [(Act.REBUILD, w, s, -1), (Act.CHANGE_SIDES, w, s, -1)])  # w and s share earth


def test_R08_4_rebuild_swaps_two_rows_city_cards_and_the_dreams_stay():
    w, x = wizard(2, E), sognae(1, W)
    rows = [(city(EW), [sognae(3)], [incubi(-1)]), (city(EF), [sognae(2)], []),
            (GARDEN, [], [incubi(-2)])]
    g = position(rows, hand=[w, x], expansions=GW, log_cap=64)
    n = phase1_options_nb(g, C, 0)
    k = options(g, n).index((Act.REBUILD, w, -1, -1))
    g = position(rows, hand=[w, x], expansions=GW, log_cap=64, script=[k, 2])
    phase1_nb(scripted_nb, g, C, 0)
    assert options(g, 3) == [(0, 1, -1, -1), (0, 2, -1, -1), (1, 2, -1, -1)]
    assert decisions(g) == [(D.PHASE1, Act.REBUILD, w, -1, -1), (D.REBUILD_ROWS, 1, 2, -1, -1)]
    assert [int(c) for c in g.layout[:3, 0]] == [city(EW), GARDEN, city(EF)]
    assert [(side(g, r, L), side(g, r, R)) for r in range(3)] == [
        ([sognae(3)], [incubi(-1)]), ([sognae(2)], []), ([], [incubi(-2)])]
    assert discarded(g) == [w] and hand(g) == [x]


def test_R08_4_two_cards_sharing_an_element_pay_for_a_special_and_phase_2_draws_two():
    b, i_fire, a, c = incubi(-2), incubi(-1, F), sognae(1), sognae(2, A)  # b, a: earth
    d1, d2, d3 = sognae(1, W), incubi(-1, W), sognae(2, W)
    rows = [(city(EW), [], []), (city(WA), [], [])]
    g = position(rows, hand=[b, i_fire, a, c], deck=[d1, d2, d3], expansions=GW)
    n = phase1_options_nb(g, C, 0)
    specials = [o for o in options(g, n) if o[0] in (Act.REBUILD, Act.CHANGE_SIDES)]
    assert specials == [(Act.REBUILD, b, a, -1)]  # no Chaos: no Change Sides
    k = options(g, n).index((Act.REBUILD, b, a, -1))
    g = position(rows, hand=[b, i_fire, a, c], deck=[d1, d2, d3], expansions=GW,
                 script=[k], log_cap=256)
    play_turn_nb(scripted_nb, g, C)
    assert [int(x) for x in g.layout[:2, 0]] == [city(WA), city(EW)]  # one option: 0 and 1
    assert discarded(g) == [b, a]  # in option order (hand order), not id order
    assert hand(g) == [i_fire, c, d1, d2] and deck_left(g) == [d3]
    assert g.info[Info.TURN] == 2 and g.info[Info.OUTCOME] == Outcome.RUNNING


def test_R08_4_two_cards_sharing_no_element_pay_for_nothing():
    g = position([(city(EW), [CH[0]], []), (city(EF), [], [])],
                 hand=[sognae(1), incubi(-1, F), sognae(2, W)], expansions=GW)
    n = phase1_options_nb(g, C, 0)
    assert [o for o in options(g, n) if o[0] in (Act.REBUILD, Act.CHANGE_SIDES)] == []


def test_R08_4_pairs_in_hand_order_a_harmony_shares_an_element_with_every_card():
    s_earth, i_fire, h, s_water = sognae(1), incubi(-1, F), harmony(1), sognae(1, W)
    g = position([(city(EW), [CH[0]], []), (city(EF), [], [])],
                 hand=[s_earth, i_fire, h, s_water], expansions=ALL4)
    n = phase1_options_nb(g, C, 0)
    assert [o for o in options(g, n) if o[0] in (Act.REBUILD, Act.CHANGE_SIDES)] == [
        (Act.REBUILD, s_earth, h, -1), (Act.CHANGE_SIDES, s_earth, h, -1),
        (Act.REBUILD, i_fire, h, -1), (Act.CHANGE_SIDES, i_fire, h, -1),
        (Act.REBUILD, h, s_water, -1), (Act.CHANGE_SIDES, h, s_water, -1)]


@pytest.mark.parametrize("choice", [0, 1])
def test_R08_4_change_sides_moves_a_chaos_or_chromatic_and_flips_its_sign(choice):
    w = wizard(2, E)
    full = [sognae(1, F), sognae(2, F), sognae(4, F)]
    rows = [(city(EW), [CH[0], sognae(3), sognae(4)], [incubi(-1)]),
            (city(EF), [], [CC[0]]),
            (city(FA), full, [CH[1]])]  # CH1's other side is full: not offered
    g = position(rows, hand=[w], expansions=GW | CHROMATIC)
    n = phase1_options_nb(g, C, 0)
    k = options(g, n).index((Act.CHANGE_SIDES, w, -1, -1))
    g = position(rows, hand=[w], expansions=GW | CHROMATIC, script=[k, choice], log_cap=64,
                 record=True)
    phase1_nb(recording_nb, g, C, 0)
    assert asked_counts(g) == [n, 2]
    assert options(g, 2) == [(CH[0], 0, L, -1), (CC[0], 1, R, -1)]
    assert decisions(g)[-1] == (D.CHANGE_SIDES_CARD, *options(g, 2)[choice])
    if choice == 0:
        assert side(g, 0, L) == [sognae(3), sognae(4)] and side(g, 0, R) == [incubi(-1), CH[0]]
        assert row_total_nb(g.layout, C, 0) == 3 + 4 - 1 - 5
        assert side(g, 1, R) == [CC[0]]
    else:
        assert side(g, 1, L) == [CC[0]] and side(g, 1, R) == []
        assert row_total_nb(g.layout, C, 1) == 4
        assert side(g, 0, L) == [CH[0], sognae(3), sognae(4)]
    assert side(g, 2, R) == [CH[1]] and discarded(g) == [w] and hand(g) == []
    kinds = [d[0] for d in decisions(g)]
    assert D.SECOND_ACT not in kinds  # a special action is the Wizard's one action


def test_R08_4_change_sides_is_not_offered_onto_a_full_side():
    w = wizard(2, E)
    g = position([(city(FA), [sognae(1, F), sognae(2, F), sognae(4, F)], [CH[1]]),
                  (city(EW), [CC[0]], [incubi(-1), incubi(-2), incubi(-3)])],
                 hand=[w], expansions=GW | CHROMATIC)
    n = phase1_options_nb(g, C, 0)
    specials = [o for o in options(g, n) if o[0] in (Act.REBUILD, Act.CHANGE_SIDES)]
    assert specials == [(Act.REBUILD, w, -1, -1)]


# --- R08.6 / R13.1: every City card in play --------------------------------------------------


@pytest.mark.parametrize("expansions, total", [
    (0, 12), (CHROMATIC, 12), (SM, 16), (TH, 16), (GW, 16), (SM | TH, 20), (ALL4, 24)])
def test_R08_6_setup_counts_every_city_card_in_play(expansions, total):
    in_play = CARDS.with_expansions(expansions)
    g = fresh_game()
    setup_nb(scripted_nb, g, C, in_play.city_ids, in_play.dream_ids, expansions)
    assert g.info[Info.TOTAL_CITIES] == total
    assert g.info[Info.EXPANSIONS] == expansions
    assert g.info[Info.N_ROWS] == 4 and g.info[Info.CITY_DECK_N] == total - 4
    top = g.info[Info.CITY_TOP]
    cities = [int(c) for c in g.layout[:4, 0]]
    cities += [int(c) for c in g.city_deck[top: top + g.info[Info.CITY_DECK_N]]]
    assert sorted(cities) == sorted(int(c) for c in in_play.city_ids)


def test_R08_6_R13_1_twelve_pacified_cities_are_no_win_with_the_expansion_cities():
    rows = [(SQUARE, [sognae(2)], [incubi(-2)])]
    g = position(rows, city_deck=[GARDEN], success=11, total_cities=24, expansions=ALL4,
                 deck=[sognae(1), incubi(-1)])
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 12 and g.info[Info.OUTCOME] == Outcome.RUNNING
    assert g.layout[0, 0] == GARDEN
    g = position([(GARDEN, [CC[0]], [meta(2, W), incubi(-2)])], success=23, total_cities=24,
                 expansions=ALL4)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.OUTCOME] == Outcome.WIN and g.info[Info.REASON] == Reason.ALL_PACIFIED
    assert g.info[Info.SUCCESS_N] == 24
