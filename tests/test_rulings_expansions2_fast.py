"""The last three expansions' rulings and the team game (R09 Books of Power, R10 team
variant, R11 Postcards & Wise Chaos, R12 the Emptiness, R13.3 turn order) on hand-built
positions, run on the fast engine's kernels (docs/engine.md, "Expansions II and the team
game").

Expected layouts, hands, piles, decks and Inhabitant sums are worked out by hand from the
rulebook, the rulings and the contract; card ids are those of the default card set (R14).
"""

from __future__ import annotations

from itertools import permutations

import pytest

import analyzer
from analyzer.core.codes import (
    ALL_EXPANSIONS,
    TEAM_VARIANT,
    Act,
    BookKind,
    BooksChoice,
    CardType,
    ChaosHow,
    Decision,
    Expansion,
    Info,
    LogEntry,
    Outcome,
    PostcardKind,
    Reason,
    Result,
    Side,
    Stream,
)
from analyzer.core.rng import derived_stream_nb
from analyzer.rules.books_nb import book_action_nb, usable_books_nb
from analyzer.rules.census_nb import census_nb
from analyzer.rules.chaos_nb import draw_chaos_options_nb, resolve_draw_chaos_nb
from analyzer.rules.chromatic_nb import chromatic_options_nb
from analyzer.rules.emptiness_nb import move_emptiness_nb
from analyzer.rules.game_nb import (
    finish_turn_nb,
    phase2_nb,
    play_turn_nb,
    start_turn_nb,
    swap_polarity_nb,
)
from analyzer.rules.phase1_nb import (
    change_sides_nb,
    exchange_nb,
    phase1_nb,
    phase1_options_nb,
    rebuild_nb,
    rebuild_rows_nb,
)
from analyzer.rules.postcards_nb import (
    sail_flagships_nb,
    turn_hourglasses_nb,
    wise_chaos_count_nb,
)
from analyzer.rules.setup_nb import deal_row_nb, opening_hand_nb, resolve_held_nb, setup_nb
from analyzer.rules.state_nb import emptiness_row_nb, refresh_view_nb
from tests.positions import (
    CARDS,
    asked_counts,
    chaos_ids,
    chromatic_ids,
    city,
    decisions,
    deck_left,
    discarded,
    dreams_of,
    fresh_game,
    hand,
    harmony,
    incubi,
    logged,
    meta,
    of_type,
    options,
    position,
    postcard,
    postcard_on,
    recording_nb,
    scripted_nb,
    shuffled,
    side,
    sognae,
    stacked_setup_rng,
    wizard,
)

C = CARDS.cards
L, R = Side.L, Side.R
E, W, F, A = 1, 2, 4, 8  # earth, water, fire, air
EW, EF, WA, FA = E | W, E | F, W | A, F | A
CH = chaos_ids()  # 76-83
CC = chromatic_ids()  # 96-103
SM, CHROMATIC, TH, GW = (Expansion.SQUARES_METAS, Expansion.CHROMATIC_CHAOS,
                         Expansion.TEMPLES_HARMONY, Expansion.GARDENS_WIZARDS)
BK, PC, EM = Expansion.BOOKS, Expansion.POSTCARDS, Expansion.EMPTINESS
K, B, D = PostcardKind, BookKind, Decision
DC, DOVES, SEER, MAGI, HOUR, FLAG, ROCKET, PLAN = (postcard(k) for k in range(8))
HOUR2 = postcard(K.HOURGLASS, 1)
FS = dreams_of(CardType.SOGNAE, F)  # 8 fire Sognae: no place next to an earth/water city
AS = dreams_of(CardType.SOGNAE, A)  # 8 air Sognae
AI = dreams_of(CardType.INCUBI, A)  # 8 air Incubi
S1, S1B, S2, S3, S4 = sognae(1), sognae(1, skip=[sognae(1)]), sognae(2), sognae(3), sognae(4)
I1, I2, I3 = incubi(-1), incubi(-2), incubi(-3)  # earth
CITY_EW, CITY_EF, CITY_WA, CITY_FA = city(EW), city(EF), city(WA), city(FA)  # 0, 2, 8, 10
CITY_EW2 = city(EW, skip=[CITY_EW])
#: The other City card of each pair of DOVES_ROWS's cities (1, 3, 9, 11)
NEW_CITIES = [CITY_EW2, city(EF, skip=[CITY_EF]), city(WA, skip=[CITY_WA]),
              city(FA, skip=[CITY_FA])]


def rows_of(g) -> list[tuple[int, list[int], list[int]]]:
    return [(int(g.layout[r, 0]), side(g, r, L), side(g, r, R))
            for r in range(g.info[Info.N_ROWS])]


def seats_logged(g) -> list[int]:
    """The seat column of the logged decisions."""
    log = g.log[: g.info[Info.LOG_N]]
    return [int(row[6]) for row in log if row[0] == LogEntry.DECISION]


def test_card_ids_of_the_default_set_used_here():
    assert (DC, DOVES, SEER, MAGI, HOUR, FLAG, ROCKET, PLAN) == (146, 149, 152, 155, 158, 161,
                                                                 164, 167)
    assert of_type(CardType.BOOK) == list(range(138, 146))
    assert of_type(CardType.EMPTINESS) == list(range(170, 178))
    assert (S1, S1B, S2, S3, S4, I1, I2, I3) == (12, 13, 14, 16, 18, 44, 47, 50)
    assert (CITY_EW, CITY_EW2, CITY_EF, CITY_WA, CITY_FA) == (0, 1, 2, 8, 10)


# --- R02.6 / R11.1: postcards dealt with the dreams -----------------------------------------


@pytest.mark.parametrize("deck, carrier", [
    ([S2, I2], S2),  # two normal cards: the first
    ([I2, CH[0]], I2),  # the Chaos joins the first card's side; the first has the postcard
    ([CH[0], S2], CH[0]),  # a Chaos dealt first takes the postcard (R02.6 "a Chaos too")
    ([CC[0], S2, I2], S2),  # a held Chromatic is not dealt: the replacement is card 1
], ids=["normal", "chaos_second", "chaos_first", "held_chromatic"])
def test_R02_6_the_first_dream_dealt_to_a_row_receives_the_top_postcard(deck, carrier):
    g = position([(CITY_EW, [], [])], deck=deck, postcard_deck=[DC, DOVES],
                 expansions=PC | CHROMATIC)
    deal_row_nb(scripted_nb, g, C, 0)
    dealt = side(g, 0, L) + side(g, 0, R)
    assert sorted(dealt) == sorted(c for c in deck if c not in CC)
    assert [postcard_on(g, c) for c in dealt] == [DC if c == carrier else -1 for c in dealt]
    assert g.info[Info.POSTCARD_N] == 1
    assert g.postcard_deck[g.info[Info.POSTCARD_TOP]] == DOVES
    assert g.hourglass[DC] == 0


def test_R11_1_an_empty_postcard_deck_deals_no_postcard():
    g = position([(CITY_EW, [], [])], deck=[S2, I2], expansions=PC)
    deal_row_nb(scripted_nb, g, C, 0)
    assert (side(g, 0, L), side(g, 0, R)) == ([S2], [I2])
    assert postcard_on(g, S2) == postcard_on(g, I2) == -1
    assert g.info[Info.POSTCARD_N] == 0 and g.info[Info.OUTCOME] == Outcome.RUNNING


# --- R11.4 / R11.5: scoring on pacification ---------------------------------------------------


def pacify_first_row(rows, postcards, expansions=PC, hourglass=None, **kw):
    """A census on ``rows`` (row 0 balanced); the City deck is empty, so pacified rows go."""
    g = position(rows, postcards=postcards, expansions=expansions, hourglass=hourglass, **kw)
    census_nb(scripted_nb, g, C, 1)
    return g


@pytest.mark.parametrize("left, right, carrier, points", [
    ([S2], [I2], S2, 1),  # alone on its side
    ([S1, S1B], [I2], S1, -2),  # another dream on its side
    ([S1, S1B], [I2], I2, 1),  # alone on its own side; the other side does not matter
], ids=["alone", "not_alone", "alone_on_the_right"])
def test_R11_5_dreamcatcher_scores_when_its_dream_is_alone_on_its_side(
        left, right, carrier, points):
    g = pacify_first_row([(CITY_EW, left, right)], {carrier: DC})
    assert g.info[Info.SUCCESS_N] == 1
    assert g.info[Info.INHABITANTS] == points
    assert postcard_on(g, carrier) == -1  # the postcard left with its city
    assert discarded(g) == left + right


DOVES_ROWS = [(CITY_EW, [S2], [I2]),
              (CITY_EF, [S1], [I1]),
              (CITY_WA, [sognae(3, W)], [incubi(-3, W)]),
              (CITY_FA, [sognae(1, F)], [incubi(-1, F)])]


@pytest.mark.parametrize("rows, pacified, points", [
    (DOVES_ROWS, 4, 1),  # Perfect Balance
    (DOVES_ROWS[:3] + [(CITY_FA, [sognae(2, F)], [incubi(-1, F)])], 3, -2),  # one unbalanced
    (DOVES_ROWS[:3], 3, -2),  # all pacified, but the layout held 3 cities (R05.4)
], ids=["perfect_balance", "one_unbalanced", "three_rows"])
def test_R11_5_doves_score_on_perfect_balance_only(rows, pacified, points):
    g = pacify_first_row(rows, {S2: DOVES})
    assert g.info[Info.SUCCESS_N] == pacified
    assert g.info[Info.INHABITANTS] == points


