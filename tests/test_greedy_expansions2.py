"""greedy with Books of Power, Postcards & Wise Chaos, The Emptiness and the team game
(docs/policies.md): hand-built positions, the options the fast engine lists for them, and
``greedy_nb`` called directly on the policy view (layout, hands, info).

Card ids are those of the default card set (R14); elements: earth 1, water 2, fire 4, air 8.
The hands are mostly air cards next to cities without air, so that they have no placement
and the choice is among the actions under test.
"""

from __future__ import annotations

import numpy as np
import pytest

import analyzer
from analyzer.core.codes import (
    N_POLICY_INFO,
    N_SLOTS,
    Act,
    BookKind,
    BooksChoice,
    CardField,
    CardType,
    ChaosHow,
    Decision,
    Expansion,
    Info,
    PostcardKind,
    Side,
)
from analyzer.policies.greedy_nb import GREEDY_WEIGHTS, W, greedy_nb, greedy_params
from analyzer.rules.books_nb import target_options_nb
from analyzer.rules.census_nb import zero_sum_options_nb
from analyzer.rules.chaos_nb import draw_chaos_options_nb
from analyzer.rules.chromatic_nb import WISE_ROW, chromatic_options_nb
from analyzer.rules.phase1_nb import phase1_options_nb
from tests.positions import CARDS, chaos_ids, chromatic_ids, city, incubi, options, position, sognae

C = CARDS.cards
EARTH, WATER, FIRE, AIR = 1, 2, 4, 8
EW, EF, WF = city(EARTH | WATER), city(EARTH | FIRE), city(WATER | FIRE)
#: A hand without a placement next to EW, EF, WF: two Sognae and two Incubi of air.
AIR_HAND = [sognae(1, AIR), incubi(-1, AIR), sognae(2, AIR), incubi(-2, AIR)]


def choose(g, kind, n, **weights):
    """greedy's choice among ``g.options[:n]`` on the policy view of ``g``, as the option."""
    params = greedy_params(weights, C)
    state = (g.layout, g.hands, g.info[:N_POLICY_INFO])
    choice = int(greedy_nb(kind, g.options, n, state, C, params, np.zeros(2, dtype=np.uint64)))
    assert 0 <= choice < n
    return tuple(int(x) for x in g.options[choice])


def set_options(g, rows):
    for i, row in enumerate(rows):
        g.options[i] = row
    return len(rows)


def postcard_id(kind: int) -> int:
    for cid, row in enumerate(C):
        if row[CardField.TYPE] == CardType.POSTCARD and row[CardField.KIND] == kind:
            return cid
    raise LookupError(kind)


def with_postcards(g, placed: dict[tuple[int, int], int]):
    """Postcards in play: ``placed`` maps (row, slot 0-5) to a PostcardKind, others none."""
    g.info[Info.EXPANSIONS] |= Expansion.POSTCARDS
    g.info[Info.POSTCARD_AT: Info.POSTCARD_AT + 4 * N_SLOTS] = -1
    for (row, slot), kind in placed.items():
        g.info[Info.POSTCARD_AT + row * N_SLOTS + slot] = postcard_id(kind)
    return g


def with_figure(g, row: int, cards_left: int = 3):
    """The Emptiness in play, its figure on ``row`` (-1: on its pile)."""
    g.info[Info.EXPANSIONS] |= Expansion.EMPTINESS
    g.info[Info.EMPTINESS_N] = cards_left
    g.info[Info.EMPTINESS_ROW] = row
    g.info[Info.EMPTINESS_CITY] = -1 if row < 0 else g.layout[row, 0]
    return g


def test_new_weights_are_appended_before_the_card_facts():
    names = list(GREEDY_WEIGHTS)
    assert names[:14] == list(W._fields[:14])  # the old weights keep their indices
    assert list(W._fields) == names + ["MAX_SOGNAE", "MAX_INCUBI"]
    assert all(v > 0 for v in GREEDY_WEIGHTS.values())  # tune scales them by factors
    params = greedy_params(cards=C)
    assert params[W.MAX_SOGNAE] == 4 and params[W.MAX_INCUBI] == 3


# --- Books of Power (R09) ----------------------------------------------------------------


