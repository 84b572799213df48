"""One test (or more) per ruling on hand-built positions, run on the fast engine's kernels."""

from __future__ import annotations

from analyzer.core.codes import Act, ChaosHow, Info, Outcome, Reason, Side
from analyzer.rules.census_nb import census_nb, zero_sum_options_nb
from analyzer.rules.chaos_nb import chaos_place_options_nb, resolve_draw_chaos_nb
from analyzer.rules.game_nb import phase2_nb
from analyzer.rules.phase1_nb import exchange_options_nb, phase1_options_nb
from analyzer.rules.setup_nb import deal_row_nb, opening_hand_nb
from analyzer.rules.state_nb import influential_side_nb, is_balanced_nb, row_total_nb
from tests.positions import (
    CARDS,
    chaos_ids,
    city,
    incubi,
    options,
    position,
    scripted_nb,
    side,
    sognae,
)

EW, EF, WA, FA = 1 | 2, 1 | 4, 2 | 8, 4 | 8
CH = chaos_ids()
C = CARDS.cards


def test_R01_2_total_counts_chaos_by_side():
    g = position([(city(EW), [sognae(3), CH[0]], [incubi(-2), CH[1]])])
    assert row_total_nb(g.layout, C, 0) == 3 + 5 - 2 - 5


def test_R01_3_a_city_without_dreams_is_not_balanced():
    g = position([(city(EW), [], []), (city(EF), [sognae(2)], [incubi(-2)])])
    assert not is_balanced_nb(g.layout, C, 0)
    assert is_balanced_nb(g.layout, C, 1)


def test_R01_4_more_influential_side_and_none_when_equal():
    g = position([(city(EW), [sognae(3)], [incubi(-2)]),
                  (city(EF), [sognae(1)], [incubi(-3)]),
                  (city(WA), [sognae(2)], [incubi(-2)]),
                  (city(FA), [], [])])
    assert [influential_side_nb(g.layout, C, r) for r in range(4)] == [Side.L, Side.R, -1, -1]


def test_R02_1_dealing_ignores_elements_and_sorts_by_type():
    s, i = sognae(4, 4), incubi(-1, 8)  # fire and air on an earth/water city
    g = position([(city(EW), [], [])], deck=[i, s])
    deal_row_nb(scripted_nb, g, C, 0)
    assert side(g, 0, Side.L) == [s] and side(g, 0, Side.R) == [i]


def test_R02_2_chaos_joins_the_normal_cards_side():
    i = incubi(-2)
    g = position([(city(EW), [], [])], deck=[CH[0], i])
    deal_row_nb(scripted_nb, g, C, 0)
    assert side(g, 0, Side.R) == [i, CH[0]] and side(g, 0, Side.L) == []
    assert row_total_nb(g.layout, C, 0) == -7


def test_R02_3_two_chaos_dealt_together_go_to_the_chosen_side():
    for choice, chosen in ((0, Side.L), (1, Side.R)):
        g = position([(city(EW), [], [])], deck=[CH[0], CH[1]], script=[choice])
        deal_row_nb(scripted_nb, g, C, 0)
        assert side(g, 0, chosen) == [CH[0], CH[1]]
        assert side(g, 0, 1 - chosen) == []


def test_R03_1_opening_chaos_goes_to_a_more_influential_side_of_choice():
    hand = [sognae(1), sognae(2), sognae(3), sognae(4)]
    g = position([(city(EW), [sognae(4, 2)], [incubi(-1, 2)]),
                  (city(EF), [sognae(1, 2)], [incubi(-3, 2)])],
                 deck=[CH[0], *hand], script=[1])
    opening_hand_nb(scripted_nb, g, C, 0)
    assert side(g, 1, Side.R)[-1] == CH[0]
    assert list(g.hands[0]) == hand


def test_R03_2_opening_chaos_no_city_can_take_is_set_aside_and_shuffled_back():
    hand = [sognae(1), sognae(2), sognae(3), sognae(4)]
    rest = [incubi(-1), incubi(-2)]
    g = position([(city(EW), [sognae(2, 2)], [incubi(-2, 2)]), (city(EF), [], [])],
                 deck=[CH[0], *hand, *rest])
    n = chaos_place_options_nb(g, C, CH[0], 0)
    assert n == 0
    opening_hand_nb(scripted_nb, g, C, 0)
    assert list(g.hands[0]) == hand
    deck = list(g.deck[g.info[Info.DECK_TOP]: g.info[Info.DECK_TOP] + g.info[Info.DECK_N]])
    assert sorted(deck) == sorted([*rest, CH[0]])


def test_R04_1_placement_needs_element_side_and_room():
    s_fire = sognae(3, 4)
    g = position([(city(EW), [], []),  # no fire
                  (city(EF), [sognae(1), sognae(2), sognae(4)], []),  # left side full
                  (city(FA), [], [])],
                 hand=[s_fire])
    n = phase1_options_nb(g, C, 0)
    places = [o for o in options(g, n) if o[0] == Act.PLACE]
    assert places == [(Act.PLACE, s_fire, 2, Side.L)]