@pytest.mark.parametrize("left, right, points", [
    ([S1, sognae(2, W)], [incubi(-1, F), incubi(-2, A)], 1),  # earth water fire air
    ([S1, sognae(2, W)], [incubi(-1, F), harmony(2)], 1),  # a Harmony is the 4th element
    ([S1, harmony(1), harmony(1, skip=[harmony(1)])], [incubi(-3, W)], 1),  # E W + 2 wild
    ([S1, harmony(1)], [I2], -2),  # E + 1 wild: a Harmony counts as one element only
    ([S1, CH[0]], [incubi(-3, W), incubi(-3, F)], -2),  # E W F: Chaos shows no element
], ids=["four_elements", "harmony_wild", "two_harmony", "harmony_is_one", "chaos_none"])
def test_R11_5_seer_needs_four_elements_harmony_wild_chaos_none(left, right, points):
    g = pacify_first_row([(CITY_EW, left, right)], {S1: SEER}, expansions=PC | TH)
    assert g.info[Info.SUCCESS_N] == 1  # every position here is balanced
    assert g.info[Info.INHABITANTS] == points


@pytest.mark.parametrize("rows, points", [
    ([(CITY_EW, [S2], [I2]), (CITY_EF, [CH[0]], [I1]), (CITY_WA, [], [CH[1]])], 1),
    ([(CITY_EW, [S1, CH[0]], [CH[1], I1])], 1),  # counted before its city's dreams go
    ([(CITY_EW, [S2], [I2]), (CITY_EF, [CH[0]], [CC[0]])], -2),  # Chromatic is not Chaos
    ([(CITY_EW, [S2], [I2]), (CITY_EF, [CH[0]], [I1])], -2),  # one Chaos
], ids=["two_elsewhere", "two_in_its_city", "chaos_and_chromatic", "one_chaos"])
def test_R11_5_magicians_need_two_plain_chaos_in_the_noted_layout(rows, points):
    carrier = rows[0][1][0]
    g = pacify_first_row(rows, {carrier: MAGI}, expansions=PC | CHROMATIC)
    assert g.info[Info.SUCCESS_N] == 1
    assert g.info[Info.INHABITANTS] == points


def test_R11_5_R05_2_magicians_read_the_noted_layout_after_an_earlier_city_went():
    # row 0's two Chaos are discarded with their city before row 1's postcard is scored
    g = pacify_first_row([(CITY_EW, [CH[0]], [CH[1]]), (CITY_EF, [S2], [I2])], {S2: MAGI})
    assert g.info[Info.SUCCESS_N] == 2
    assert g.info[Info.INHABITANTS] == 1


@pytest.mark.parametrize("kind", [K.HOURGLASS, K.FLAGSHIP, K.ROCKET])
def test_R11_4_special_rule_postcards_score_plus_one_when_their_city_is_pacified(kind):
    p = postcard(kind)
    # an Hourglass turned 4 times (it would go at the next end of turn) still scores +1
    g = pacify_first_row([(CITY_EW, [S1, S1B], [I2])], {S1B: p}, hourglass={p: 4})
    assert g.info[Info.INHABITANTS] == 1 and postcard_on(g, S1B) == -1


def planbot_rows(values, n_rows=4):
    """Row 0 balanced with the Planbot on its first dream; rows 1.. one-sided, each holding
    the dreams given; values[0] is row 0's (left, right)."""
    cities = [CITY_EW, CITY_EF, CITY_WA, CITY_FA]
    (left0, right0), others = values[0], values[1:]
    return [(cities[0], left0, right0)] + [(cities[r + 1], v, []) for r, v in
                                           enumerate(others[: n_rows - 1])]


@pytest.mark.parametrize("values, points", [
    ([([S1], [I1]), [S2], [sognae(3, W)], [sognae(4, F)]], 1),  # 1 2 3 4 from the top
    ([([S3], [I3]), [S4], [sognae(1, W)], [sognae(2, F)]], 1),  # 3 4 1 2: up, from row 2
    ([([S4], [I3, I1]), [sognae(3, W)], [sognae(2, W)], [sognae(1, F)]], 1),  # 4 3 2 1 down
    ([([S4], [I3, I1]), [sognae(3, W)], [sognae(2, W)], [CH[0]]], 1),  # 5 4 3 2 from bottom
    ([([S1], [I1]), [S2], [sognae(4, W)], [sognae(3, F)]], -2),  # 1 2 4 3: no sequence
], ids=["up_from_top", "up_wrapping", "down_from_top", "down_from_bottom_wrapping", "none"])
def test_R11_5_planbot_cyclic_sequence_up_or_down(values, points):
    rows = planbot_rows(values)
    g = pacify_first_row(rows, {rows[0][1][0]: PLAN})
    assert g.info[Info.SUCCESS_N] == 1
    assert g.info[Info.INHABITANTS] == points


def test_R11_5_planbot_fails_with_three_rows_even_on_a_sequence():
    rows = planbot_rows([([S1], [I1]), [S2], [sognae(3, W)]], n_rows=3)
    g = pacify_first_row(rows, {S1: PLAN})
    assert g.info[Info.SUCCESS_N] == 1 and g.info[Info.INHABITANTS] == -2


# --- R11.4: sent away when its dream is discarded any other way --------------------------------


def test_R11_4_a_postcard_is_sent_away_when_a_zero_sum_discard_takes_its_dream():
    g = position([(CITY_EW, [S2, S3], [I2])], postcards={S2: DC}, script=[1], expansions=PC,
                 log_cap=64)
    census_nb(scripted_nb, g, C, 1)
    assert decisions(g) == [(D.ZERO_SUM, 1 | 8, 0, -1, -1)]  # options 0 and {S2, I2}
    assert discarded(g) == [S2, I2] and side(g, 0, L) == [S3]
    assert g.info[Info.INHABITANTS] == -2 and postcard_on(g, S2) == -1
    assert g.info[Info.SUCCESS_N] == 0


def test_R11_4_a_postcard_is_sent_away_when_a_chaos_clears_its_city():
    g = position([(CITY_EW, [S2], [I2])], postcards={I2: SEER}, script=[0], expansions=PC)
    resolve_draw_chaos_nb(scripted_nb, g, C, CH[0], True)
    assert options(g, 2) == [(ChaosHow.CLEAR, 0, -1, CH[0]), (ChaosHow.REVEAL, -1, -1, CH[0])]
    assert discarded(g) == [S2, I2, CH[0]]
    assert g.info[Info.INHABITANTS] == -2 and postcard_on(g, I2) == -1


# --- R11.6: the Repentant Hourglass ---------------------------------------------------------


def test_R11_6_hourglass_still_there_after_the_fourth_end_of_turn_gone_at_the_fifth():
    g = position([(CITY_EW, [S2], [I1])], postcards={S2: HOUR}, expansions=PC)
    for turned in range(1, 5):
        turn_hourglasses_nb(g, C)
        assert g.hourglass[HOUR] == turned and postcard_on(g, S2) == HOUR
    assert g.info[Info.INHABITANTS] == 0
    turn_hourglasses_nb(g, C)  # it would be turned a fifth time
    assert postcard_on(g, S2) == -1 and g.info[Info.INHABITANTS] == -2
    assert side(g, 0, L) == [S2]  # the dream stays


def test_R11_6_hourglass_dealt_in_a_turn_is_turned_at_its_end_and_sent_away_on_the_fifth():
    d1, d2 = sognae(3, W), incubi(-3, W)
    g = position([(CITY_EW, [S2], [I2])], hand=FS[:4], deck=[d1, d2, *FS[4:8], AS[0]],
                 city_deck=[CITY_EW2], postcard_deck=[HOUR], turn=0, expansions=PC,
                 script=[1, 0, 0, 0, 0])  # turn 1: CENSUS with FS0 (it cannot be placed)
    play_turn_nb(scripted_nb, g, C)
    # the census pacified EW and dealt d1 (with the Hourglass) and d2 to the new city
    assert rows_of(g) == [(CITY_EW2, [d1], [d2])] and g.info[Info.SUCCESS_N] == 1
    assert postcard_on(g, d1) == HOUR and g.hourglass[HOUR] == 1  # the turn it was dealt
    for _ in range(3):  # turns 2-4: pass
        play_turn_nb(scripted_nb, g, C)
    assert g.info[Info.TURN] == 4
    assert postcard_on(g, d1) == HOUR and g.hourglass[HOUR] == 4
    assert g.info[Info.INHABITANTS] == 0
    play_turn_nb(scripted_nb, g, C)  # the 5th end of turn
    assert postcard_on(g, d1) == -1 and g.info[Info.INHABITANTS] == -2
    assert rows_of(g) == [(CITY_EW2, [d1], [d2])]
    assert discarded(g) == [FS[0], S2, I2, FS[1], FS[2], FS[3], FS[4]]
    assert g.info[Info.OUTCOME] == Outcome.RUNNING


# --- R11.7: the Flagship --------------------------------------------------------------------


def test_R11_7_flagship_moves_one_row_down_to_the_same_side():
    g = position([(CITY_EW, [S2], [I1]), (CITY_EF, [S1], []), (CITY_WA, [], [])],
                 postcards={S2: FLAG}, expansions=PC)
    sail_flagships_nb(g, C)
    assert rows_of(g) == [(CITY_EW, [], [I1]), (CITY_EF, [S1, S2], []), (CITY_WA, [], [])]
    assert postcard_on(g, S2) == FLAG and g.info[Info.INHABITANTS] == 0


def test_R11_7_flagship_wraps_from_the_bottom_row_to_the_top_row():
    i2w = incubi(-2, W)
    g = position([(CITY_EW, [S2], [I1]), (CITY_EF, [], []), (CITY_WA, [], [i2w])],
                 postcards={i2w: FLAG}, expansions=PC)
    sail_flagships_nb(g, C)
    assert rows_of(g) == [(CITY_EW, [S2], [I1, i2w]), (CITY_EF, [], []), (CITY_WA, [], [])]
    assert postcard_on(g, i2w) == FLAG


def test_R11_7_flagship_sent_away_at_a_full_side_and_its_dream_stays():
    full = [S1, S3, S4]
    g = position([(CITY_EW, [S2], []), (CITY_EF, full, [])], postcards={S2: FLAG},
                 expansions=PC)
    sail_flagships_nb(g, C)
    assert rows_of(g) == [(CITY_EW, [S2], []), (CITY_EF, full, [])]
    assert postcard_on(g, S2) == -1 and g.info[Info.INHABITANTS] == -2