@pytest.mark.parametrize("keep, books, prophecies, expected", [
    (None, 0, 0, BooksChoice.STOP),  # by default a Book's 4 burnt cards cost too much
    (2, 0, 0, BooksChoice.REVEAL),
    (2, 1 << BookKind.FREEDOM, 0, BooksChoice.REVEAL),
    (2, 1 << BookKind.FREEDOM | 1 << BookKind.FLYING_SOGNAE, 0, BooksChoice.STOP),
    (2, 1 << BookKind.PROPHECIES, 2, BooksChoice.STOP),  # both Prophecies count
])
def test_books_are_revealed_up_to_books_keep(keep, books, prophecies, expected):
    g = position([(EW, [], [])], expansions=Expansion.BOOKS)
    g.info[Info.TURN] = 0
    g.info[Info.BOOKS] = books
    g.info[Info.PROPHECIES] = prophecies
    n = set_options(g, [[BooksChoice.STOP, -1, -1, -1], [BooksChoice.REVEAL, -1, -1, -1]])
    weights = {} if keep is None else {"BOOKS_KEEP": keep}
    assert choose(g, Decision.BOOKS, n, **weights)[0] == expected


def test_freedom_pacifies_a_dreamless_city_for_a_card():
    g = position([(EW, [], []), (EF, [sognae(2, FIRE)], [incubi(-1, EARTH)])],
                 hand=AIR_HAND, expansions=Expansion.BOOKS)
    g.info[Info.BOOKS] = 1 << BookKind.FREEDOM | 1 << BookKind.PROPHECIES
    g.info[Info.PROPHECIES] = 1
    n = phase1_options_nb(g, C, 0)
    assert (Act.BOOK, AIR_HAND[0], -1, BookKind.FREEDOM) in options(g, n)
    act, _, _, kind = choose(g, Decision.PHASE1, n)
    assert (act, kind) == (Act.BOOK, BookKind.FREEDOM)


def test_freedom_targets_the_dreamless_city_under_the_emptiness():
    g = position([(EW, [], []), (EF, [sognae(2, FIRE)], [incubi(-1, EARTH)]), (WF, [], [])],
                 hand=AIR_HAND, expansions=Expansion.BOOKS)
    g.info[Info.BOOKS] = 1 << BookKind.FREEDOM
    n = target_options_nb(g, C, BookKind.FREEDOM, True)
    assert options(g, n) == [(0, -1, -1, -1), (2, -1, -1, -1)]
    assert choose(g, Decision.BOOK_TARGET, n)[0] == 0
    with_figure(g, 2)
    assert choose(g, Decision.BOOK_TARGET, n)[0] == 2  # R12.5: the figure goes back too


def test_invisible_removes_the_dream_that_balances_a_city():
    three = sognae(3, EARTH)
    g = position([(EW, [sognae(1, WATER), three], [incubi(-1, WATER)]),
                  (EF, [sognae(2, FIRE)], [incubi(-3, FIRE)])],
                 hand=AIR_HAND, expansions=Expansion.BOOKS)
    g.info[Info.BOOKS] = 1 << BookKind.INVISIBLE_SOGNAE
    n = phase1_options_nb(g, C, 0)
    act, _, _, kind = choose(g, Decision.PHASE1, n)
    assert (act, kind) == (Act.BOOK, BookKind.INVISIBLE_SOGNAE)
    n = target_options_nb(g, C, BookKind.INVISIBLE_SOGNAE, True)
    assert choose(g, Decision.BOOK_TARGET, n)[:2] == (three, 0)


def test_flying_moves_a_dream_to_balance_two_cities():
    two = sognae(2, EARTH)
    g = position([(EW, [sognae(1, WATER), two], [incubi(-1, WATER)]),
                  (EF, [sognae(1, FIRE)], [incubi(-3, FIRE)])],
                 hand=AIR_HAND, expansions=Expansion.BOOKS)
    g.info[Info.BOOKS] = 1 << BookKind.FLYING_SOGNAE
    n = target_options_nb(g, C, BookKind.FLYING_SOGNAE, True)
    assert choose(g, Decision.BOOK_TARGET, n) == (two, 0, 1, Side.L)


def test_prophecies_put_a_useful_card_first_and_the_chaos_deeper():
    helper = sognae(2, EARTH)  # balances row 0
    chaos = chaos_ids()[0]
    g = position([(EW, [], [incubi(-2, WATER)]), (EF, [sognae(1, FIRE)], [incubi(-3, FIRE)])],
                 hand=AIR_HAND, expansions=Expansion.BOOKS)
    n = set_options(g, [[chaos, helper, -1, -1], [helper, chaos, -1, -1]])
    assert choose(g, Decision.PROPHECY_ORDER, n)[:2] == (helper, chaos)


# --- The Emptiness (R12) --------------------------------------------------------------------


def emptiness_position(figure_row):
    g = position([(EW, [], []), (EF, [sognae(2, FIRE)], [incubi(-2, EARTH)])], hand=AIR_HAND)
    return with_figure(g, figure_row)