def test_R01_1_R04_1_a_side_of_two_dreams_still_takes_a_third():
    s_fire = sognae(3, 4)
    g = position([(city(EF), [sognae(1), sognae(2)], [])], hand=[s_fire])
    n = phase1_options_nb(g, C, 0)
    assert [o for o in options(g, n) if o[0] == Act.PLACE] == [(Act.PLACE, s_fire, 0, Side.L)]


def test_R01_1_R06_2a_a_chaos_goes_on_an_influential_side_of_two_dreams():
    from analyzer.rules.chaos_nb import draw_chaos_options_nb

    g = position([(city(EW), [sognae(1), sognae(2)], [incubi(-1)])])
    n = draw_chaos_options_nb(g, C, CH[0], False)
    assert (ChaosHow.PLACE, 0, Side.L) in [o[:3] for o in options(g, n)]


def test_R04_2_every_hand_card_may_pass_census_or_exchange():
    hand = [sognae(1), incubi(-1)]
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(3)], [])],
                 hand=hand)
    n = phase1_options_nb(g, C, 0)
    acts = [(o[0], o[1]) for o in options(g, n) if o[0] != Act.PLACE]
    assert acts == [(a, c) for c in hand for a in (Act.PASS, Act.CENSUS, Act.EXCHANGE)]


def test_R04_4_exchange_pairs_lie_on_the_same_side_type():
    a, b, c, d = sognae(2), sognae(3), incubi(-1), CH[0]
    g = position([(city(EW), [a], [c]), (city(EF), [b], [d])])
    n = exchange_options_nb(g)
    assert [(o[0], o[1], o[2]) for o in options(g, n)] == [(a, b, Side.L), (c, d, Side.R)]


def test_R05_3_census_pacifies_every_balanced_city_and_refills():
    new_city = city(FA)
    deck = [sognae(1, 8), incubi(-1, 8)]
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(3)], [])],
                 deck=deck, city_deck=[new_city])
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 1
    assert g.layout[0, 0] == new_city
    assert side(g, 0, Side.L) == [deck[0]] and side(g, 0, Side.R) == [deck[1]]
    assert g.info[Info.DISCARD_N] == 2


def test_R05_4_perfect_balance_takes_the_top_city_card_as_a_bonus():
    rows = [(city(EW), [sognae(2)], [incubi(-2)]),
            (city(EF), [sognae(1)], [incubi(-1)]),
            (city(WA), [sognae(3, 2)], [incubi(-3, 2)]),
            (city(FA), [sognae(1, 4)], [incubi(-1, 4)])]
    bonus, refill = city(EW, skip=[rows[0][0]]), city(EF, skip=[rows[1][0]])
    deck = [sognae(2, 8), incubi(-2, 8)]
    g = position(rows, deck=deck, city_deck=[bonus, refill])
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 5
    assert g.info[Info.N_ROWS] == 1 and g.layout[0, 0] == refill


def test_R05_4_no_perfect_balance_with_fewer_than_4_rows():
    g = position([(city(EW), [sognae(2)], [incubi(-2)])], city_deck=[city(FA)])
    g.info[Info.SUCCESS_N] = 3
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 4  # no bonus card


def test_R05_5_zero_sum_discard_options_and_choice():
    s2, s3 = sognae(2), sognae(3)
    i2, i1 = incubi(-2), incubi(-1)
    g = position([(city(EW), [s2, s3], [i2, i1])])  # total +2: unbalanced
    n = zero_sum_options_nb(g, C, 0)
    masks = [o[0] for o in options(g, n)]
    # bits: L0 (+2) 1, L1 (+3) 2, R0 (-2) 8, R1 (-1) 16
    assert masks == [0, 1 | 8, 2 | 8 | 16]
    g = position([(city(EW), [s2, s3], [i2, i1])], script=[1])
    census_nb(scripted_nb, g, C, 1)
    assert side(g, 0, Side.L) == [s3] and side(g, 0, Side.R) == [i1]
    assert g.info[Info.DISCARD_N] == 2 and g.info[Info.SUCCESS_N] == 0


def test_R05_5_a_zero_sum_set_may_hold_a_chaos():
    g = position([(city(EW), [CH[0], sognae(1)], [incubi(-2), incubi(-3)])])  # total +1
    n = zero_sum_options_nb(g, C, 0)
    # bits: L0 (Chaos +5) 1, L1 (+1) 2, R0 (-2) 8, R1 (-3) 16
    assert [o[0] for o in options(g, n)] == [0, 1 | 8 | 16]


def test_R05_7_the_win_ends_the_census_at_once():
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(3)], [])],
                 success=11)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.OUTCOME] == Outcome.WIN and g.info[Info.REASON] == Reason.ALL_PACIFIED
    assert side(g, 1, Side.L) == [sognae(3)]  # nothing after the win was resolved


def test_R05_9_refill_from_an_empty_deck_loses():
    g = position([(city(EW), [sognae(2)], [incubi(-2)])], deck=[sognae(1, 8)],
                 city_deck=[city(FA)])
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.OUTCOME] == Outcome.LOSS and g.info[Info.REASON] == Reason.DECK_EMPTY