def test_R11_7_with_one_city_the_flagship_does_not_move():
    g = position([(CITY_EW, [S2], [I1])], postcards={S2: FLAG}, expansions=PC)
    sail_flagships_nb(g, C)
    assert rows_of(g) == [(CITY_EW, [S2], [I1])]
    assert postcard_on(g, S2) == FLAG and g.info[Info.INHABITANTS] == 0


def test_R11_7_several_flagships_each_move_once():
    a, b, x = S2, sognae(2, F), S3
    g = position([(CITY_EW, [a, x], []), (CITY_EF, [b], [])],
                 postcards={a: FLAG, b: postcard(K.FLAGSHIP, 1)}, expansions=PC)
    sail_flagships_nb(g, C)
    # a: row 0 -> row 1; then b: row 1 -> row 0 (wrapping); a is not moved again
    assert rows_of(g) == [(CITY_EW, [x, b], []), (CITY_EF, [a], [])]
    assert postcard_on(g, a) == FLAG and g.info[Info.INHABITANTS] == 0


def test_R11_7_flagships_move_top_row_first_then_by_position():
    a, b = S2, S4
    x, y = sognae(1, F), sognae(2, F)
    g = position([(CITY_EW, [a, b], []), (CITY_EF, [x, y], []), (CITY_WA, [], [])],
                 postcards={a: FLAG, b: postcard(K.FLAGSHIP, 1)}, expansions=PC)
    sail_flagships_nb(g, C)
    # a takes row 1's last place; then b finds row 1 full: sent away, b stays
    assert rows_of(g) == [(CITY_EW, [b], []), (CITY_EF, [x, y, a], []), (CITY_WA, [], [])]
    assert postcard_on(g, a) == FLAG and postcard_on(g, b) == -1
    assert g.info[Info.INHABITANTS] == -2


def test_R11_7_the_upper_flagship_moves_first_even_when_the_lower_would_make_room():
    a, b = S2, sognae(1, F)
    y, z = sognae(2, F), sognae(3, F)
    g = position([(CITY_EW, [a], []), (CITY_EF, [b, y, z], []), (CITY_WA, [], [])],
                 postcards={a: FLAG, b: postcard(K.FLAGSHIP, 1)}, expansions=PC)
    sail_flagships_nb(g, C)
    assert rows_of(g) == [(CITY_EW, [a], []), (CITY_EF, [y, z], []), (CITY_WA, [b], [])]
    assert postcard_on(g, a) == -1 and postcard_on(g, b) == postcard(K.FLAGSHIP, 1)
    assert g.info[Info.INHABITANTS] == -2


# --- R11.8: the Resting Rocket ----------------------------------------------------------------


def test_R11_4_a_postcard_moves_with_its_dream_in_an_exchange():
    g = position([(CITY_EW, [S2], [I2]), (CITY_EF, [S3], [])], postcards={S2: DC},
                 script=[0], expansions=PC)
    exchange_nb(scripted_nb, g, C)  # the one pair: S2 and S3
    assert side(g, 0, L) == [S3] and side(g, 1, L) == [S2]
    assert postcard_on(g, S2) == DC and postcard_on(g, S3) == -1
    assert g.info[Info.INHABITANTS] == 0


def test_R11_8_resting_rocket_sent_away_when_an_exchange_swaps_its_dream():
    g = position([(CITY_EW, [S2], [I2]), (CITY_EF, [S3], [])], postcards={S2: ROCKET},
                 script=[0], expansions=PC)
    exchange_nb(scripted_nb, g, C)  # the one pair: S2 and S3
    assert side(g, 0, L) == [S3] and side(g, 1, L) == [S2]
    assert postcard_on(g, S2) == -1 and g.info[Info.INHABITANTS] == -2


def test_R11_8_resting_rocket_stays_when_an_exchange_swaps_two_other_dreams():
    g = position([(CITY_EW, [S2, S1], [I2]), (CITY_EF, [S3], [])], postcards={S2: ROCKET},
                 script=[2], expansions=PC)
    exchange_nb(scripted_nb, g, C)  # pairs (S2, S1), (S2, S3), (S1, S3): the last
    assert side(g, 0, L) == [S2, S3] and side(g, 1, L) == [S1]
    assert postcard_on(g, S2) == ROCKET and g.info[Info.INHABITANTS] == 0


def test_R11_8_resting_rocket_sent_away_by_change_sides():
    g = position([(CITY_EW, [S1, CH[0]], [I2])], postcards={CH[0]: ROCKET},
                 expansions=PC | GW)
    change_sides_nb(scripted_nb, g, C)  # the one target
    assert side(g, 0, L) == [S1] and side(g, 0, R) == [I2, CH[0]]
    assert postcard_on(g, CH[0]) == -1 and g.info[Info.INHABITANTS] == -2


def test_R11_8_resting_rocket_stays_on_rebuild():
    g = position([(CITY_EW, [S2], [I1]), (CITY_EF, [S3], [])], postcards={S2: ROCKET},
                 expansions=PC | GW)
    rebuild_nb(scripted_nb, g, C)  # the one pair of rows
    assert rows_of(g) == [(CITY_EF, [S2], [I1]), (CITY_EW, [S3], [])]
    assert postcard_on(g, S2) == ROCKET and g.info[Info.INHABITANTS] == 0


def test_R11_8_resting_rocket_stays_when_its_row_moves_up():
    g = position([(CITY_EW, [S2], [I2]), (CITY_EF, [S3], [])], postcards={S3: ROCKET},
                 expansions=PC)
    census_nb(scripted_nb, g, C, 1)  # EW pacified, no City card left: EF moves up
    assert rows_of(g) == [(CITY_EF, [S3], [])]
    assert postcard_on(g, S3) == ROCKET and g.info[Info.INHABITANTS] == 0


# --- R11.9 / R13.1: the Inhabitant pile and the win -------------------------------------------


def test_R11_9_win_refused_when_the_inhabitants_sum_below_zero_as_the_last_city_is_pacified():
    g = position([(CITY_EW, [S1, S1B], [I2])], postcards={S1: DC}, success=11, expansions=PC)
    census_nb(scripted_nb, g, C, 1)  # the Dreamcatcher is not alone: -2
    assert g.info[Info.SUCCESS_N] == 12 and g.info[Info.INHABITANTS] == -2
    assert g.info[Info.OUTCOME] == Outcome.LOSS and g.info[Info.REASON] == Reason.INHABITANTS


def test_R11_9_the_last_citys_postcards_count_before_the_win_is_checked():
    g = position([(CITY_EW, [S2], [I2])], postcards={S2: DC}, success=11, inhabitants=-1,
                 expansions=PC)
    census_nb(scripted_nb, g, C, 1)  # -1 + 1 = 0
    assert g.info[Info.INHABITANTS] == 0
    assert g.info[Info.OUTCOME] == Outcome.WIN and g.info[Info.REASON] == Reason.ALL_PACIFIED


# --- R11.3 / R11.2: Wise Chaos ----------------------------------------------------------------


def test_R11_3_the_wise_option_comes_last_and_only_when_asked_for():
    g = position([(CITY_EW, [S2], [I1])], expansions=PC | CHROMATIC)
    n = draw_chaos_options_nb(g, C, CH[0], True)
    assert options(g, n) == [(ChaosHow.PLACE, 0, L, CH[0]), (ChaosHow.REVEAL, -1, -1, CH[0]),
                             (ChaosHow.WISE, -1, -1, CH[0])]
    assert draw_chaos_options_nb(g, C, CH[0], False) == 2
    n = chromatic_options_nb(g, CC[0], True)
    assert options(g, n) == [(0, L, CC[0], -1), (0, R, CC[0], -1), (-2, -1, CC[0], -1)]
    full = position([(CITY_EW, [S1, S2, S3], [I1, I2, I3])], expansions=PC | CHROMATIC)
    n = chromatic_options_nb(full, CC[0], True)
    assert options(full, n) == [(-1, -1, CC[0], -1), (-2, -1, CC[0], -1)]


@pytest.mark.parametrize("drawn", [CH[0], CC[0]], ids=["chaos", "chromatic"])
def test_R11_3_a_wise_chaos_puts_the_card_drawn_in_phase_2_back_fourth_from_the_top(drawn):
    kept = [sognae(1, W), sognae(2, W), sognae(3, W)]
    a, b, c, d, e = AS[:5]
    g = position([(CITY_EW, [S2], [I1])], hand=kept, deck=[drawn, a, b, c, d, e],
                 wise_left=3, script=[2], expansions=PC | CHROMATIC, log_cap=64)
    phase2_nb(scripted_nb, g, C, 0)  # option 2 is the Wise Chaos for both kinds
    assert hand(g) == [*kept, a]
    assert deck_left(g) == [b, c, drawn, d, e]  # put back as [a, b, c, drawn, d, e]
    assert g.info[Info.WISE_LEFT] == 2 and g.stats[Result.WISE_USED] == 1
    assert rows_of(g) == [(CITY_EW, [S2], [I1])] and discarded(g) == []


@pytest.mark.parametrize("rest, left", [
    ([AS[0], AS[1], AS[2]], [AS[1], AS[2], CH[0]]),  # 3 cards below: 4th = the bottom
    ([AS[0], AS[1]], [AS[1], CH[0]]),  # 2 cards: the bottom
    ([AS[0]], [CH[0]]),  # 1 card
], ids=["three", "two", "one"])
def test_R11_3_a_wise_chaos_puts_the_card_at_the_bottom_of_a_short_deck(rest, left):
    kept = [sognae(1, W), sognae(2, W), sognae(3, W)]
    g = position([(CITY_EW, [S2], [I1])], hand=kept, deck=[CH[0], *rest], wise_left=1,
                 script=[2], expansions=PC)
    phase2_nb(scripted_nb, g, C, 0)
    assert hand(g) == [*kept, AS[0]] and deck_left(g) == left
    assert g.info[Info.WISE_LEFT] == 0