def test_never_a_census_while_the_emptiness_stands_on_a_dreamless_city():
    g = emptiness_position(0)
    n = phase1_options_nb(g, C, 0)
    assert any(o[0] == Act.CENSUS for o in options(g, n))
    assert choose(g, Decision.PHASE1, n)[0] != Act.CENSUS  # R12.2: it would lose the game
    n = set_options(g, [[Act.PASS, -1, -1, -1], [Act.CENSUS, -1, -1, -1]])
    assert choose(g, Decision.SECOND_ACT, n)[0] == Act.PASS


def test_the_same_census_is_taken_with_the_figure_on_its_pile():
    g = emptiness_position(-1)
    n = phase1_options_nb(g, C, 0)
    assert choose(g, Decision.PHASE1, n)[0] == Act.CENSUS
    n = set_options(g, [[Act.PASS, -1, -1, -1], [Act.CENSUS, -1, -1, -1]])
    assert choose(g, Decision.SECOND_ACT, n)[0] == Act.CENSUS


def test_the_city_under_the_emptiness_is_not_counted_as_pacified():
    # the only balanced city carries the figure: a census pacifies nothing
    g = position([(EW, [sognae(1, WATER)], [incubi(-3, WATER)]),
                  (EF, [sognae(2, FIRE)], [incubi(-2, EARTH)])], hand=AIR_HAND)
    with_figure(g, 1)
    n = phase1_options_nb(g, C, 0)
    assert choose(g, Decision.PHASE1, n)[0] != Act.CENSUS


def test_ally_when_the_last_city_is_balanced_under_the_emptiness():
    # one row left: the figure comes back to it every turn, only an Ally frees it
    g = position([(EF, [sognae(2, FIRE)], [incubi(-2, EARTH)])], hand=AIR_HAND, success=11)
    with_figure(g, 0, cards_left=5)
    n = phase1_options_nb(g, C, 0)
    act, a, b, _ = choose(g, Decision.PHASE1, n)
    assert act == Act.ALLY


# --- Postcards and Wise Chaos (R11) ----------------------------------------------------------


def test_a_wise_chaos_is_kept_when_revealing_is_cheap():
    chaos = chaos_ids()[0]
    g = position([(EW, [sognae(1, WATER)], [incubi(-3, WATER)]),
                  (EF, [sognae(3, FIRE)], [incubi(-1, EARTH)])],
                 deck=list(CARDS.dream_ids[:60]), total_cities=4)
    g.info[Info.WISE_LEFT] = 3
    n = draw_chaos_options_nb(g, C, chaos, True)
    assert options(g, n)[-1][0] == ChaosHow.WISE
    assert choose(g, Decision.DRAW_CHAOS, n)[0] == ChaosHow.REVEAL


def test_a_wise_chaos_puts_back_a_chaos_that_would_hurt_late_in_the_game():
    chaos = chaos_ids()[0]
    g = position([(EW, [sognae(1, WATER)], [incubi(-3, WATER)]),
                  (EF, [sognae(3, FIRE)], [incubi(-1, EARTH)])],
                 deck=list(CARDS.dream_ids[:6]), city_deck=[WF, WF], success=2)
    g.info[Info.WISE_LEFT] = 1
    n = draw_chaos_options_nb(g, C, chaos, True)
    assert choose(g, Decision.DRAW_CHAOS, n)[0] == ChaosHow.WISE


def test_a_chromatic_goes_where_it_balances_rather_than_spending_a_wise_chaos():
    chromatic = chromatic_ids()[0]
    g = position([(EW, [sognae(1, WATER)], [incubi(-2, WATER), incubi(-3, EARTH)]),
                  (EF, [sognae(3, FIRE)], [incubi(-1, EARTH)])])
    n = chromatic_options_nb(g, chromatic, True)
    assert options(g, n)[-1] == (WISE_ROW, -1, chromatic, -1)
    assert choose(g, Decision.CHROMATIC, n)[:2] == (0, Side.L)


def test_a_chromatic_that_would_only_do_harm_spends_the_wise_chaos():
    # every city balanced: each side would ruin one; the -2 row is the Wise Chaos, not row 2
    chromatic = chromatic_ids()[0]
    rows = [(EW, [sognae(2, WATER)], [incubi(-2, WATER)]),
            (EF, [sognae(1, FIRE)], [incubi(-1, EARTH)]),
            (WF, [sognae(3, FIRE)], [incubi(-3, WATER)]),
            (city(FIRE | AIR), [sognae(2, AIR)], [incubi(-2, FIRE)])]
    g = position(rows)
    n = chromatic_options_nb(g, chromatic, True)
    assert choose(g, Decision.CHROMATIC, n)[0] == WISE_ROW
    assert choose(g, Decision.CHROMATIC, n, WISE=1e6)[0] != WISE_ROW