def test_R05_8_R01_5_a_pacified_row_takes_the_top_city_card():
    top, below = city(FA), city(WA)
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(3)], [])],
                 deck=[sognae(1, 8), incubi(-1, 8)], city_deck=[top, below])
    census_nb(scripted_nb, g, C, 1)
    assert g.layout[0, 0] == top
    assert g.info[Info.CITY_DECK_N] == 1 and g.city_deck[g.info[Info.CITY_TOP]] == below


def test_R05_9_dreamless_cities_are_dealt_top_to_bottom():
    deck = [sognae(1, 8), incubi(-1, 8), sognae(2, 8), incubi(-2, 8)]
    g = position([(city(EW), [sognae(2)], [incubi(-2)]), (city(EF), [sognae(1)], [incubi(-1)])],
                 deck=deck, city_deck=[city(WA), city(FA)])
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 2 and g.info[Info.N_ROWS] == 2  # no Perfect Balance
    assert side(g, 0, Side.L) == [deck[0]] and side(g, 0, Side.R) == [deck[1]]
    assert side(g, 1, Side.L) == [deck[2]] and side(g, 1, Side.R) == [deck[3]]


def test_R05_9_a_city_left_without_dreams_by_a_chaos_clear_is_dealt_at_census():
    deck = [sognae(1, 8), incubi(-1, 8)]
    g = position([(city(EW), [], []), (city(EF), [sognae(3)], [])], deck=deck)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 0 and g.info[Info.OUTCOME] == Outcome.RUNNING
    assert side(g, 0, Side.L) == [deck[0]] and side(g, 0, Side.R) == [deck[1]]
    assert g.info[Info.DECK_N] == 0


def test_R06_2_chaos_options_place_clear_reveal_in_order():
    g = position([(city(EW), [sognae(3)], [incubi(-1)]),
                  (city(EF), [sognae(2)], [incubi(-2)]),
                  (city(WA), [sognae(1), sognae(2), sognae(4)], [incubi(-1, 2)])])
    from analyzer.rules.chaos_nb import draw_chaos_options_nb

    n = draw_chaos_options_nb(g, C, CH[0], False)
    assert [o[:3] for o in options(g, n)] == [
        (ChaosHow.PLACE, 0, Side.L), (ChaosHow.CLEAR, 1, -1), (ChaosHow.REVEAL, -1, -1)]


def test_R06_2b_clearing_a_balanced_city_discards_its_dreams_and_the_chaos():
    g = position([(city(EW), [sognae(2)], [incubi(-2)])], script=[0])
    resolve_draw_chaos_nb(scripted_nb, g, C, CH[0], True)
    assert side(g, 0, Side.L) == [] and side(g, 0, Side.R) == []
    assert list(g.discard[:3]) == [sognae(2), incubi(-2), CH[0]]


def test_R06_2c_reveal_resolves_revealed_chaos_depth_first():
    s1, s2, i1 = sognae(1, 8), sognae(2, 8), incubi(-1, 8)
    # only reveal is legal for the first Chaos (no dreams: no influential side)
    deck = [s1, CH[1], s2, CH[2], i1, sognae(3, 8), incubi(-3, 8), sognae(4, 8)]
    g = position([(city(EW), [], [])], deck=deck, script=[0, 0, 0, 0], log_cap=256)
    resolve_draw_chaos_nb(scripted_nb, g, C, CH[0], True)
    # CH[0] reveals s1 CH1 s2 CH2; CH1 reveals i1 s3 i3 s4; CH2 reveals nothing (deck empty)
    assert g.info[Info.DECK_N] == 0 and g.info[Info.OUTCOME] == Outcome.RUNNING  # R06.3
    order = list(g.discard[: g.info[Info.DISCARD_N]])
    assert order == [s1, s2, i1, deck[5], deck[6], deck[7], CH[1], CH[2], CH[0]]


def test_R06_3_drawing_from_an_empty_deck_loses():
    g = position([(city(EW), [], [])], hand=[sognae(1), sognae(2), sognae(3)])
    phase2_nb(scripted_nb, g, C, 0)
    assert g.info[Info.OUTCOME] == Outcome.LOSS and g.info[Info.REASON] == Reason.DECK_EMPTY


def test_R06_1_phase2_resolves_a_chaos_then_draws_on():
    s = sognae(1, 8)
    g = position([(city(EW), [sognae(3)], [incubi(-1)])],
                 hand=[sognae(1), sognae(2), sognae(3, 2)], deck=[CH[0], s], script=[0])
    phase2_nb(scripted_nb, g, C, 0)
    assert side(g, 0, Side.L)[-1] == CH[0]
    assert list(g.hands[0]) == [sognae(1), sognae(2), sognae(3, 2), s]


def test_R13_1_win_is_checked_when_a_city_enters_success():
    g = position([(city(EW), [sognae(2)], [incubi(-2)])], success=11)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.OUTCOME] == Outcome.WIN