def test_R11_3_no_wise_option_for_a_chaos_revealed_by_option_c():
    kept = [sognae(1, W), sognae(2, W), sognae(3, W)]
    r1, r2, r3, y, z = AS[:5]
    g = position([(CITY_EW, [S2], [I1])], hand=kept, deck=[CH[0], r1, CH[1], r2, r3, y, z],
                 wise_left=3, script=[1, 0], record=True, expansions=PC, log_cap=64)
    phase2_nb(recording_nb, g, C, 0)
    # CH0: place, reveal, wise (3); it reveals r1 CH1 r2 r3; CH1: place, reveal (2)
    assert asked_counts(g) == [3, 2]
    assert decisions(g) == [(D.DRAW_CHAOS, ChaosHow.REVEAL, -1, -1, CH[0]),
                            (D.DRAW_CHAOS, ChaosHow.PLACE, 0, L, CH[1])]
    assert side(g, 0, L) == [S2, CH[1]] and discarded(g) == [r1, r2, r3, CH[0]]
    assert hand(g) == [*kept, y] and deck_left(g) == [z]
    assert g.info[Info.WISE_LEFT] == 3


def test_R11_3_no_wise_option_for_a_chaos_revealed_by_a_chromatic():
    kept = [sognae(1, W), sognae(2, W), sognae(3, W)]
    y, z = AS[:2]
    g = position([(CITY_EW, [S2], [I1])], hand=kept, deck=[CC[0], CH[0], y, z], wise_left=3,
                 script=[0, 0], record=True, expansions=PC | CHROMATIC, log_cap=64)
    phase2_nb(recording_nb, g, C, 0)
    # CC0: row 0 L, row 0 R, wise (3); CH0 revealed: place on L, reveal (2), no wise
    assert asked_counts(g) == [3, 2]
    assert side(g, 0, L) == [S2, CC[0], CH[0]]
    assert hand(g) == [*kept, y] and g.info[Info.WISE_LEFT] == 3


def test_R11_3_no_wise_option_for_a_held_chromatic():
    y = sognae(1, W)
    g = position([(CITY_EW, [], [])], deck=[y], wise_left=3, script=[0], record=True,
                 expansions=PC | CHROMATIC, log_cap=64)
    g.held[0] = CC[0]
    g.info[Info.HELD_N] = 1
    resolve_held_nb(recording_nb, g, C)
    assert asked_counts(g) == [2]  # row 0 L, row 0 R: no Wise Chaos
    assert decisions(g) == [(D.CHROMATIC, 0, L, CC[0], -1), (D.REVEALED, 0, L, y, -1)]
    assert g.info[Info.WISE_LEFT] == 3


def test_R11_3_no_wise_option_for_a_chaos_drawn_into_the_opening_hand():
    opening = [sognae(1, W), sognae(2, W), sognae(3, W), sognae(4, W)]
    g = position([(CITY_EW, [S2], [I1]), (CITY_EF, [S1], [I3])], deck=[CH[0], *opening],
                 wise_left=3, script=[1], record=True, expansions=PC)
    opening_hand_nb(recording_nb, g, C, 0)
    assert asked_counts(g) == [2]  # row 0 L, row 1 R
    assert side(g, 1, R) == [I3, CH[0]] and hand(g) == opening
    assert g.info[Info.WISE_LEFT] == 3


def test_R11_3_no_wise_option_once_they_are_used_up():
    kept = [sognae(1, W), sognae(2, W), sognae(3, W)]
    g = position([(CITY_EW, [S2], [I1])], hand=kept, deck=[CH[0], AS[0]], wise_left=0,
                 script=[0], record=True, expansions=PC)
    phase2_nb(recording_nb, g, C, 0)
    assert asked_counts(g) == [2]  # place, reveal
    assert side(g, 0, L) == [S2, CH[0]] and hand(g) == [*kept, AS[0]]


@pytest.mark.parametrize("expansions, wise", [
    (PC, 3), (PC | CHROMATIC, 3), (PC | SM, 4), (PC | TH, 4), (PC | GW, 4),
    (PC | SM | TH, 5), (PC | BK | EM, 3), (ALL_EXPANSIONS, 6), (SM | TH | GW, 6)])
def test_R11_2_wise_chaos_in_play(expansions, wise):
    assert wise_chaos_count_nb(expansions) == wise
    in_play = CARDS.with_expansions(expansions)
    g = fresh_game()
    setup_nb(scripted_nb, g, C, in_play.city_ids, in_play.dream_ids, expansions)
    assert g.info[Info.WISE_LEFT] == (wise if expansions & PC else 0)
    assert g.info[Info.SEATS] == 1 and g.info[Info.POLARITY] == 0
    if expansions & PC:
        assert g.info[Info.POSTCARD_N] == 24 - 4  # one on each row's first dream
    if expansions & EM:
        assert g.info[Info.EMPTINESS_N] == 8 and g.info[Info.EMPTINESS_CITY] == -1


def test_policy_view_shows_the_postcards_by_slot_and_the_emptiness_row():
    g = position([(CITY_EW, [S2, S3], [I1]), (CITY_EF, [S1], [I2])],
                 postcards={S3: DC, I2: SEER}, emptiness_n=8, emptiness_city=CITY_EF,
                 expansions=PC | EM)
    refresh_view_nb(g)
    view = [int(x) for x in g.info[Info.POSTCARD_AT: Info.POSTCARD_AT + 24]]
    expected = [-1] * 24
    expected[0 * 6 + 1] = DC  # row 0, left position 1
    expected[1 * 6 + 3] = SEER  # row 1, right position 0
    assert view == expected
    assert g.info[Info.EMPTINESS_ROW] == 1


# --- R12.1: the Emptiness moves ----------------------------------------------------------------


THREE_ROWS = [(CITY_EW, [S2], [I1]), (CITY_EF, [S3], []), (CITY_WA, [], [I2])]


@pytest.mark.parametrize("at, flat, to, flat_after", [
    (-1, 0, CITY_EW, 0),  # on the pile: to the top row
    (CITY_EW, 0, CITY_EF, 0),  # one row down
    (CITY_WA, 0, CITY_EW, 0),  # from the bottom row to the top row
    (-1, 1, -1, 0),  # lying flat: stands up on the pile instead of moving
], ids=["pile", "down", "wrap", "flat"])
def test_R12_1_the_emptiness_moves_at_the_start_of_a_turn(at, flat, to, flat_after):
    g = position(THREE_ROWS, emptiness_n=8, emptiness_city=at, emptiness_flat=flat,
                 expansions=EM)
    move_emptiness_nb(g)
    assert g.info[Info.EMPTINESS_CITY] == to and g.info[Info.EMPTINESS_FLAT] == flat_after
    assert g.info[Info.EMPTINESS_N] == 8


def test_R12_1_out_of_the_game_the_emptiness_does_not_move():
    g = position(THREE_ROWS, emptiness_n=0, expansions=EM)
    move_emptiness_nb(g)
    assert g.info[Info.EMPTINESS_CITY] == -1


def test_R12_1_the_figure_stays_on_its_city_card_when_the_rows_move_up():
    a, b = sognae(1, A), incubi(-1, A)
    g = position([(CITY_EW, [S2], [I2]), (CITY_EF, [S3], []), (CITY_WA, [S1], [])],
                 deck=[a, b], emptiness_n=8, emptiness_city=CITY_WA, expansions=EM)
    census_nb(scripted_nb, g, C, 1)
    # EW pacified and its row removed (no City card left); WA unbalanced: its dreams go,
    # then it is dealt again; the figure stands on WA, now row 1
    assert rows_of(g) == [(CITY_EF, [S3], []), (CITY_WA, [a], [b])]
    assert g.info[Info.EMPTINESS_CITY] == CITY_WA and emptiness_row_nb(g) == 1
    move_emptiness_nb(g)  # row 1 is the bottom row now: to the top row
    assert g.info[Info.EMPTINESS_CITY] == CITY_EF


# --- R12.2: the Emptiness at a census ------------------------------------------------------------


def test_R12_2_a_balanced_emptiness_city_is_not_pacified_and_takes_no_zero_sum_question():
    g = position([(CITY_EW, [S2], [I2]), (CITY_EF, [S3, S1], [I1])], script=[1],
                 emptiness_n=8, emptiness_city=CITY_EW, expansions=EM, log_cap=64)
    census_nb(scripted_nb, g, C, 1)
    assert decisions(g) == [(D.ZERO_SUM, 2 | 8, 1, -1, -1)]  # EF only
    assert g.info[Info.SUCCESS_N] == 0
    assert g.info[Info.EMPTINESS_N] == 7  # a card leaves; the figure goes to the pile
    assert g.info[Info.EMPTINESS_CITY] == -1 and g.info[Info.EMPTINESS_FLAT] == 0
    assert rows_of(g) == [(CITY_EW, [S2], [I2]), (CITY_EF, [S3], [])]  # its dreams stay
    assert discarded(g) == [S1, I1]


def test_R12_2_an_unbalanced_emptiness_city_loses_all_its_dreams_then_is_dealt_again():
    a, b, c, d = sognae(1, W), incubi(-1, W), sognae(2, W), incubi(-2, W)
    g = position([(CITY_EW, [S2, S3], [I2]), (CITY_EF, [S1], [I1])], deck=[a, b, c, d],
                 city_deck=[CITY_FA], postcards={S2: DC}, emptiness_n=8,
                 emptiness_city=CITY_EW, expansions=EM | PC, log_cap=64)
    census_nb(scripted_nb, g, C, 1)
    assert decisions(g) == []  # EF pacified, EW skipped: no zero-sum question at all
    assert discarded(g) == [S1, I1, S2, S3, I2]
    assert g.info[Info.INHABITANTS] == -2 and postcard_on(g, S2) == -1  # sent away
    assert rows_of(g) == [(CITY_EW, [a], [b]), (CITY_FA, [c], [d])]
    assert g.info[Info.EMPTINESS_N] == 8 and g.info[Info.EMPTINESS_CITY] == CITY_EW
    assert g.info[Info.SUCCESS_N] == 1