def test_no_dream_is_added_beside_a_lone_dreamcatcher_when_another_place_is_as_good():
    card = sognae(1, EARTH)
    g = position([(EW, [sognae(1, WATER)], [incubi(-3, WATER)]),
                  (EF, [sognae(1, FIRE)], [incubi(-3, FIRE)])], hand=[card])
    n = phase1_options_nb(g, C, 0)
    assert choose(g, Decision.PHASE1, n)[:3] == (Act.PLACE, card, 0)  # a tie: the first
    with_postcards(g, {(0, 0): PostcardKind.DREAMCATCHER})
    assert choose(g, Decision.PHASE1, n)[:3] == (Act.PLACE, card, 1)


def test_a_zero_sum_discard_spares_a_postcard():
    rocket_dream = sognae(2, WATER)
    g = position([(EW, [rocket_dream, sognae(1, EARTH), sognae(3, WATER)],
                   [incubi(-2, WATER), incubi(-1, EARTH)])])
    n = zero_sum_options_nb(g, C, 0)
    assert choose(g, Decision.ZERO_SUM, n)[0] == 0b011011  # the largest set: +2 +1 -2 -1
    with_postcards(g, {(0, 0): PostcardKind.ROCKET})
    assert choose(g, Decision.ZERO_SUM, n)[0] == 0b011100  # the largest without it: +3 -2 -1


def test_a_census_is_taken_while_a_hourglass_can_still_score():
    hand = [sognae(2, AIR)]  # brings row 1 from -4 to -2
    g = position([(EF, [sognae(2, FIRE)], [incubi(-2, EARTH)]),
                  (city(FIRE | AIR), [sognae(1, FIRE)], [incubi(-3, FIRE), incubi(-2, AIR)])],
                 hand=hand)
    n = phase1_options_nb(g, C, 0)
    assert choose(g, Decision.PHASE1, n)[:3] == (Act.PLACE, hand[0], 1)
    with_postcards(g, {(0, 0): PostcardKind.HOURGLASS})  # +1 now, likely -2 if it waits
    assert choose(g, Decision.PHASE1, n)[0] == Act.CENSUS


def test_a_postcard_that_scores_2_whatever_does_not_hold_a_census_back():
    g = position([(EF, [sognae(2, FIRE)], [incubi(-2, EARTH)]),
                  (EW, [sognae(1, WATER)], [incubi(-3, WATER)])], hand=AIR_HAND)
    n = phase1_options_nb(g, C, 0)
    assert choose(g, Decision.PHASE1, n)[0] == Act.CENSUS
    with_postcards(g, {(0, 3): PostcardKind.SEER})  # its condition cannot be met there
    assert choose(g, Decision.PHASE1, n)[0] == Act.CENSUS


# --- the team game (R10) --------------------------------------------------------------------


def team_position(seat_hand, polarity=0):
    g = position([(EW, [sognae(1, WATER)], [incubi(-3, WATER)]),
                  (EF, [sognae(3, FIRE)], [incubi(-1, EARTH)])], hand=seat_hand)
    g.info[Info.SEATS] = 2
    g.info[Info.SEAT] = 0
    g.info[Info.POLARITY] = polarity
    g.hands[1, :] = -1
    return g


def test_swap_polarity_when_the_hand_fits_the_other_side():
    g = team_position([incubi(-2, EARTH)])  # balances row 1 from the right; seat 0 is L
    n = set_options(g, [[0, -1, -1, -1], [1, -1, -1, -1]])
    assert choose(g, Decision.SWAP_POLARITY, n)[0] == 1


def test_keep_polarity_when_the_hand_fits_its_side():
    g = team_position([sognae(2, WATER)])  # balances row 0 from the left
    n = set_options(g, [[0, -1, -1, -1], [1, -1, -1, -1]])
    assert choose(g, Decision.SWAP_POLARITY, n)[0] == 0


# --- whole games --------------------------------------------------------------------------


@pytest.mark.parametrize("expansions, variant", [
    ("emptiness", "solo"), ("books,postcards,emptiness", "solo"), ("all", "team"),
])
def test_greedy_plays_whole_games_and_never_loses_to_the_emptiness(expansions, variant):
    df = analyzer.simulate(games=1500, seed=5, policy="greedy", expansions=expansions,
                           variant=variant)
    assert (df["reason"] != "emptiness").all()
    assert (df["reason"] != "illegal_decision").all()
    if variant == "team":
        assert df["polarity_swaps"].mean() > 1