def test_R12_2_a_dreamless_emptiness_city_at_a_census_loses_the_game():
    g = position([(CITY_EW, [], []), (CITY_EF, [S1], [I1])], city_deck=[CITY_FA],
                 deck=[S2, I2], emptiness_n=8, emptiness_city=CITY_EW, expansions=EM)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.OUTCOME] == Outcome.LOSS and g.info[Info.REASON] == Reason.EMPTINESS
    assert g.info[Info.SUCCESS_N] == 1


def test_R12_2_R12_4_the_last_emptiness_card_brings_the_top_city_card():
    g = position([(CITY_EW, [S2], [I2])], city_deck=[CITY_FA, CITY_WA], emptiness_n=1,
                 emptiness_city=CITY_EW, expansions=EM)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.EMPTINESS_N] == 0 and g.info[Info.EMPTINESS_CITY] == -1
    assert g.info[Info.SUCCESS_N] == 1 and g.info[Info.CITY_DECK_N] == 1
    assert rows_of(g) == [(CITY_EW, [S2], [I2])]
    move_emptiness_nb(g)  # out of the game
    assert g.info[Info.EMPTINESS_CITY] == -1


def test_R12_4_the_last_emptiness_card_with_an_empty_city_deck_brings_nothing():
    """rules-notes 40: no City card to take, so none goes to the Success pile; the figure
    leaves all the same and the game goes on."""
    g = position([(CITY_EW, [S2], [I2])], city_deck=[], emptiness_n=1,
                 emptiness_city=CITY_EW, expansions=EM)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.EMPTINESS_N] == 0 and g.info[Info.EMPTINESS_CITY] == -1
    assert g.info[Info.SUCCESS_N] == 0 and g.info[Info.CITY_DECK_N] == 0
    assert g.info[Info.OUTCOME] == Outcome.RUNNING
    assert rows_of(g) == [(CITY_EW, [S2], [I2])]


@pytest.mark.parametrize("inhabitants, outcome, reason", [
    (0, Outcome.WIN, Reason.ALL_PACIFIED), (-2, Outcome.LOSS, Reason.INHABITANTS)])
def test_R12_4_R13_1_the_last_emptiness_card_may_bring_the_last_city_card(
        inhabitants, outcome, reason):
    """A position play cannot reach (11 City cards in Success, the Emptiness city in the
    layout and one in the deck make 13 of 12): the Emptiness city is never pacified, so the
    bonus card is never the twelfth. It checks that the win test of R13.1 runs on this path
    too, as for any City card entering Success."""
    g = position([(CITY_EW, [S2], [I2])], city_deck=[CITY_FA], emptiness_n=1, success=11,
                 emptiness_city=CITY_EW, inhabitants=inhabitants, expansions=EM | PC)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 12
    assert g.info[Info.OUTCOME] == outcome and g.info[Info.REASON] == reason


def test_R12_2_R05_4_no_perfect_balance_with_the_emptiness_on_a_balanced_row():
    new = NEW_CITIES
    deal = [*AS[:3], *AI[:3]]
    deck = [deal[0], deal[3], deal[1], deal[4], deal[2], deal[5]]
    g = position(DOVES_ROWS, city_deck=new, deck=deck, emptiness_n=8,
                 emptiness_city=CITY_FA, expansions=EM)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 3  # rows 0-2; no bonus card
    assert g.info[Info.EMPTINESS_N] == 7 and g.info[Info.CITY_DECK_N] == 1
    assert rows_of(g) == [(new[0], [deck[0]], [deck[1]]), (new[1], [deck[2]], [deck[3]]),
                          (new[2], [deck[4]], [deck[5]]), DOVES_ROWS[3]]


def test_R12_2_the_emptiness_city_still_counts_for_the_magicians():
    a, b = AS[0], AI[0]
    g = position([(CITY_EW, [S2], [I2]), (CITY_EF, [CH[0]], [I1]),
                  (CITY_WA, [CH[1]], [incubi(-1, W)])], deck=[a, b], postcards={S2: MAGI},
                 emptiness_n=8, emptiness_city=CITY_WA, expansions=PC | EM)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.INHABITANTS] == 1  # CH0, and CH1 beside the Emptiness city
    # the Emptiness city was not balanced: its dreams went, then it was dealt again
    assert rows_of(g) == [(CITY_EF, [CH[0]], [I1]), (CITY_WA, [a], [b])]


def test_R12_2_the_emptiness_city_still_counts_for_the_planbot():
    a, b = AS[0], AI[0]
    rows = planbot_rows([([S1], [I1]), [S2], [sognae(3, W)], [sognae(4, F)]])
    g = position(rows, deck=[a, b], postcards={S1: PLAN}, emptiness_n=8,
                 emptiness_city=CITY_FA, expansions=PC | EM)
    census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == 1 and g.info[Info.INHABITANTS] == 1
    assert rows_of(g)[-1] == (CITY_FA, [a], [b])


# --- R12.3: Ally against the Emptiness -----------------------------------------------------------


def test_R12_3_ally_options_pair_a_sognae_with_an_incubi_metas_either_way():
    a, b, m, c = FS[0], incubi(-1, F), meta(2, F), FS[1]
    g = position([(CITY_EW, [S2], [I1])], hand=[a, b, m, c], emptiness_n=8,
                 expansions=EM | SM)
    n = phase1_options_nb(g, C, 0)
    assert options(g, n) == [o for card in (a, b, m, c)
                             for o in ((Act.PASS, card, -1, -1), (Act.CENSUS, card, -1, -1))] + [
        (Act.ALLY, a, b, -1), (Act.ALLY, a, m, -1), (Act.ALLY, b, m, -1),
        (Act.ALLY, b, c, -1), (Act.ALLY, m, c, -1)]  # not the two Sognae a and c
    h1, h2 = harmony(1), harmony(2)
    g = position([(CITY_EW, [S2], [I1])], hand=[FS[0], h1, FS[1], h2], emptiness_n=8,
                 expansions=EM | TH)
    n = phase1_options_nb(g, C, 0)
    assert [o for o in options(g, n) if o[0] == Act.ALLY] == [
        (Act.ALLY, FS[0], h1, -1), (Act.ALLY, FS[0], h2, -1), (Act.ALLY, h1, FS[1], -1),
        (Act.ALLY, h1, h2, -1), (Act.ALLY, FS[1], h2, -1)]
    g = position([(CITY_EW, [S2], [I1])], hand=[a, b, m, c], emptiness_n=0,
                 expansions=EM | SM)
    n = phase1_options_nb(g, C, 0)
    assert [o for o in options(g, n) if o[0] == Act.ALLY] == []  # the Emptiness has gone


def test_R12_3_ally_pays_two_cards_lays_the_figure_flat_and_phase_2_draws_two():
    a, b, m, c = FS[0], incubi(-1, F), meta(2, F), FS[1]
    d1, d2, d3 = AS[:3]
    g = position([(CITY_EW, [S2], [I1])], hand=[a, b, m, c], deck=[d1, d2, d3], turn=0,
                 emptiness_n=8, script=[8], expansions=EM | SM, log_cap=128)
    play_turn_nb(scripted_nb, g, C)  # the figure goes to row 0, then option 8: Ally a, b
    assert decisions(g) == [(D.PHASE1, Act.ALLY, a, b, -1)]
    assert discarded(g) == [a, b] and hand(g) == [m, c, d1, d2] and deck_left(g) == [d3]
    assert g.info[Info.EMPTINESS_N] == 7
    assert g.info[Info.EMPTINESS_CITY] == -1 and g.info[Info.EMPTINESS_FLAT] == 1
    assert g.stats[Result.ALLIES] == 1
    start_turn_nb(scripted_nb, g, C)  # stands up on the pile instead of moving
    assert g.info[Info.EMPTINESS_CITY] == -1 and g.info[Info.EMPTINESS_FLAT] == 0
    start_turn_nb(scripted_nb, g, C)
    assert g.info[Info.EMPTINESS_CITY] == CITY_EW


def test_R12_3_R12_4_an_ally_taking_the_last_emptiness_card_brings_the_top_city_card():
    a, b = FS[0], incubi(-1, F)
    g = position([(CITY_EW, [S2], [I1])], hand=[a, b], city_deck=[CITY_FA, CITY_WA],
                 emptiness_n=1, emptiness_city=CITY_EW, script=[4], expansions=EM)
    phase1_nb(scripted_nb, g, C, 0)  # PASS a, CENSUS a, PASS b, CENSUS b, ALLY a b
    assert g.info[Info.EMPTINESS_N] == 0 and g.info[Info.EMPTINESS_CITY] == -1
    assert g.info[Info.EMPTINESS_FLAT] == 0
    assert g.info[Info.SUCCESS_N] == 1 and g.info[Info.CITY_DECK_N] == 1
    move_emptiness_nb(g)
    assert g.info[Info.EMPTINESS_CITY] == -1


# --- R12 / R08.4: Rebuild never takes the Emptiness city ---------------------------------------


def test_R08_4_R12_rebuild_never_offers_the_emptiness_row():
    w = wizard(2, E)
    g = position(THREE_ROWS, hand=[w], emptiness_n=8, emptiness_city=CITY_EF,
                 expansions=EM | GW)
    assert rebuild_rows_nb(g, g.options, True) == 1
    assert options(g, 1) == [(0, 2, -1, -1)]
    n = phase1_options_nb(g, C, 0)
    assert (Act.REBUILD, w, -1, -1) in options(g, n)
    rebuild_nb(scripted_nb, g, C)
    assert [r[0] for r in rows_of(g)] == [CITY_WA, CITY_EF, CITY_EW]
    assert g.info[Info.EMPTINESS_CITY] == CITY_EF


def test_R08_4_R12_no_rebuild_with_two_rows_one_of_them_the_emptiness_city():
    w, x = wizard(2, E), sognae(1, W)  # w and S1 share earth: a pair may pay for Rebuild
    g = position(THREE_ROWS[:2], hand=[w, S1, x], emptiness_n=8, emptiness_city=CITY_EW,
                 expansions=EM | GW)
    n = phase1_options_nb(g, C, 0)
    assert [o for o in options(g, n) if o[0] == Act.REBUILD] == []
    g = position(THREE_ROWS[:2], hand=[w, S1, x], emptiness_n=8, expansions=EM | GW)
    n = phase1_options_nb(g, C, 0)  # the figure on its pile: Rebuild is back
    assert [o for o in options(g, n) if o[0] == Act.REBUILD] == [
        (Act.REBUILD, w, -1, -1), (Act.REBUILD, w, S1, -1)]


# --- R09.1: the Books step of the setup ---------------------------------------------------------


SETUP_ROWS = [CITY_EW, CITY_EF, CITY_WA, CITY_FA]
DEALT = [S1, I1, S2, I2, S3, I3, sognae(1, W), incubi(-1, W)]  # every city balanced
OPENING = [sognae(2, W), sognae(3, W), sognae(4, W), sognae(1, F)]
BOOK_IDS = of_type(CardType.BOOK)


def books_setup(script, burnt, rest=()):
    g = fresh_game(script=script, log_cap=1024)
    order = [*burnt, *rest]
    city_ids, dream_ids, rng = stacked_setup_rng(g, SETUP_ROWS, order)
    # the Book deck's stream is derived from the deal stream, which it leaves as it was
    book_deck = shuffled(BOOK_IDS, derived_stream_nb(rng, Stream.BOOK_DECK))
    setup_nb(scripted_nb, g, C, city_ids, dream_ids, BK)
    return g, book_deck, rng


def book_bits(books):
    return sum(1 << int(C[b, 4]) for b in books)


def test_R09_1_books_revealed_one_at_a_time_four_dream_cards_burnt_for_each():
    burnt = AS  # 8 air Sognae
    g, book_deck, _ = books_setup([BooksChoice.REVEAL, BooksChoice.REVEAL, BooksChoice.STOP],
                                  burnt, [*DEALT, *OPENING, FS[2]])
    assert logged(g, LogEntry.BOOK_DECK) == [book_deck]
    assert decisions(g) == [(D.BOOKS, BooksChoice.REVEAL, -1, -1, -1)] * 2 + [
        (D.BOOKS, BooksChoice.STOP, -1, -1, -1)]
    kept = book_deck[:2]
    assert g.info[Info.BOOKS] == book_bits(kept)
    assert g.info[Info.PROPHECIES] == sum(C[b, 4] == B.PROPHECIES for b in kept)
    assert g.stats[Result.BOOKS_KEPT] == 2
    assert discarded(g) == burnt  # 8 cards, none a Chaos: no shuffle
    assert logged(g, LogEntry.SHUFFLE) == []
    # the cities are dealt after the burn
    assert rows_of(g) == [(c, [DEALT[2 * r]], [DEALT[2 * r + 1]])
                          for r, c in enumerate(SETUP_ROWS)]
    assert hand(g) == OPENING and deck_left(g) == [FS[2]]


def test_R09_1_no_more_than_four_books_are_revealed():
    burnt = [*AS, *AI]  # 16
    g, book_deck, _ = books_setup([BooksChoice.REVEAL] * 5, burnt, [*DEALT, *OPENING, FS[2]])
    assert [d[0] for d in decisions(g)] == [D.BOOKS] * 4  # no fifth question
    assert g.info[Info.BOOKS] == book_bits(book_deck[:4])
    assert discarded(g) == burnt and deck_left(g) == [FS[2]]


def test_R09_1_no_book_no_burn():
    g, _, _ = books_setup([BooksChoice.STOP], [], [*DEALT, *OPENING, FS[2]])
    assert decisions(g) == [(D.BOOKS, BooksChoice.STOP, -1, -1, -1)]
    assert g.info[Info.BOOKS] == 0 and discarded(g) == []
    assert hand(g) == OPENING and deck_left(g) == [FS[2]]


def test_R09_1_a_chaos_burnt_goes_back_and_the_dream_deck_is_shuffled():
    burnt = [AS[0], CH[0], AS[1], AS[2]]
    rest = [*DEALT, *OPENING, *FS[2:6]]
    g, book_deck, rng = books_setup([BooksChoice.REVEAL, BooksChoice.STOP], burnt, rest)
    assert g.info[Info.BOOKS] == book_bits(book_deck[:1])
    assert discarded(g) == [AS[0], AS[1], AS[2]]
    deck = shuffled([*rest, CH[0]], rng)  # the rest of the deck, then the Chaos
    assert logged(g, LogEntry.SHUFFLE) == [deck]
    assert CH[0] not in deck[:12]  # (this stream: the Chaos lands below the 12 drawn)
    top = deck[:8]
    for r in range(4):  # the cities are dealt from the shuffled deck
        assert sorted(side(g, r, L) + side(g, r, R)) == sorted(top[2 * r: 2 * r + 2])
    assert hand(g) == deck[8:12] and deck_left(g) == deck[12:]


# --- R09.3 / R09.4: Flying and Invisible --------------------------------------------------------


def test_R09_3_flying_sognae_options_and_the_rocket_sent_away():
    full = [S1, S4, sognae(4, E, skip=[S4])]
    g = position([(CITY_EW, [S2, CH[0]], [I2]), (CITY_EF, full, []),
                  (CITY_WA, [CC[0]], [incubi(-1, W)])],
                 postcards={S2: ROCKET}, books=[B.FLYING_SOGNAE], script=[0],
                 expansions=BK | PC | CHROMATIC, log_cap=64)
    book_action_nb(scripted_nb, g, C, B.FLYING_SOGNAE)
    # non-Chaos left dreams, by row and position; destinations with room on the left
    assert options(g, 7) == [(S2, 0, 2, L), (full[0], 1, 0, L), (full[0], 1, 2, L),
                             (full[1], 1, 0, L), (full[1], 1, 2, L),
                             (full[2], 1, 0, L), (full[2], 1, 2, L)]
    assert decisions(g) == [(D.BOOK_TARGET, S2, 0, 2, L)]
    assert side(g, 0, L) == [CH[0]] and side(g, 2, L) == [CC[0], S2]
    assert postcard_on(g, S2) == -1 and g.info[Info.INHABITANTS] == -2
    assert g.stats[Result.BOOK_ACTIONS] == 1


def test_R09_3_flying_incubi_moves_to_the_right_side_of_another_city_with_room():
    g = position([(CITY_EW, [], [I1]), (CITY_EF, [], [I2, I3, incubi(-1, F)]),
                  (CITY_WA, [], [CH[0]])],
                 books=[B.FLYING_INCUBI], script=[0], expansions=BK, log_cap=64)
    book_action_nb(scripted_nb, g, C, B.FLYING_INCUBI)
    assert decisions(g) == [(D.BOOK_TARGET, I1, 0, 2, R)]  # not to the full row 1
    assert rows_of(g) == [(CITY_EW, [], []), (CITY_EF, [], [I2, I3, incubi(-1, F)]),
                          (CITY_WA, [], [CH[0], I1])]


@pytest.mark.parametrize("kind, gone", [(B.INVISIBLE_SOGNAE, S2), (B.INVISIBLE_INCUBI, I2)])
def test_R09_4_invisible_discards_one_non_chaos_dream_of_its_side(kind, gone):
    g = position([(CITY_EW, [S2, CH[0]], [I2, CC[0]])], postcards={gone: DC}, books=[kind],
                 expansions=BK | PC | CHROMATIC, log_cap=64)
    book_action_nb(scripted_nb, g, C, kind)
    assert decisions(g) == [(D.BOOK_TARGET, gone, 0, L if gone == S2 else R, -1)]  # one
    assert discarded(g) == [gone]
    assert rows_of(g) == [(CITY_EW, [c for c in (S2, CH[0]) if c != gone],
                           [c for c in (I2, CC[0]) if c != gone])]
    assert g.info[Info.INHABITANTS] == -2  # its postcard is sent away


def test_R09_2_phase_1_offers_the_usable_books_in_kind_order():
    x = FS[0]
    every = [B.FLYING_SOGNAE, B.FLYING_INCUBI, B.INVISIBLE_SOGNAE, B.INVISIBLE_INCUBI,
             B.FREEDOM, B.PERFECT_BALANCE, B.PROPHECIES, B.PROPHECIES]
    g = position([(CITY_EW, [S2, CH[0]], [I2])], hand=[x], books=every, expansions=BK)
    assert g.info[Info.PROPHECIES] == 2
    n = phase1_options_nb(g, C, 0)
    # one city: nowhere to fly, no dreamless city
    assert options(g, n) == [(Act.PASS, x, -1, -1), (Act.CENSUS, x, -1, -1),
                             (Act.EXCHANGE, x, -1, -1),
                             (Act.BOOK, x, -1, B.INVISIBLE_SOGNAE),
                             (Act.BOOK, x, -1, B.INVISIBLE_INCUBI),
                             (Act.BOOK, x, -1, B.PERFECT_BALANCE),
                             (Act.BOOK, x, -1, B.PROPHECIES)]
    g = position([(CITY_EW, [S2, CH[0]], [I2]), (CITY_EF, [], [])], hand=[x], books=every,
                 expansions=BK)
    assert usable_books_nb(g, C) == (1 << 7) - 1
    g = position([(CITY_EW, [CH[0]], [CH[1]]), (CITY_EF, [], [])], hand=[x],
                 books=every[:4], expansions=BK)
    assert usable_books_nb(g, C) == 0  # only Chaos to fly or to make invisible


# --- R09.5: Freedom-Loving Dreams ---------------------------------------------------------------


def test_R09_5_freedom_pacifies_a_dreamless_city_then_refills_and_deals_every_dreamless_row():
    a, b, c, d = sognae(1, W), incubi(-1, W), sognae(2, W), incubi(-2, W)
    g = position([(CITY_EW, [], []), (CITY_EF, [S1], []), (CITY_WA, [], [])],
                 deck=[a, b, c, d], city_deck=[CITY_FA], postcard_deck=[DC, DOVES],
                 books=[B.FREEDOM], script=[1], expansions=BK | PC, log_cap=64)
    book_action_nb(scripted_nb, g, C, B.FREEDOM)
    assert options(g, 2)[0] == (0, -1, -1, -1)  # options: rows 0 and 2
    assert decisions(g) == [(D.BOOK_TARGET, 2, -1, -1, -1)]
    assert g.info[Info.SUCCESS_N] == 1
    # row 2 takes the new city; then every dreamless row, top to bottom, is dealt
    assert rows_of(g) == [(CITY_EW, [a], [b]), (CITY_EF, [S1], []), (CITY_FA, [c], [d])]
    assert postcard_on(g, a) == DC and postcard_on(g, c) == DOVES


def test_R12_5_freedom_on_the_emptiness_city_sends_the_figure_back_to_its_pile():
    a, b = sognae(1, W), incubi(-1, W)
    g = position([(CITY_EW, [], []), (CITY_EF, [S1], [I2])], deck=[a, b],
                 city_deck=[CITY_FA], books=[B.FREEDOM], emptiness_n=8,
                 emptiness_city=CITY_EW, expansions=BK | EM)
    book_action_nb(scripted_nb, g, C, B.FREEDOM)  # the one dreamless city
    assert g.info[Info.SUCCESS_N] == 1
    assert g.info[Info.EMPTINESS_CITY] == -1 and g.info[Info.EMPTINESS_FLAT] == 0
    assert g.info[Info.EMPTINESS_N] == 8
    assert rows_of(g) == [(CITY_FA, [a], [b]), (CITY_EF, [S1], [I2])]
    move_emptiness_nb(g)  # from the pile to the top row
    assert g.info[Info.EMPTINESS_CITY] == CITY_FA


def test_R09_5_freedom_may_win_the_game():
    g = position([(CITY_EW, [], [])], books=[B.FREEDOM], success=11, expansions=BK)
    book_action_nb(scripted_nb, g, C, B.FREEDOM)
    assert g.info[Info.OUTCOME] == Outcome.WIN and g.info[Info.SUCCESS_N] == 12


# --- R09.6: Perfect Balance ---------------------------------------------------------------------


@pytest.mark.parametrize("book, city_deck, success, rows", [
    (True, NEW_CITIES[:3], 6, [NEW_CITIES[2]]),
    (False, NEW_CITIES[:3], 5, [NEW_CITIES[1], NEW_CITIES[2]]),
    (True, NEW_CITIES[:1], 5, []),  # "if possible": one City card left
], ids=["book", "census", "book_one_left"])
def test_R09_6_the_book_of_perfect_balance_brings_two_city_cards(book, city_deck, success,
                                                                 rows):
    deal = [sognae(1, A), incubi(-1, A), sognae(2, A), incubi(-2, A)]
    g = position(DOVES_ROWS, city_deck=city_deck, deck=deal, postcards={S2: DOVES},
                 books=[B.PERFECT_BALANCE], expansions=BK | PC)
    if book:
        book_action_nb(scripted_nb, g, C, B.PERFECT_BALANCE)
    else:
        census_nb(scripted_nb, g, C, 1)
    assert g.info[Info.SUCCESS_N] == success
    assert [r[0] for r in rows_of(g)] == rows
    assert g.info[Info.INHABITANTS] == 1  # the Doves: Perfect Balance either way


# --- R09.7: Prophecies --------------------------------------------------------------------------


def test_R09_7_one_book_of_prophecies_two_cards_two_orders():
    a, b, c = AS[:3]
    g = position([(CITY_EW, [S2], [I1])], deck=[a, b, c], books=[B.PROPHECIES], script=[1],
                 record=True, expansions=BK, log_cap=64)
    book_action_nb(recording_nb, g, C, B.PROPHECIES)
    assert asked_counts(g) == [2]
    assert options(g, 2) == [(a, b, -1, -1), (b, a, -1, -1)]
    assert decisions(g) == [(D.PROPHECY_ORDER, b, a, -1, -1)]
    assert deck_left(g) == [b, a, c]


def test_R09_7_both_books_of_prophecies_four_cards_twenty_four_orders():
    top = AS[:4]
    g = position([(CITY_EW, [S2], [I1])], deck=[*top, AS[4]],
                 books=[B.PROPHECIES, B.PROPHECIES], script=[23], record=True,
                 expansions=BK, log_cap=64)
    book_action_nb(recording_nb, g, C, B.PROPHECIES)
    assert asked_counts(g) == [24]
    assert options(g, 24) == [tuple(p) for p in permutations(top)]  # unchanged order first
    assert deck_left(g) == [top[3], top[2], top[1], top[0], AS[4]]


def test_R09_7_prophecies_on_a_short_deck_look_at_what_there_is():
    top = AS[:3]
    g = position([(CITY_EW, [S2], [I1])], deck=top, books=[B.PROPHECIES, B.PROPHECIES],
                 script=[0], record=True, expansions=BK)
    book_action_nb(recording_nb, g, C, B.PROPHECIES)
    assert asked_counts(g) == [6]
    assert options(g, 6) == [(*p, -1) for p in permutations(top)]


# --- R08.3 / R09: a Wizard pays for two Book actions ---------------------------------------------


def test_R08_3_R09_a_wizard_pays_for_two_book_actions():
    w = wizard(2, E)  # earth: no place next to the fire/air city
    g = position([(CITY_FA, [S1, S2], [])], hand=[w], books=[B.INVISIBLE_SOGNAE, B.PROPHECIES],
                 deck=AS[:3], script=[3, 0, 2], record=True, expansions=BK | GW, log_cap=64)
    n = phase1_options_nb(g, C, 0)
    assert options(g, n) == [(Act.PASS, w, -1, -1), (Act.CENSUS, w, -1, -1),
                             (Act.EXCHANGE, w, -1, -1),
                             (Act.BOOK, w, -1, B.INVISIBLE_SOGNAE),
                             (Act.BOOK, w, -1, B.PROPHECIES)]
    phase1_nb(recording_nb, g, C, 0)
    # Phase I (5), the first target (2), SECOND_ACT: pass, census, the two Books (4; one
    # dream a side now: no Exchange); the second target is the only one
    assert asked_counts(g) == [5, 2, 4]
    assert decisions(g) == [(D.PHASE1, Act.BOOK, w, -1, B.INVISIBLE_SOGNAE),
                            (D.BOOK_TARGET, S1, 0, L, -1),
                            (D.SECOND_ACT, Act.BOOK, -1, -1, B.INVISIBLE_SOGNAE),
                            (D.BOOK_TARGET, S2, 0, L, -1)]
    assert discarded(g) == [w, S1, S2] and rows_of(g) == [(CITY_FA, [], [])]
    assert g.stats[Result.BOOK_ACTIONS] == 2


def test_R09_2_a_book_action_paid_with_a_plain_dream_has_no_second_act():
    x = FS[0]
    g = position([(CITY_EW, [S1, S2], [])], hand=[x], books=[B.INVISIBLE_SOGNAE],
                 script=[3, 0], expansions=BK | GW, log_cap=64)
    phase1_nb(scripted_nb, g, C, 0)  # PASS, CENSUS, EXCHANGE, BOOK
    assert [d[0] for d in decisions(g)] == [D.PHASE1, D.BOOK_TARGET]
    assert discarded(g) == [x, S1]


# --- R10: the team variant ----------------------------------------------------------------------


@pytest.mark.parametrize("polarity, seat, sides", [
    (0, 0, [L]), (0, 1, [R]), (1, 0, [R]), (1, 1, [L])])
def test_R10_3_a_seat_places_only_on_its_polaritys_side_metas_too(polarity, seat, sides):
    s, i, m = S1, I1, meta(2, E)
    g = position([(CITY_EW, [], [])], hand=[s, i, m] if seat == 0 else (),
                 hand2=[s, i, m] if seat == 1 else (), seats=2, polarity=polarity, seat=seat,
                 expansions=SM)
    n = phase1_options_nb(g, C, seat)
    places = [o for o in options(g, n) if o[0] == Act.PLACE]
    expected = []
    for card, card_sides in ((s, [L]), (i, [R]), (m, [L, R])):
        expected += [(Act.PLACE, card, 0, sd) for sd in card_sides if sd in sides]
    assert places == expected
    discards = [o for o in options(g, n) if o[0] != Act.PLACE]  # any card for an action
    assert discards == [(a, c, -1, -1) for c in (s, i, m) for a in (Act.PASS, Act.CENSUS)]


def test_R10_3_a_chaos_drawn_in_the_team_game_goes_on_either_more_influential_side():
    g = position([(CITY_EW, [S2], [I1]), (CITY_EF, [S1], [I3])], seats=2, seat=1)
    n = draw_chaos_options_nb(g, C, CH[0], False)
    assert options(g, n)[:2] == [(ChaosHow.PLACE, 0, L, CH[0]), (ChaosHow.PLACE, 1, R, CH[0])]


@pytest.mark.parametrize("polarity, seat", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_R10_3_a_chromatic_chaos_ignores_the_seats_polarity(polarity, seat):
    g = position([(CITY_EW, [S2], [I1]), (CITY_EF, [], [])], seats=2, seat=seat,
                 polarity=polarity, expansions=CHROMATIC)
    n = chromatic_options_nb(g, CC[0], False)
    assert [o[:2] for o in options(g, n)] == [(0, L), (0, R), (1, L), (1, R)]


@pytest.mark.parametrize("card, sides", [(S1, [L]), (I1, [R])])
def test_R10_3_the_card_a_chromatic_chaos_reveals_goes_by_its_type_not_the_polarity(card,
                                                                                   sides):
    from analyzer.rules.chromatic_nb import revealed_options_nb

    for polarity, seat in ((0, 0), (0, 1), (1, 0), (1, 1)):
        g = position([(CITY_EW, [], [])], seats=2, seat=seat, polarity=polarity,
                     expansions=CHROMATIC)
        n = revealed_options_nb(g, C, card)
        assert [o[:3] for o in options(g, n)] == [(0, sd, card) for sd in sides]


def test_R10_3_a_book_action_moves_a_dream_whatever_the_seats_polarity():
    # seat 1 plays Incubi (polarity 0) and still flies a Sognae
    g = position([(CITY_EW, [S2], [I2]), (CITY_EF, [], [])], books=[B.FLYING_SOGNAE],
                 script=[0], expansions=BK, seats=2, seat=1, polarity=0, log_cap=64)
    book_action_nb(scripted_nb, g, C, B.FLYING_SOGNAE)
    assert decisions(g) == [(D.BOOK_TARGET, S2, 0, 1, L)]
    assert side(g, 1, L) == [S2]


@pytest.mark.parametrize("polarity, seat, sides", [
    (0, 0, [L]), (0, 1, [R]), (1, 0, [R]), (1, 1, [L])])
def test_R10_3_R08_3_a_wizard_is_placed_by_the_seats_polarity(polarity, seat, sides):
    wizards = [wizard(2, E), wizard(-1, E)]
    g = position([(CITY_EW, [], [])], hand=wizards if seat == 0 else (),
                 hand2=wizards if seat == 1 else (), seats=2, polarity=polarity, seat=seat,
                 expansions=GW)
    n = phase1_options_nb(g, C, seat)
    places = [o for o in options(g, n) if o[0] == Act.PLACE]
    assert places == [(Act.PLACE, w, 0, sd) for w, sd in zip(wizards, (L, R), strict=True)
                      if sd in sides]


def test_R10_1_seats_take_turns_and_draw_into_their_own_hands():
    h0, h1 = FS[:4], AS[:4]
    x1, x2, x3, x4 = [*FS[4:6], *AS[4:6]]
    g = position([(CITY_EW, [S2], [I1])], hand=h0, hand2=h1, deck=[x1, x2, x3, x4], turn=0,
                 seats=2, log_cap=256)
    play_turn_nb(scripted_nb, g, C)  # everyone passes the first card
    assert g.info[Info.SEAT] == 0 and hand(g, 0) == [*h0[1:], x1] and hand(g, 1) == h1
    play_turn_nb(scripted_nb, g, C)
    assert g.info[Info.SEAT] == 1 and hand(g, 1) == [*h1[1:], x2]
    play_turn_nb(scripted_nb, g, C)
    assert g.info[Info.SEAT] == 0 and hand(g, 0) == [*h0[2:], x1, x3]
    assert discarded(g) == [h0[0], h1[0], h0[1]]
    assert seats_logged(g) == [0, 1, 0]


def test_R10_1_opening_hands_seat_0_then_seat_1_each_shuffling_its_own_set_aside_chaos():
    seat0 = OPENING
    rest = [*AS[:5]]
    order = [*DEALT, seat0[0], CH[0], *seat0[1:], *rest]
    g = fresh_game(log_cap=1024)
    city_ids, dream_ids, rng = stacked_setup_rng(g, SETUP_ROWS, order)
    setup_nb(scripted_nb, g, C, city_ids, dream_ids, TEAM_VARIANT)
    assert g.info[Info.SEATS] == 2 and g.info[Info.POLARITY] == 0 and g.info[Info.SEAT] == 0
    # every city is balanced: the Chaos is set aside; with seat 0's hand full it is
    # shuffled back, before seat 1 draws
    assert decisions(g) == [(D.HAND_CHAOS, ChaosHow.ASIDE, -1, -1, CH[0])]
    assert seats_logged(g) == [0]
    deck = shuffled([*rest, CH[0]], rng)
    assert logged(g, LogEntry.SHUFFLE) == [deck]
    assert CH[0] not in deck[:4]  # (this stream)
    assert hand(g, 0) == seat0 and hand(g, 1) == deck[:4] and deck_left(g) == deck[4:]


def test_R10_4_a_polarity_swap_removes_the_8_most_recent_discards():
    pile = [*AS, *FS[:2]]  # 10, oldest first
    g = position([(CITY_EW, [S2], [I1])], discard=pile, seats=2, script=[1], log_cap=64)
    swap_polarity_nb(scripted_nb, g, C)
    assert decisions(g) == [(D.SWAP_POLARITY, 1, -1, -1, -1)]
    assert discarded(g) == pile[:2] and logged(g, LogEntry.REMOVED) == [pile[2:]]
    assert g.info[Info.POLARITY] == 1 and g.info[Info.REMOVED_N] == 8
    assert g.stats[Result.POLARITY_SWAPS] == 1


def test_R10_4_keeping_the_polarities_changes_nothing():
    g = position([(CITY_EW, [S2], [I1])], discard=AS, seats=2, script=[0], log_cap=64)
    swap_polarity_nb(scripted_nb, g, C)
    assert options(g, 2) == [(0, -1, -1, -1), (1, -1, -1, -1)]
    assert decisions(g) == [(D.SWAP_POLARITY, 0, -1, -1, -1)]
    assert discarded(g) == AS and g.info[Info.POLARITY] == 0


def test_R10_4_no_polarity_swap_with_fewer_than_8_discards():
    g = position([(CITY_EW, [S2], [I1])], discard=AS[:7], seats=2, script=[1], log_cap=64)
    swap_polarity_nb(scripted_nb, g, C)
    assert decisions(g) == [] and discarded(g) == AS[:7] and g.info[Info.POLARITY] == 0


@pytest.mark.parametrize("seats, asked", [(2, True), (1, False)])
def test_R10_4_the_swap_is_offered_at_the_start_of_a_team_turn_only(seats, asked):
    g = position([(CITY_EW, [S2], [I1])], discard=AS, seats=seats, turn=4, script=[1],
                 log_cap=64)
    start_turn_nb(scripted_nb, g, C)
    assert g.info[Info.TURN] == 5 and g.info[Info.SEAT] == 0
    assert decisions(g) == ([(D.SWAP_POLARITY, 1, -1, -1, -1)] if asked else [])
    assert g.info[Info.POLARITY] == (1 if asked else 0)
    assert discarded(g) == ([] if asked else AS)


# --- R13.3: the order of a turn ------------------------------------------------------------------


def test_R13_3_flagship_and_emptiness_move_before_phase_1_hourglass_turns_at_the_end():
    s3w, i1w = sognae(3, W), incubi(-1, W)
    a, b, c, d, e = AS[0], AI[0], AS[1], AI[1], AS[2]
    g = position([(CITY_EW, [S2], [I1]), (CITY_EF, [], [I2]), (CITY_WA, [s3w], [i1w])],
                 hand=FS[:4], deck=[a, b, c, d, e], city_deck=[CITY_FA], turn=0,
                 postcards={S2: FLAG, I2: HOUR, s3w: HOUR2}, hourglass={HOUR: 4},
                 emptiness_n=8, script=[2], expansions=PC | EM, log_cap=256)
    start_turn_nb(scripted_nb, g, C)
    # R11.7 then R12.1: the Flagship's dream joins row 1 (now balanced); the Emptiness
    # goes from its pile to the top row; the Hourglasses have not turned yet
    assert g.info[Info.TURN] == 1
    assert rows_of(g)[:2] == [(CITY_EW, [], [I1]), (CITY_EF, [S2], [I2])]
    assert g.info[Info.EMPTINESS_CITY] == CITY_EW
    assert g.hourglass[HOUR] == 4 and g.hourglass[HOUR2] == 0
    n = phase1_options_nb(g, C, 0)
    assert options(g, n)[:4] == [(Act.PLACE, FS[0], 1, L), (Act.PASS, FS[0], -1, -1),
                                 (Act.CENSUS, FS[0], -1, -1), (Act.EXCHANGE, FS[0], -1, -1)]
    finish_turn_nb(scripted_nb, g, C)  # Phase I: a census
    # EF pacified: Flagship +1, Hourglass (turned 4 times, not yet sent away) +1; EW, the
    # Emptiness city, unbalanced: its dream discarded; both dreamless rows dealt
    assert g.info[Info.INHABITANTS] == 2 and g.info[Info.SUCCESS_N] == 1
    assert discarded(g) == [FS[0], S2, I2, I1]
    assert rows_of(g) == [(CITY_EW, [a], [b]), (CITY_FA, [c], [d]), (CITY_WA, [s3w], [i1w])]
    assert hand(g) == [*FS[1:4], e]
    # the end of the turn: the remaining Hourglass turns
    assert g.hourglass[HOUR2] == 1 and postcard_on(g, s3w) == HOUR2
    assert g.info[Info.EMPTINESS_CITY] == CITY_EW and g.info[Info.EMPTINESS_N] == 8
    assert g.info[Info.OUTCOME] == Outcome.RUNNING


def test_R12_a_final_check_mid_census_gives_the_figure_its_place_in_rows():
    """Game 130 of seed 22 is lost at a census after row 2 was pacified: its row, waiting
    for a City card, is left out of the last check's rows, and the figure's row 3 is the
    third of them (TRACE.md: ``at`` is the figure's row)."""
    kwargs = {"seed": 22, "game": 130, "expansions": "emptiness", "policy": "random"}
    fast = analyzer.trace(**kwargs)[0]
    assert fast["result"]["reason"] == "emptiness"
    last = [e["check"] for e in fast["log"] if "check" in e][-1]
    assert len(last["rows"]) == 3 and last["emptiness"]["at"] == 2
    assert last["rows"][2] == {"city": 3, "L": [], "R": []}  # the dreamless city it stands on
    assert analyzer.trace(**kwargs, engine="reference")[0]["log"] == fast["log"]
    for trace in analyzer.trace(seed=22, game=100, games=60, expansions="emptiness",
                                policy="random"):
        for check in (e["check"] for e in trace["log"] if "check" in e):
            at = check["emptiness"]["at"]
            assert at is None or 0 <= at < len(check["rows"])
